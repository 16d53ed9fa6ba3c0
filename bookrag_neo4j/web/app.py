"""``bookrag serve``: the library in a web page. Upload a PDF and watch it being indexed, browse the library and
a document's table of contents, ask with any method (and follow up) and see each citation's page with its evidence
boxed.

    from bookrag_neo4j.web import create_app
    app = create_app(Settings(), use_llm=False)       # an ASGI app; serving.server_config runs it as bookrag serve

Server-rendered HTML (Jinja2) with a little JavaScript (progress polling, the large page view); no build step.
Every failure reaches the page as a message, never as a traceback (the log keeps those). Each page that reads the
library reaches Neo4j first, once and without the driver's retries: when Neo4j is down it answers 503 in about a
second, saying how to start it, and ``/healthz`` says so too. A client that goes away mid-request is one INFO line.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Annotated, Any

from fastapi import Depends, FastAPI, Query, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
from fastapi.staticfiles import StaticFiles
from fastapi.templating import Jinja2Templates
from starlette.exceptions import HTTPException
from starlette.requests import ClientDisconnect

from ..browse import answer_url, browser_url, managed_browser
from ..config import Settings
from ..errors import BookRAGError, DocumentError, DocumentNotFoundError, Neo4jUnavailableError
from ..keys import local_path, stored_text
from ..library.documents import Document
from ..library.page_images import PageUnavailableError, render_page
from ..llm.factory import Models
from ..methods import METHODS, method_name
from ..retrieval.results import Answer, by_document
from ..sdk import BookRAG
from ..server import instance_settings
from .api import api_router
from .conversations import Conversations
from .jobs import IndexJobs
from .pages import CitationView, PageBox, highlights
from .security import HostGuard, TokenGuard, cross_site
from .uploads import UploadTooLargeError, forget_upload, receive_pdf

log = logging.getLogger(__name__)
HERE = Path(__file__).parent
NOT_FOUND = (DocumentNotFoundError, PageUnavailableError)
MAX_HIGHLIGHTS = 50  # cited items a viewer link may name
CROSS_SITE = ("this question was sent from another site, so it was not asked: read it, then press Ask to ask it "
              "here")


def create_app(settings: Settings | None = None, *, models: Models | None = None, use_llm: bool = True,
               upload_dir: Path | None = None, browser: str | None = None, token: str | None = None,
               allowed_hosts: Sequence[str] = ()) -> FastAPI:
    """The web app over one library. ``upload_dir``: where uploads go (default: ``settings.upload_dir``, this
    server's and database's own); ``browser``: Neo4j Browser's URL for the "Explore" links (default: the
    managed server's; none for a server of your own unless given); ``token``: required on every request;
    ``allowed_hosts``: host names it answers to besides loopback, the address a request arrived on and
    ``settings.serve.allowed_hosts`` (e.g. the name it listens on)."""
    settings = instance_settings(settings or Settings())
    models = models or Models.from_settings(settings)
    uploads = upload_dir or settings.upload_dir
    if browser is None and settings.neo4j.uri is None:
        browser = managed_browser(settings)[0]
    rag = BookRAG(settings, models=models, use_llm=use_llm)
    jobs = IndexJobs(settings, models, use_llm=use_llm, uploads=uploads)
    max_question = settings.retrieval.max_question_chars  # the CLI's limit (BOOKRAG_MAX_QUESTION_CHARS)
    talks = Conversations()  # the ask page's follow-ups

    @asynccontextmanager
    async def lifespan(_: FastAPI):  # noqa: ANN202
        yield
        jobs.close()
        await rag.aclose()

    app = FastAPI(title="bookrag-neo4j", lifespan=lifespan, docs_url="/docs", redoc_url=None,
                  openapi_url="/openapi.json", description="The library's JSON API (`/api/`) beside its pages.")
    app.state.uploads = uploads
    app.state.serve = settings.serve  # the header and body deadlines (serving.server_config)
    app.add_middleware(TokenGuard, token=token)
    app.add_middleware(HostGuard, allowed=[*settings.serve.allowed_hosts, *allowed_hosts])  # the outermost
    app.mount("/static", StaticFiles(directory=HERE / "static"), name="static")
    templates = Jinja2Templates(directory=HERE / "templates")

    def page(request: Request, name: str, status: int = 200, **context: Any) -> HTMLResponse:
        return templates.TemplateResponse(request, name, {"browser": browser, **context}, status_code=status)

    def message(request: Request, text: str, status: int) -> Response:
        if request.url.path.startswith("/api/"):  # the JSON API answers in JSON
            return JSONResponse({"error": stored_text(text)}, status_code=status)
        return page(request, "message.html", status, text=stored_text(text), code=status)  # no surrogates

    async def reach() -> None:
        """Neo4j reached once, without the driver's 30 s of retries (a dependency of every page that reads it)."""
        await (await rag.aclient()).reach()

    neo4j = [Depends(reach)]

    async def documents() -> list[tuple[Document, int]]:
        rows = await (await rag.aclient()).read("library/listing")
        return [(Document.model_validate(r["document"]), r["sections"]) for r in rows]

    async def library_page(request: Request, status: int = 200, error: str | None = None) -> HTMLResponse:
        return page(request, "library.html", status, docs=await documents(), jobs=jobs.all(), error=error,
                    max_mb=settings.serve.max_upload_mb)

    @app.exception_handler(BookRAGError)
    async def _bookrag_error(request: Request, exc: BookRAGError) -> Response:
        return message(request, str(exc), 404 if isinstance(exc, NOT_FOUND) else 400)

    @app.exception_handler(Neo4jUnavailableError)
    async def _neo4j_down(request: Request, exc: Neo4jUnavailableError) -> Response:
        log.warning("%s %s: %s", request.method, request.url.path, exc)
        return message(request, _unavailable(exc, settings), 503)

    @app.exception_handler(ClientDisconnect)
    async def _gone(request: Request, _: ClientDisconnect) -> Response:
        client = f"{request.client.host}:{request.client.port}" if request.client else "a client"
        log.info("%s went away before its %s %s was complete", client, request.method, request.url.path)
        return Response(status_code=400)  # to no one: the connection is gone

    @app.exception_handler(HTTPException)
    async def _http_error(request: Request, exc: HTTPException) -> Response:
        return message(request, str(exc.detail), exc.status_code)

    @app.exception_handler(RequestValidationError)
    async def _bad_request(request: Request, exc: RequestValidationError) -> Response:
        fields = ", ".join(".".join(map(str, e["loc"][1:])) or "request" for e in exc.errors())
        return message(request, f"the request is missing or has a wrong value: {fields}", 400)

    @app.exception_handler(Exception)
    async def _server_error(request: Request, exc: Exception) -> Response:
        log.exception("%s %s failed", request.method, request.url.path)
        return message(request, f"the server failed ({type(exc).__name__}); its log has the details", 500)

    @app.get("/", response_class=HTMLResponse, dependencies=neo4j)
    async def library(request: Request) -> HTMLResponse:
        return await library_page(request)

    @app.post("/upload", response_class=HTMLResponse, dependencies=neo4j)  # Neo4j down: 503 before the body
    async def upload(request: Request) -> Response:  # the body is read here, as it streams in (not by FastAPI)
        try:
            path, name = await receive_pdf(request, uploads, settings.serve.max_upload_mb)
        except DocumentError as exc:
            status = 413 if isinstance(exc, UploadTooLargeError) else 400
            return await library_page(request, status, error=stored_text(str(exc)))
        job = jobs.submit(path, name=name)
        return RedirectResponse(f"/?job={job.id}", status_code=303)

    app.include_router(api_router(rag, jobs, uploads, settings.serve.max_upload_mb, reach, _job_json))

    @app.post("/documents/{key}/delete", dependencies=neo4j)
    async def delete(key: str) -> RedirectResponse:
        found = await rag.adocument(key)
        await rag.adelete(found.key)
        forget_upload(local_path(found.path), uploads)
        return RedirectResponse("/", status_code=303)

    @app.get("/documents/{key}", response_class=HTMLResponse, dependencies=neo4j)
    async def document(request: Request, key: str) -> HTMLResponse:
        found = await rag.adocument(key)
        toc = _nest([entry.model_dump() for entry in await rag.atoc(found.key)])
        link = browser_url(browser, "toc", {"doc": found.name}) if browser else None
        return page(request, "document.html", doc=found, toc=toc, toc_link=link)

    @app.get("/documents/{key}/view", response_class=HTMLResponse, dependencies=neo4j)
    async def viewer(request: Request, key: str, page_number: Annotated[int, Query(alias="page", ge=1)] = 1,
                     hl: str = "", at: Annotated[int, Query(ge=0)] = 0) -> HTMLResponse:
        """The whole PDF page by page, with the cited items' boxes (``hl``: their node keys, comma-separated, in
        the answer's order; ``at``: the one to show first) and next and previous highlight."""
        found = await rag.adocument(key)
        keys = [k for k in hl.split(",") if k][:MAX_HIGHLIGHTS]
        boxes = await _boxes(rag, keys)
        marks = await asyncio.to_thread(highlights, local_path(found.path), [boxes.get(k, []) for k in keys])
        start = next((m.page for m in marks if m.item == at), page_number)
        return page(request, "viewer.html", doc=found, start=min(start, found.pages or start), at=at,
                    marks=[{"item": m.item, "page": m.page, **vars(m.box)} for m in marks])

    @app.get("/documents/{key}/pages/{number}.png", dependencies=neo4j)
    async def page_image(key: str, number: int, scale: Annotated[float, Query(gt=0, le=3)] = 1.0) -> Response:
        found = await rag.adocument(key)
        png = await asyncio.to_thread(render_page, local_path(found.path), number, scale=scale)  # off the event loop
        return Response(png, media_type="image/png", headers={"Cache-Control": "private, max-age=3600"})

    @app.get("/ask", response_class=HTMLResponse, dependencies=neo4j)
    async def ask(request: Request, question: str = "", doc: Annotated[list[str] | None, Query()] = None,
                  method: str = "bookrag", top_k: Annotated[int | None, Query(ge=1, le=100)] = None,
                  conversation: str = "", turn: Annotated[int, Query(ge=0)] = 0) -> HTMLResponse:
        """A question, or a follow-up in a conversation (``conversation``: its id; ``turn``: how many of its
        turns the page showed, which the follow-up is read with)."""
        docs = await documents()
        earlier = talks.turns(conversation)[:turn]
        context: dict[str, Any] = {
            "docs": docs, "methods": list(METHODS.values()), "question": question, "chosen": doc or [],
            "method": method, "max_question": max_question, "conversation": conversation,
            "earlier": earlier, "turn": len(earlier), "names": {d.key: d.name for d, _ in docs}}
        if "question" not in request.query_params:
            return page(request, "ask.html", **context)
        if cross_site(request):  # another site's page had the browser ask: shown, not asked
            return page(request, "ask.html", 403, error=CROSS_SITE, **context)
        error = _check_question(question, method, max_question)
        if error:
            return page(request, "ask.html", 400, error=error, **context)
        answer = await rag.aask(question.strip(), doc or None, method=method, top_k=top_k, history=earlier)
        conversation = talks.known(conversation)
        context.update(conversation=conversation, turn=talks.record(conversation, len(earlier), answer.turn()),
                       question="")
        paths = {d.key: local_path(d.path) for d, _ in docs}
        boxes = await _boxes(rag, [c.node_key for c in answer.citations])
        citations = await asyncio.to_thread(_citations, answer, paths, boxes)  # reads PDFs: off the event loop
        link = None
        if browser and answer.evidence:
            link = answer_url(browser, answer.model_dump(mode="json"))
        groups = [(s.document, [citations[n - 1] for n in s.numbers]) for s in by_document(citations)]
        return page(request, "ask.html", answer=answer, citations=groups, graph_link=link, **context)

    @app.get("/healthz")
    async def health() -> JSONResponse:
        try:
            await reach()
        except Neo4jUnavailableError as exc:
            return JSONResponse({"ok": False, "neo4j": f"down: {exc}"}, status_code=503)
        return JSONResponse({"ok": True, "neo4j": "up"})

    return app


