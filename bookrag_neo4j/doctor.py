"""``bookrag doctor``: what is configured and whether it works, each with a one-line reason when not.

    from bookrag_neo4j.doctor import run_doctor
    report = run_doctor(Settings())
    report["gds"].ok, report["gds"].detail
"""

from __future__ import annotations

import asyncio
import subprocess
import time
from collections.abc import Awaitable, Callable

from pydantic import BaseModel

from .config import Settings
from .db.client import Neo4jClient
from .db.projections import held_projections
from .db.schema import VECTOR_INDEXES, IndexInfo
from .db.vectors import PLUGIN_VERSION, plugin_version
from .errors import BookRAGError
from .llm.chat import ChatModel
from .llm.factory import build_embedder, build_llm, build_reranker, build_vlm, llm_provider
from .llm.langchain_chat import LangChainChatModel
from .llm.prompts import render_prompt
from .parsing.ocr import tesseract
from .retrieval.reasoners import ppr_engine
from .server.manager import connection_info

REQUIRED = ("neo4j", "gds", "vector_index")
MODELS = ("embedder", "reranker", "llm", "vlm")


class Check(BaseModel):
    """One line of the doctor's report."""

    ok: bool
    detail: str
    configured: bool = True  # False: a model the settings leave out (LLM-free mode), not a failure


class Pong(BaseModel):
    ok: bool


async def _timed(check: Callable[[], Awaitable[str]]) -> Check:
    began = time.perf_counter()
    try:
        detail = await check()
    except Exception as exc:  # the doctor reports every failure as a line, never crashes
        return Check(ok=False, detail=f"{type(exc).__name__}: {exc}")
    return Check(ok=True, detail=f"{detail} ({(time.perf_counter() - began) * 1000:.0f} ms)")


async def _chat_check(model: ChatModel) -> str:
    await model.complete(render_prompt("doctor_ping"), Pong, stage="doctor", use_cache=False, max_tokens=32)
    await model.aclose()
    name = model.model
    if isinstance(model, LangChainChatModel) and name != type(model.chat_model).__name__:
        name = f"{type(model.chat_model).__name__} {name}"  # the class too: "langchain ChatOllama llama3.1 answers"
    return f"{model.provider} {name} answers"


async def llm_check(settings: Settings) -> Check:
    """The LLM's line: asked once when configured; a wrong configuration is this line's failure alone."""
    provider = llm_provider(settings)
    if provider == "none":
        hint = ("BOOKRAG_LANGCHAIN_CHAT is set but not used: set BOOKRAG_LLM_PROVIDER=langchain"
                if settings.models.langchain_chat else "set OPENAI_API_KEY / OPENAI_BASE_URL, BOOKRAG_LLM_PROVIDER=local "
                "for the offline model, or BOOKRAG_LLM_PROVIDER=langchain with BOOKRAG_LANGCHAIN_CHAT=module:Class")
        return Check(ok=False, configured=False, detail=f"not configured (LLM-free mode): {hint}")
    try:
        llm = build_llm(settings)
    except BookRAGError as exc:
        return Check(ok=False, detail=f"{provider}: {exc}")
    if llm is None:  # pragma: no cover - build_llm returns None for provider "none" only
        return Check(ok=False, configured=False, detail="not configured (LLM-free mode)")
    return await _timed(lambda: _chat_check(llm))


async def _model_checks(settings: Settings) -> dict[str, Check]:
    checks: dict[str, Check] = {}
    embedder = build_embedder(settings)

    async def embed() -> str:
        (vector,) = await embedder.embed(["bookrag doctor"])
        return f"{embedder.name}, {len(vector)} dimensions"

    checks["embedder"] = await _timed(embed)
    reranker = build_reranker(settings, embedder)

    async def rerank() -> str:
        scores = await reranker.score("graph database", ["Neo4j is a graph database.", "Bananas are yellow."])
        if not scores[0] > scores[1]:
            raise BookRAGError(f"ranked an unrelated passage first ({scores})")
        return reranker.name

    checks["reranker"] = await _timed(rerank)
    checks["llm"] = await llm_check(settings)
    vlm = build_vlm(settings)
    checks["vlm"] = (
        await _timed(lambda: _chat_check(vlm)) if vlm else Check(
            ok=False, configured=False, detail="not configured: images are described from captions and nearby text; "
            "set BOOKRAG_VLM_PROVIDER=openai and BOOKRAG_VLM_MODEL")
    )
    return checks


