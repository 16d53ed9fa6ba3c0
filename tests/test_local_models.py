"""Packaged local LLMs: parts joined in order, the SHA-256 checked before anything may load the file;
and the real offline model end to end (marked `local_model`, installed by `make test`)."""

from __future__ import annotations

import hashlib
import sys
import time

import pytest

from bookrag_neo4j.config import Settings
from bookrag_neo4j.errors import LocalModelError
from bookrag_neo4j.llm import local_models, render_prompt, track_usage
from bookrag_neo4j.llm.factory import build_llm
from bookrag_neo4j.llm.local_models import LocalModelSpec, ensure_local_model
from bookrag_neo4j.retrieval.replies import Decomposition, GlobalPlan, QueryClassification


@pytest.fixture
def fake_parts(tmp_path, monkeypatch: pytest.MonkeyPatch) -> list[bytes]:
    chunks = [b"GGUF-part-one|", b"part-two|", b"part-three"]
    for i, chunk in enumerate(chunks, start=1):
        pkg = tmp_path / "site" / f"fakemodel_part{i}"
        (pkg / "data").mkdir(parents=True)
        (pkg / "__init__.py").write_text("raise RuntimeError('never imported')\n")
        (pkg / "data" / f"part{i:02d}.bin").write_bytes(chunk)
    monkeypatch.syspath_prepend(str(tmp_path / "site"))
    return chunks


def spec(sha: str) -> LocalModelSpec:
    return LocalModelSpec("fake", "fakemodel-part", 3, "1.0", sha, "fake.gguf")


def test_parts_are_joined_and_verified(fake_parts, tmp_path, monkeypatch: pytest.MonkeyPatch) -> None:
    whole = b"".join(fake_parts)
    monkeypatch.setitem(local_models.LOCAL_MODELS, "fake", spec(hashlib.sha256(whole).hexdigest()))
    path = ensure_local_model("fake", tmp_path / "cache")
    assert path.read_bytes() == whole
    assert all(not name.startswith("fakemodel") for name in sys.modules)  # found, never imported
    mtime = path.stat().st_mtime_ns
    assert ensure_local_model("fake", tmp_path / "cache") == path and path.stat().st_mtime_ns == mtime


def test_checksum_mismatch_refuses_the_file(fake_parts, tmp_path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(local_models.LOCAL_MODELS, "fake", spec("0" * 64))
    with pytest.raises(LocalModelError, match="SHA-256"):
        ensure_local_model("fake", tmp_path / "cache")
    assert list((tmp_path / "cache" / "models").iterdir()) == []


def test_missing_packages_say_how_to_install(tmp_path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(local_models.LOCAL_MODELS, "fake", spec("0" * 64))
    with pytest.raises(LocalModelError, match="make local-model"):
        ensure_local_model("fake", tmp_path / "cache")


@pytest.mark.local_model
async def test_real_local_model_structured_output() -> None:
    llm = build_llm(Settings(llm_provider="local", llm_cache=False))
    assert llm is not None and llm.provider == "llama.cpp"
    try:
        with track_usage() as ledger:
            began = time.perf_counter()
            classified, usage = await llm.complete(
                render_prompt("query_classify", question="What was the total revenue in 2018?"), QueryClassification
            )
            plan, _ = await llm.complete(
                render_prompt("global_filter", question="How many tables are there between page 3 and page 10?"),
                GlobalPlan,
            )
            parts, _ = await llm.complete(
                render_prompt("query_decompose", question="Was revenue higher in 2017 or in 2018?"), Decomposition
            )
            elapsed = time.perf_counter() - began
        assert isinstance(classified, QueryClassification) and usage.completion_tokens > 0
        assert isinstance(plan, GlobalPlan) and plan.operation in ("COUNT", "LIST", "SUMMARIZE", "ANALYZE")
        assert isinstance(parts, Decomposition) and parts.sub_questions
        assert ledger.total().calls >= 3
        print(f"local model: 3 structured calls in {elapsed:.1f}s, {ledger.total().total_tokens} tokens")
    finally:
        await llm.aclose()


@pytest.mark.local_model
async def test_real_local_model_extracts_entities_from_real_text() -> None:
    from bookrag_neo4j.kg.llm_extract import LLMExtractor, Passage
    from bookrag_neo4j.parsing.pymupdf_parser import parse_pdf

    from .pdfs import TEN_K, need

    parsed = parse_pdf(need(TEN_K), tables="off")
    texts = [b.text for b in parsed.blocks if b.kind == "text" and 150 < len(b.text) < 500][:2]
    llm = build_llm(Settings(llm_provider="local", llm_cache=False, llm_max_tokens=400))
    try:
        results = await LLMExtractor(llm, max_entities=6).extract([Passage(t, "text", "Item 1", "Amazon 10-K")
                                                                   for t in texts])
    finally:
        await llm.aclose()
    names = [e.name for r in results for e in r.entities]
    assert len(results) == 2 and names, "the local model found no entity in two paragraphs of a 10-K"
    print("local model entities:", names)
