"""The web app (``bookrag serve``) when things go wrong around it: an answer's warnings on the ask page, a file
named with bytes that are not UTF-8, a failed upload (nothing kept), a duplicate upload (named for what it is),
a question sent from another site (not run), the CLI's question limit, and Neo4j gone under a running app
(``/healthz`` says so; every page answers 503 in about a second instead of 400 after the driver's 30 s)."""

from __future__ import annotations

import html
import os
import re
import time
from pathlib import Path

import httpx
import pymupdf
import pytest

from bookrag_neo4j.keys import file_key, stored_name, stored_path
from bookrag_neo4j.library.catalogue import delete_document
from bookrag_neo4j.web import create_app

from ..helpers.mcp_stdio import Relay, closed_port
from ..helpers.partial import INCOMPLETE, interrupted_graph_document
from ..helpers.pdfs import tiny_pdf
from ..helpers.timeouts import LONG_TEST
from ..helpers.webapp import add_document, serving, wait_for_job

QUESTION = "Who leads Acme Interrupted?"


@pytest.fixture
def web(settings, offline_models, schema, tmp_path: Path):
    """The app served LLM-free without a token (loopback), its uploads in a temporary folder."""
    app = create_app(settings, models=offline_models, use_llm=False, upload_dir=tmp_path / "uploads")
    with serving(app) as base:
        yield base, tmp_path / "uploads"


def upload(base: str, name: str, data: bytes) -> dict:
    """Upload ``data`` as ``name``; its indexing job, once done or failed."""
    reply = httpx.post(base + "/upload", files={"pdf": (name, data, "application/pdf")})
    assert reply.status_code == 303, reply.text[:500]
    return wait_for_job(base, reply.headers["location"].split("job=")[1])


def files_under(folder: Path) -> list[Path]:
    return sorted(p for p in folder.rglob("*") if p.is_file()) if folder.exists() else []


@pytest.mark.timeout(LONG_TEST)
async def test_the_ask_page_shows_the_answers_warnings(web, conn, settings, offline_models, tmp_path: Path) -> None:
    base, _ = web
    async with interrupted_graph_document(conn, settings, offline_models, tmp_path) as (key, name):
        reply = httpx.get(base + "/ask", params={"question": QUESTION, "doc": key, "method": "bm25"}, timeout=120)
        assert reply.status_code == 200 and 'id="answer"' in reply.text, reply.text[:500]
        block = re.search(r'<ul class="warnings"[^>]*>(.*?)</ul>', reply.text, re.S)
        assert block, "the answer's warnings are not on the page"
        shown = html.unescape(re.sub(r"<[^>]+>", "", block[1]))
        assert INCOMPLETE in shown and name in shown, shown


async def test_a_page_of_a_file_named_in_bytes_that_are_not_utf8_fails_cleanly(web, db, tmp_path: Path) -> None:
    base, _ = web
    raw = os.fsencode(tmp_path) + b"/bad\xff\xfename.pdf"
    os.rename(tiny_pdf(tmp_path / "plain.pdf", "Quill Co", "Ada Marsh", "Peru", "pens"), raw)
    pdf = Path(os.fsdecode(raw))
    await add_document(db, "test-web-raw-name", path=stored_path(pdf), name=stored_name(pdf), pages=3)
    page = f"{base}/documents/test-web-raw-name/pages"
    assert httpx.get(f"{page}/1.png").content[:4] == b"\x89PNG"  # the file is found under its raw name
    missing_page = httpx.get(f"{page}/99.png")
    os.rename(raw, tmp_path / "moved.pdf")
    moved = httpx.get(f"{page}/1.png")
    for reply, says in ((missing_page, "has no page 99"), (moved, "no longer where it was indexed from")):
        text = html.unescape(reply.text)
        assert reply.status_code in (400, 404), (reply.status_code, text[-400:])
        assert says in text and "bad\\xff\\xfename.pdf" in text and "\udcff" not in text, text[-400:]


@pytest.mark.timeout(LONG_TEST)
async def test_a_failed_upload_leaves_no_file_unless_a_document_uses_it(web, db, tmp_path: Path) -> None:
    base, uploads = web
    blank = pymupdf.open()
    blank.new_page()
    data = blank.tobytes()  # a page without text: the upload is a PDF, its indexing fails
    job = upload(base, "blank.pdf", data)
    assert job["state"] == "failed" and "no text" in job["error"], job
    assert files_under(uploads) == []
    # the same upload where a document names that very file (indexed from it before): the file stays
    blank_copy = tmp_path / "blank.pdf"
    blank_copy.write_bytes(data)
    kept = uploads / file_key(blank_copy)[:16] / "blank.pdf"  # where the upload lands: <uploads>/<hash>/<name>
    await add_document(db, "test-web-uses-upload", path=stored_path(kept))
    job = upload(base, "blank.pdf", data)
    assert job["state"] == "failed", job
    assert files_under(uploads) == [kept.absolute()]


@pytest.mark.timeout(LONG_TEST)
async def test_an_upload_already_indexed_says_under_which_name(web, db, tmp_path: Path) -> None:
    base, uploads = web
    pdf = tiny_pdf(tmp_path / "first.pdf", "Orrin Mills", "Bea Stone", "Chile", "kettles")
    try:
        first = upload(base, "FIRST.pdf", pdf.read_bytes())
        assert first["state"] == "done" and not first["note"], first
        second = upload(base, "SECOND.pdf", pdf.read_bytes())
        assert second["state"] == "done" and second["doc_key"] == first["doc_key"], second
        assert second["note"] == "already indexed as FIRST.pdf", second
        assert "already indexed as FIRST.pdf" in html.unescape(httpx.get(base + "/").text)
        assert [p.name for p in files_under(uploads)] == ["FIRST.pdf"]  # the duplicate is not kept
    finally:
        await delete_document(db, file_key(pdf))


