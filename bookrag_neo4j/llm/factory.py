"""Build the configured models from :class:`~bookrag_neo4j.config.Settings`.

    models = Models.from_settings(Settings())                       # what the environment configures
    models = Models.from_settings(settings, llm=LangChainChatModel(my_chat_model))   # or bring your own
    models = Models.from_settings(Settings(llm_provider="langchain", langchain_chat="langchain_ollama:ChatOllama",
                                           langchain_kwargs={"model": "llama3.1"}))  # any LangChain chat model

``llm``/``vlm`` are ``None`` when none is configured: the product then runs in its LLM-free mode.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..config import Settings
from ..errors import ConfigurationError
from .chat import ChatModel
from .embedder import Embedder, OpenAIEmbedder, SentenceTransformerEmbedder
from .reply_cache import ResponseCache
from .reranker import CrossEncoderReranker, FusionReranker, HTTPReranker, Reranker


def _secret(settings: Settings) -> str | None:
    return settings.models.openai_api_key.get_secret_value() if settings.models.openai_api_key else None


def _common(settings: Settings, cache: ResponseCache | None) -> dict[str, Any]:
    return {
        "temperature": settings.models.llm_temperature,
        "max_tokens": settings.models.llm_max_tokens,
        "max_concurrency": settings.models.llm_max_concurrency,
        "max_retries": settings.models.llm_max_retries,
        "retry_wait": settings.models.llm_retry_wait,
        "cache": cache,
    }


def llm_provider(settings: Settings) -> str:
    """The effective LLM provider (``auto`` resolved)."""
    if settings.models.llm_provider != "auto":
        return settings.models.llm_provider
    return "openai" if (settings.models.openai_api_key or settings.models.openai_base_url) else "none"


def build_llm(settings: Settings, cache: ResponseCache | None = None) -> ChatModel | None:
    """The configured LLM, or ``None`` (LLM-free mode); a ``ConfigurationError`` when the settings are wrong."""
    provider = llm_provider(settings)
    if provider == "none":
        return None
    if provider == "openai":
        from .openai_chat import OpenAIChatModel

        return OpenAIChatModel(
            settings.models.llm_model, base_url=settings.models.openai_base_url, api_key=_secret(settings),
            timeout=settings.models.llm_timeout, structured_output=settings.models.llm_structured_output,
            **_common(settings, cache),
        )
    if provider == "langchain":
        from .langchain_chat import LangChainChatModel, load_chat_model

        chat_model = load_chat_model(settings.models.langchain_chat, settings.models.langchain_kwargs)
        return LangChainChatModel(chat_model, **_common(settings, cache))
    from .llamacpp_chat import LlamaCppChatModel
    from .local_models import ensure_local_model

    path = ensure_local_model(settings.models.local_llm, settings.cache_dir)
    return LlamaCppChatModel(path, n_ctx=settings.models.local_llm_context, **_common(settings, cache))


def build_vlm(settings: Settings, cache: ResponseCache | None = None) -> ChatModel | None:
    if settings.models.vlm_provider == "none":
        return None
    from .openai_chat import OpenAIChatModel

    return OpenAIChatModel(
        settings.models.vlm_model, base_url=settings.models.vlm_base_url or settings.models.openai_base_url,
        api_key=_secret(settings),
        timeout=settings.models.llm_timeout, **_common(settings, cache),
    )


def build_embedder(settings: Settings) -> Embedder:
    if settings.models.embedder_provider == "openai":
        return OpenAIEmbedder(
            settings.models.embedder_model, base_url=settings.models.embedder_base_url or settings.models.openai_base_url,
            api_key=_secret(settings), batch_size=settings.models.embedding_batch_size,
        )
    return SentenceTransformerEmbedder(settings.models.embedder_model, batch_size=settings.models.embedding_batch_size,
                                       precision=settings.models.embedder_precision)


def build_reranker(settings: Settings, embedder: Embedder) -> Reranker:
    if settings.models.reranker_provider == "fusion":
        return FusionReranker(embedder, k=settings.models.reranker_fusion_k)
    if not settings.models.reranker_model:
        raise ConfigurationError(f"reranker provider {settings.models.reranker_provider!r} needs BOOKRAG_RERANKER_MODEL")
    if settings.models.reranker_provider == "cross-encoder":
        return CrossEncoderReranker(settings.models.reranker_model)
    base_url = settings.models.reranker_base_url or settings.models.openai_base_url
    if not base_url:
        raise ConfigurationError("the http reranker needs BOOKRAG_RERANKER_BASE_URL")
    return HTTPReranker(base_url, settings.models.reranker_model, api_key=_secret(settings))


@dataclass
class Models:
    """The four models the product uses."""

    llm: ChatModel | None
    vlm: ChatModel | None
    embedder: Embedder
    reranker: Reranker

    @classmethod
    def from_settings(
        cls,
        settings: Settings,
        *,
        llm: ChatModel | None = None,
        vlm: ChatModel | None = None,
        embedder: Embedder | None = None,
        reranker: Reranker | None = None,
    ) -> Models:
        cache = ResponseCache(settings.llm_cache_path) if settings.models.llm_cache else None
        embedder = embedder or build_embedder(settings)
        return cls(
            llm=llm if llm is not None else build_llm(settings, cache),
            vlm=vlm if vlm is not None else build_vlm(settings, cache),
            embedder=embedder,
            reranker=reranker or build_reranker(settings, embedder),
        )


def index_dimensions(settings: Settings, embedder: Embedder | None = None) -> int:
    """The vector-index dimension: ``BOOKRAG_EMBEDDING_DIMENSIONS`` if set, else the embedder's."""
    if settings.models.embedding_dimensions:
        return settings.models.embedding_dimensions
    return (embedder or build_embedder(settings)).dimension