def _check_question(question: str, method: str, limit: int) -> str | None:
    if not question.strip():
        return "write a question first"
    if len(question) > limit:
        return (f"the question is {len(question):,} characters long; ask in at most {limit:,} "
                "(BOOKRAG_MAX_QUESTION_CHARS)")
    if method_name(method) not in METHODS:
        return f"no method {method!r}: choose one of {', '.join(METHODS)}"
    return None


def _unavailable(exc: Neo4jUnavailableError, settings: Settings) -> str:
    """The 503 page's message: Neo4j's error (it says how to start it), with the managed instance's name."""
    text = f"Neo4j is unavailable, so the library cannot be read now: {exc}"
    if settings.neo4j.uri is None and settings.neo4j.instance != "default":
        text += f" (this server: `bookrag neo4j start --instance {settings.neo4j.instance}`)"
    return text


def _citations(answer: Answer, paths: dict[str, Path], boxes: dict[str, list[PageBox]]) -> list[CitationView]:
    texts = {n.key: n.text for n in answer.evidence}
    return [CitationView.of(c, pdf=paths.get(c.doc_key), boxes=boxes.get(c.node_key, []),
                            text=texts.get(c.node_key, "")) for c in answer.citations]


async def _boxes(rag: BookRAG, keys: list[str]) -> dict[str, list[PageBox]]:
    rows = await (await rag.aclient()).read("library/evidence_boxes", keys=list(dict.fromkeys(keys)))
    return {r["key"]: [PageBox(b["page"], tuple(b["bbox"])) for b in r["boxes"] if b["page"] and b["bbox"]]
            for r in rows}


def _nest(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """ToC rows (title, level, page in reading order) as a tree: each entry with its ``children``."""
    root: dict[str, Any] = {"level": 0, "children": []}
    stack = [root]
    for row in rows:
        entry = {**row, "children": []}
        while len(stack) > 1 and stack[-1]["level"] >= row["level"]:
            stack.pop()
        stack[-1]["children"].append(entry)
        stack.append(entry)
    return root["children"]


def _job_json(job) -> dict[str, Any]:  # noqa: ANN001 - an IndexJob
    return {"id": job.id, "name": job.name, "state": job.state.value, "doc_key": job.doc_key, "error": job.error,
            "note": job.note, "seconds": job.seconds, "stages": [vars(s) for s in job.stages]}
