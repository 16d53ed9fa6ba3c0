"""The real offline model end to end (marked `local_model`, installed by `make test`): structured replies and
entities from real text. (Packaged parts and their checksum: ``tests/unit/test_local_models.py``.)"""

from __future__ import annotations

import time
from collections.abc import AsyncIterator, Callable

import pytest

from bookrag_neo4j.config import Settings
from bookrag_neo4j.llm import render_prompt, track_usage
from bookrag_neo4j.llm.chat import ChatModel
from bookrag_neo4j.llm.factory import build_llm
from bookrag_neo4j.retrieval.planner_replies import GlobalPlan

from ..helpers.pdfs import TEN_K, need
from ..helpers.timeouts import LONG_TEST

pytestmark = [pytest.mark.local_model, pytest.mark.timeout(LONG_TEST)]  # a 0.5B model on CPU, on busy cores


@pytest.fixture
async def local_llm() -> AsyncIterator[Callable[..., ChatModel]]:
    """Builds the local LLM with the given settings; every one built is closed after the test."""
    built: list[ChatModel] = []

    def build(**settings: object) -> ChatModel:
        llm = build_llm(Settings(llm_provider="local", llm_cache=False, **settings))
        assert llm is not None
        built.append(llm)
        return llm

    yield build
    for llm in built:
        await llm.aclose()


async def test_real_local_model_structured_output(local_llm) -> None:
    """One structured call through llama.cpp's schema-constrained decoding (every prompt's reply model goes the same
    way; the planner's prompts and replies are tested with scripted models)."""
    llm = local_llm()
    assert llm.provider == "llama.cpp"
    with track_usage() as ledger:
        began = time.perf_counter()
        plan, usage = await llm.complete(
            render_prompt("global_filter", question="How many tables are there between page 3 and page 10?"),
            GlobalPlan,
        )
        elapsed = time.perf_counter() - began
    assert isinstance(plan, GlobalPlan) and plan.operation in ("COUNT", "LIST", "SUMMARIZE", "ANALYZE")
    assert usage.completion_tokens > 0 and ledger.total().calls == 1
    print(f"local model: a structured call in {elapsed:.1f}s, {ledger.total().total_tokens} tokens")


async def test_real_local_model_extracts_entities_from_real_text(local_llm) -> None:
    from bookrag_neo4j.kg.llm_extract import LLMExtractor
    from bookrag_neo4j.parsing.pymupdf_parser import parse_pdf
    from bookrag_neo4j.text.extraction import Passage

    parsed = parse_pdf(need(TEN_K), tables="off")
    texts = [b.text for b in parsed.blocks if b.kind == "text" and 150 < len(b.text) < 500][:1]
    llm = local_llm(llm_max_tokens=240)
    results = await LLMExtractor(llm, max_entities=3).extract([Passage(t, "text", "Item 1", "Amazon 10-K")
                                                               for t in texts])
    names = [e.name for r in results for e in r.entities]
    assert len(results) == 1 and names, "the local model found no entity in a paragraph of a 10-K"
    print("local model entities:", names)
