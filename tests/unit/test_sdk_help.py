"""The SDK as ``help()`` and an editor show it: every public method documented, each sync twin with its async
method's typed signature (no ``**kwargs`` to guess), and one name for the evidence list and the top-k."""

from __future__ import annotations

import inspect

import pytest

from bookrag_neo4j.retrieval.results import Answer, Citation, Evidence, EvidenceNode
from bookrag_neo4j.sdk import BookRAG

OPEN_ENDED = {"set_card": "fields", "aset_card": "fields", "evaluate": "options", "aevaluate": "options",
              "from_env": "kwargs"}  # a card's fields, the evaluation's options, the constructor's


def test_every_public_method_has_a_docstring_and_a_typed_signature() -> None:
    public = [name for name, _ in inspect.getmembers(BookRAG, callable) if not name.startswith("_")]
    assert {"ask", "retrieve", "index", "run_cypher", "evidence_graph", "documents"} <= set(public)
    for name in public:
        method = getattr(BookRAG, name)
        assert inspect.getdoc(method), name
        for parameter in inspect.signature(method).parameters.values():
            if parameter.kind is inspect.Parameter.VAR_KEYWORD:
                assert OPEN_ENDED.get(name) == parameter.name, name
    for sync in ("ask", "retrieve", "index", "run_cypher", "evidence_graph", "cypher", "stats", "bi"):
        twin, original = getattr(BookRAG, sync), getattr(BookRAG, f"a{sync}")
        assert inspect.signature(twin) == inspect.signature(original), sync
        assert inspect.getdoc(original) in inspect.getdoc(twin) and f"twin of :meth:`a{sync}`" in inspect.getdoc(twin)
    assert "top_k" in inspect.signature(BookRAG.ask).parameters and "top_k" in inspect.signature(BookRAG.retrieve).parameters


NODE = EvidenceNode(key="n1", doc_key="d1", document="a.pdf", kind="text", page_start=3, page_end=4,
                    section_path="Item 7 > Results")


def test_one_name_for_the_evidence_and_labels_that_read_alike() -> None:
    evidence = Evidence(question="q", evidence=[NODE])
    answer = Answer(question="q", text="t", evidence=[NODE], citations=[NODE.citation])
    assert evidence.evidence == answer.evidence == [NODE]
    assert Evidence.model_validate({"question": "q", "nodes": [NODE.model_dump()]}).evidence == [NODE]  # saved JSON
    assert "evidence" in Evidence.model_json_schema()["properties"] and "nodes" not in evidence.model_dump()
    citation: Citation = answer.citations[0]
    assert citation.label == "a.pdf, Item 7 > Results, pp. 3–4" and citation.short_label == "Item 7 > Results, pp. 3–4"
    assert NODE.citation.label == citation.label  # both properties


def test_top_k_below_one_is_refused() -> None:
    from bookrag_neo4j.errors import QuestionError
    from bookrag_neo4j.sdk import _top

    with pytest.raises(QuestionError, match="top_k must be at least 1"):
        _top(0)