async def _graph_checks(settings: Settings) -> dict[str, Check]:
    conn = connection_info(settings)
    async with Neo4jClient(conn) as db:
        versions = await db.versions()
        checks = {"neo4j": Check(ok=True, detail=f"Neo4j {versions.neo4j_version} {versions.edition} at {conn.uri}")}
        checks["gds"] = (
            Check(ok=True, detail=f"Graph Data Science {versions.gds_version}")
            if versions.gds_version
            else Check(ok=False, detail="the Graph Data Science plugin is not installed on this server")
        )
        plugin = await plugin_version(db, fresh=True)
        engine, why = ppr_engine(settings.bookrag.ppr_engine, versions.gds_version is not None,
                                 plugin == PLUGIN_VERSION)
        held = await held_projections(db) if versions.gds_version else {}
        checks["graph_reasoning"] = Check(
            ok={"local": True, "gds": versions.gds_version is not None, "plugin": plugin == PLUGIN_VERSION}[engine],
            detail=f"PageRank on {engine}: {why}" + (
                f"; {len(held)} document projection(s) held, {sum(held.values()) / 2**20:.1f} of "
                f"{settings.bookrag.gds_projection_budget_mb} MB" if engine == "gds" else ""))
        checks["plugin"] = plugin_check(plugin, settings.retrieval.vector_engine)
        (support,) = await db.read("server/vector_support")
        if not support["supported"]:
            checks["vector_index"] = Check(ok=False, detail="this Neo4j has no vector indexes (needs 5.13 or later)")
        else:
            indexes = {i.name: i for i in await db.read_as(IndexInfo, "schema/indexes")}
            missing = [name for name in VECTOR_INDEXES if name not in indexes]
            detail = (
                f"supported; schema not applied yet ({', '.join(missing)} missing): run `bookrag neo4j init`"
                if missing
                else "; ".join(f"{n}: {indexes[n].dimensions} dims, {indexes[n].state}" for n in VECTOR_INDEXES)
            )
            checks["vector_index"] = Check(ok=True, detail=detail)
    return checks


def plugin_check(version: str | None, engine: str) -> Check:
    """bookrag-neo4j's plugin on the server: loaded (this package's version), missing, or of another version; a
    server without it scores vectors in Cypher, the same results, slower."""
    if engine == "cypher":
        return Check(ok=True, detail=f"not used (BOOKRAG_VECTOR_ENGINE=cypher); the server has {version or 'none'}")
    if version == PLUGIN_VERSION:
        return Check(ok=True, detail=f"bookrag-neo4j plugin {version} loaded: vectors scored in the server")
    if version is None:
        return Check(ok=engine == "auto", detail="not loaded: vectors scored in Cypher (the same results, slower); "
                     "`bookrag neo4j start` loads it into a managed server, docker/plugin builds it for others")
    return Check(ok=False, detail=f"bookrag-neo4j plugin {version} loaded, but this package needs {PLUGIN_VERSION}: "
                 "vectors scored in Cypher until the server has the matching jar (restart a managed server)")


def ocr_check(settings: Settings) -> Check:
    """Whether Tesseract reads scanned pages and figures (``BOOKRAG_OCR``), and its version."""
    binary = tesseract()
    if settings.indexing.ocr == "off":
        return Check(ok=False, detail="off (BOOKRAG_OCR=off): scanned pages and figures are not read")
    if binary is None:
        return Check(ok=False, detail="Tesseract is not installed: scanned pages and the words inside figures are "
                                      "not read; `make ocr` (Debian: apt-get install tesseract-ocr tesseract-ocr-eng)")
    try:
        version = subprocess.run([binary, "--version"], capture_output=True, text=True, timeout=10).stdout.split("\n")[0]
        languages = subprocess.run([binary, "--list-langs"], capture_output=True, text=True, timeout=10).stdout.split()
    except (OSError, subprocess.SubprocessError) as exc:
        return Check(ok=False, detail=f"{binary} does not run: {exc}")
    missing = [lang for lang in settings.indexing.ocr_language.split("+") if lang not in languages]
    if missing:
        return Check(ok=False, detail=f"{version}: no traineddata for {', '.join(missing)} (Debian: tesseract-ocr-<lang>)")
    return Check(ok=True, detail=f"{version} ({settings.indexing.ocr}, {settings.indexing.ocr_language})")


def failures(report: dict[str, Check]) -> list[str]:
    """The checks that make ``bookrag doctor`` exit 1: Neo4j, GDS and vector indexes, and every configured model
    that does not answer (a model left out is the LLM-free mode, not a failure)."""
    return [name for name, check in report.items()
            if name in REQUIRED + MODELS and check.configured and not check.ok]


def run_doctor(settings: Settings) -> dict[str, Check]:
    """Check Neo4j, GDS, vector index support and the configured models."""
    try:
        checks = asyncio.run(_graph_checks(settings))
    except BookRAGError as exc:
        checks = {name: Check(ok=False, detail=str(exc)) for name in REQUIRED}
    try:
        checks.update(asyncio.run(_model_checks(settings)))
    except BookRAGError as exc:
        checks.update({name: Check(ok=False, detail=str(exc)) for name in MODELS})
    checks["ocr"] = ocr_check(settings)
    return checks
