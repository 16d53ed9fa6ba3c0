"""The web app's JSON API under ``/api/``: ask, retrieve, the documents, upload and the indexing jobs, with the
same results as MCP's tools (:mod:`bookrag_neo4j.api_models`), described at ``/openapi.json`` and ``/docs``. The
token, the Host check and the refusal of writes from another site apply as to the pages (the middleware of
:mod:`.security`); errors are ``{"error": "..."}``.

    curl -s localhost:8000/api/ask -H 'content-type: application/json' \\
         -d '{"question": "What does lm fit?", "docs": "R-intro.pdf", "top_k": 3}'
    # a follow-up: the earlier turns as `history` ([{"question", "answer", "documents": [doc keys]}, ...])
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from fastapi import APIRouter, Depends, Request
from fastapi.responses import JSONResponse
from pydantic import BaseModel, ConfigDict, Field
from starlette.exceptions import HTTPException

from ..api_models import AskResult, DocumentInfo, DocumentList, RetrieveResult, ask_result, retrieve_result
from ..errors import DocumentError
from ..keys import stored_text
from ..methods import METHODS, method_name
from ..retrieval.conversation import MAX_TURNS
from ..retrieval.results import Turn
from ..sdk import BookRAG
from .jobs import IndexJobs
from .uploads import UploadTooLargeError, receive_pdf


class QuestionBody(BaseModel):
    """The body of ``/api/ask`` and ``/api/retrieve`` (a question over the CLI's limit is refused, as there)."""

    model_config = ConfigDict(extra="forbid")

    question: str = Field(min_length=1, description="The question.")
    docs: str | list[str] | None = Field(None, description="One document (file name or key), several, or none for "
                                                           "the whole library.")
    method: str = Field("bookrag", description="A method of `bookrag methods` (bookrag, superrag, g2, ...).")
    top_k: int = Field(10, ge=1, le=100, description="At most this many evidence items, best first.")
    history: list[Turn] = Field(default_factory=list, max_length=50,
                                description="For a follow-up: the conversation's earlier turns, oldest first (each "
                                            "answer's `question`, `answer` and the `documents` its citations name); "
                                            f"the last {MAX_TURNS} are read.")


def api_router(rag: BookRAG, jobs: IndexJobs, uploads: Path, max_upload_mb: int,
               reach: Callable[[], Awaitable[None]], job_json: Callable[[Any], dict[str, Any]]) -> APIRouter:
    """The routes, over the app's SDK object and indexing jobs."""
    router = APIRouter(prefix="/api", tags=["api"])
    neo4j = [Depends(reach)]

    def method_known(method: str) -> str:
        if (name := method_name(method)) not in METHODS:
            raise HTTPException(400, f"no method {method!r}: choose one of {', '.join(METHODS)}")
        return name

    @router.post("/ask", dependencies=neo4j)
    async def ask(body: QuestionBody) -> AskResult:
        """The answer with its citations and evidence (extractive without an LLM)."""
        answer = await rag.aask(body.question, body.docs, method=method_known(body.method), history=body.history)
        return ask_result(answer, body.method, body.top_k)

    @router.post("/retrieve", dependencies=neo4j)
    async def retrieve(body: QuestionBody) -> RetrieveResult:
        """The ranked evidence, no answer synthesis."""
        evidence = await rag.aretrieve(body.question, body.docs, method=method_known(body.method),
                                       history=body.history)
        return retrieve_result(evidence, body.method, body.top_k)

    @router.get("/documents", dependencies=neo4j)
    async def documents() -> DocumentList:
        """Every indexed document with its card and each layer's state."""
        return DocumentList(documents=[DocumentInfo.of(d) for d in await rag.adocuments()])

    @router.post("/upload", status_code=202, dependencies=neo4j)
    async def upload(request: Request) -> JSONResponse:
        """A PDF as a multipart form's ``pdf`` field (``curl -F pdf=@report.pdf``), indexed in the background:
        poll ``/api/jobs/{id}``."""
        try:
            path, name = await receive_pdf(request, uploads, max_upload_mb)
        except DocumentError as exc:
            raise HTTPException(413 if isinstance(exc, UploadTooLargeError) else 400, stored_text(str(exc))) from exc
        return JSONResponse(job_json(jobs.submit(path, name=name)), status_code=202)

    @router.get("/jobs")
    async def job_list() -> JSONResponse:
        """The indexing jobs of this server, newest first."""
        return JSONResponse([job_json(j) for j in jobs.all()])

    @router.get("/jobs/{job_id}")
    async def job_status(job_id: str) -> JSONResponse:
        """One indexing job: its state, stages and the document's key once written."""
        if (job := jobs.get(job_id)) is None:
            raise HTTPException(404, f"no indexing job {job_id}")
        return JSONResponse(job_json(job))

    return router