def answer_shown(reply: httpx.Response) -> bool:
    return 'id="answer"' in reply.text


@pytest.mark.timeout(LONG_TEST)
async def test_a_question_sent_from_another_site_is_not_run(web, conn, settings, offline_models,
                                                             tmp_path: Path) -> None:
    base, _ = web
    async with interrupted_graph_document(conn, settings, offline_models, tmp_path) as (key, _):
        params = {"question": QUESTION, "doc": key, "method": "bm25"}
        for headers in ({"Origin": "http://evil.example"}, {"Sec-Fetch-Site": "cross-site"},
                        {"Sec-Fetch-Site": "same-site"}, {"Origin": "null"}):
            refused = httpx.get(base + "/ask", params=params, headers=headers, timeout=120)
            assert refused.status_code == 403 and not answer_shown(refused), (headers, refused.text[-500:])
            assert "another site" in refused.text and html.escape(QUESTION, quote=False) in refused.text, headers
        for headers in ({}, {"Sec-Fetch-Site": "same-origin", "Origin": base}, {"Sec-Fetch-Site": "none"}):
            asked = httpx.get(base + "/ask", params=params, headers=headers, timeout=120)
            assert asked.status_code == 200 and answer_shown(asked), (headers, asked.text[-500:])
        form = httpx.get(base + "/ask", headers={"Sec-Fetch-Site": "cross-site"})  # a link to the empty form
        assert form.status_code == 200


@pytest.mark.timeout(LONG_TEST)
async def test_questions_as_long_as_the_cli_takes_are_asked(settings, offline_models, schema, conn,
                                                            tmp_path: Path) -> None:
    limit = settings.retrieval.max_question_chars
    assert limit == 4000
    app = create_app(settings, models=offline_models, use_llm=False, upload_dir=tmp_path / "uploads")
    short = create_app(settings.replace(max_question_chars=50), models=offline_models, use_llm=False,
                       upload_dir=tmp_path / "uploads")
    async with interrupted_graph_document(conn, settings, offline_models, tmp_path) as (key, _):
        with serving(app) as base:
            long = ("Who leads Acme Interrupted and ships turbines? " * 80)[:3000]
            asked = httpx.get(base + "/ask", params={"question": long, "doc": key, "method": "bm25"}, timeout=120)
            assert asked.status_code == 200 and answer_shown(asked), asked.text[-500:]
            assert 'maxlength="4000"' in asked.text
            over = httpx.get(base + "/ask", params={"question": "x" * 4001, "doc": key, "method": "bm25"})
            assert over.status_code == 400 and "at most 4,000" in over.text
        with serving(short) as base:
            over = httpx.get(base + "/ask", params={"question": "x" * 51, "doc": key, "method": "bm25"})
            assert over.status_code == 400 and "at most 50" in over.text and 'maxlength="50"' in over.text


def timed_get(url: str) -> tuple[httpx.Response, float]:
    began = time.perf_counter()
    reply = httpx.get(url, timeout=10)  # the driver's retries took 30 s: 10 s fails the test without waiting them out
    return reply, time.perf_counter() - began


async def test_neo4j_gone_under_a_running_app_is_503_in_about_a_second(settings, offline_models, schema, conn,
                                                                       db, tmp_path: Path) -> None:
    """The app reaches Neo4j through a relay, answers, then the relay stops (as when the server went down)."""
    host, port = conn.uri.split("://")[1].rsplit(":", 1)
    relay = Relay(host, int(port))
    await add_document(db, "test-web-gone", path=str(tiny_pdf(tmp_path / "gone.pdf", "A", "B", "C", "d")), pages=3)
    through = settings.replace(neo4j_uri=f"bolt://127.0.0.1:{relay.port}", neo4j_username=conn.username,
                               neo4j_password=conn.password, neo4j_database=conn.database)
    app = create_app(through, models=offline_models, use_llm=False, upload_dir=tmp_path / "uploads")
    try:
        with serving(app) as base:
            assert httpx.get(base + "/").status_code == 200
            healthy = httpx.get(base + "/healthz")
            assert healthy.status_code == 200 and healthy.json() == {"ok": True, "neo4j": "up"}
            relay.close()
            for path in ("/", "/ask?question=why&method=bm25", "/documents/test-web-gone/pages/1.png",
                         "/documents/test-web-gone", "/ask", "/"):
                reply, seconds = timed_get(base + path)
                assert reply.status_code == 503, (path, reply.status_code, reply.text[-300:])
                text = html.unescape(reply.text)
                assert "Neo4j" in text and "bookrag neo4j start" in text and "Traceback" not in text, text[-300:]
                assert seconds < 3, f"{path}: {seconds:.1f} s"
            health, seconds = timed_get(base + "/healthz")
            assert health.status_code == 503 and seconds < 3, (health.status_code, seconds)
            assert health.json()["ok"] is False and health.json()["neo4j"].startswith("down: "), health.json()
    finally:
        relay.close()


def test_neo4j_never_up_is_503_too(settings, offline_models, tmp_path: Path) -> None:
    nowhere = settings.replace(neo4j_uri=f"bolt://127.0.0.1:{closed_port()}", neo4j_password="x")
    app = create_app(nowhere, models=offline_models, use_llm=False, upload_dir=tmp_path / "uploads")
    with serving(app) as base:
        for path in ("/", "/ask?question=why", "/healthz"):
            reply, seconds = timed_get(base + path)
            assert reply.status_code == 503 and seconds < 3, (path, reply.status_code, seconds)
