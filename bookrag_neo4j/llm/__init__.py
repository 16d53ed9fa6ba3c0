"""The model layer: chat models (LLM/VLM), embedders, rerankers, prompts, response cache, usage accounting.

    from bookrag_neo4j.llm import Models, render_prompt, track_usage

    models = Models.from_settings(Settings())
    with track_usage() as ledger:
        reply = await models.llm.complete(render_prompt("query_classify", question=q), QueryClassification,
                                          stage="query.plan")
"""

from .chat import ChatModel, Completion, RawReply
from .embedder import Embedder, OpenAIEmbedder, SentenceTransformerEmbedder
from .factory import Models, build_embedder, build_llm, build_reranker, build_vlm, index_dimensions
from .messages import image_part
from .prompts import RenderedPrompt, load_prompt, render_prompt
from .reply_cache import ResponseCache
from .reranker import CrossEncoderReranker, FusionReranker, HTTPReranker, Reranker
from .scripted import ScriptedChatModel
from .usage import Usage, UsageLedger, track_usage

__all__ = [
    "ChatModel", "Completion", "CrossEncoderReranker", "Embedder", "FusionReranker", "HTTPReranker", "Models",
    "OpenAIEmbedder", "RawReply", "RenderedPrompt", "Reranker", "ResponseCache", "ScriptedChatModel",
    "SentenceTransformerEmbedder", "Usage", "UsageLedger", "build_embedder", "build_llm", "build_reranker",
    "build_vlm", "image_part", "index_dimensions", "load_prompt", "render_prompt", "track_usage",
]
