"""Methods: each turns a question into a plan over the shared operators (:mod:`bookrag_neo4j.ops`).

    from bookrag_neo4j.methods import METHODS, Retriever
    for m in METHODS.values(): print(m.name, m.description)
    retriever = Retriever(db, settings, models)                  # models.llm None: LLM-free
    evidence = await retriever.retrieve("What does lm fit?", [doc_key], method="layout-vanilla")

``bookrag`` (the paper's planner and its ablations) in :mod:`.bookrag`; the paper's baselines in
:mod:`.baselines`; SuperRAG and ``hybrid`` in :mod:`.superrag`; G²-Reader and its ablations in :mod:`.g2`. A new
method is a plan builder registered with :func:`.method_registry.method`.
"""

# isort: off
from . import bookrag, baselines, superrag, g2  # noqa: F401  (registers the methods, BookRAG first)
# isort: on
from .method_registry import METHODS, Method, get_method, method, method_name
from .retriever import Retriever

__all__ = ["METHODS", "Method", "Retriever", "get_method", "method", "method_name"]
