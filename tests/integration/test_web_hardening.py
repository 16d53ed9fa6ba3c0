"""The web app (``bookrag serve``) against what a hostile page or a careless upload can send: a DNS-rebinding
page (a foreign Host), uploads over the limit (refused while they stream, nothing kept), upload errors naming the
person's file, a 300-character file name, a page too large to render at the asked scale, uploads kept per server
and database, a partial document shown as ``partial`` and a failed one as ``failed`` with its reason."""

from __future__ import annotations

import contextlib
import html
import os
import re
import shutil
import socket
import struct
import threading
import time
from pathlib import Path
from urllib.parse import urlsplit

import httpx
import pymupdf
import pytest

from bookrag_neo4j.keys import file_key
from bookrag_neo4j.library.catalogue import delete_document
from bookrag_neo4j.library.page_images import MAX_PIXELS
from bookrag_neo4j.web import create_app
from bookrag_neo4j.web.uploads import MAX_NAME_BYTES

from ..helpers.pdfs import tiny_pdf
from ..helpers.timeouts import LONG_TEST
from ..helpers.webapp import add_document, serving, wait_for_job

ALLOWED = "books.example"


@pytest.fixture
def open_web(settings, offline_models, schema, tmp_path: Path):
    """The app served LLM-free without a token (loopback), uploads up to 1 MiB in a temporary folder, and one
    more host name allowed."""
    app = create_app(settings.replace(serve_max_upload_mb=1, serve_allowed_hosts=[ALLOWED]),
                     models=offline_models, use_llm=False, upload_dir=tmp_path / "uploads")
    with serving(app) as base:
        yield base, tmp_path / "uploads"


async def exists(db, key: str) -> bool:
    return bool(await db.run("MATCH (d:Document {key: $key}) RETURN d.key AS k", {"key": key}, read=True))


def upload_error(reply: httpx.Response) -> str:
    """The library page's upload message, as the person reads it."""
    match = re.search(r'id="upload-error">(.*?)</div>', reply.text, re.S)
    assert match, reply.text[:500]
    return html.unescape(match[1])


def files_under(folder: Path) -> list[Path]:
    return sorted(folder.rglob("*")) if folder.exists() else []


async def test_a_foreign_host_is_refused_before_any_handler(open_web, db) -> None:
    base, _ = open_web
    port = urlsplit(base).port
    await add_document(db, "test-web-rebind")
    rebound = httpx.post(f"{base}/documents/test-web-rebind/delete",  # a DNS-rebinding page's same-origin form
                         headers={"Host": f"evil.example:{port}", "Origin": f"http://evil.example:{port}"})
    assert rebound.status_code == 400 and "evil.example" in rebound.text
    assert await exists(db, "test-web-rebind")
    assert httpx.get(base + "/", headers={"Host": f"evil.example:{port}"}).status_code == 400
    assert httpx.get(base + "/healthz", headers={"Host": "127.0.0.1.evil.example"}).status_code == 400
    for host in (f"localhost:{port}", f"127.0.0.2:{port}", f"[::1]:{port}", "LOCALHOST", f"{ALLOWED}:{port}"):
        assert httpx.get(base + "/", headers={"Host": host}).status_code == 200, host
    own = httpx.post(f"{base}/documents/test-web-rebind/delete", headers={"Origin": base})
    assert own.status_code == 303 and not await exists(db, "test-web-rebind")


def read_reply_head(sock: socket.socket) -> bytes:
    reply = b""
    while b"\r\n\r\n" not in reply and (chunk := sock.recv(65536)):
        reply += chunk
    return reply


def test_an_upload_over_the_limit_is_refused_while_it_streams(open_web) -> None:
    base, uploads = open_web
    address = (urlsplit(base).hostname, urlsplit(base).port)
    part = (b"--B\r\nContent-Disposition: form-data; name=\"pdf\"; filename=\"big.pdf\"\r\n"
            b"Content-Type: application/pdf\r\n\r\n%PDF-1.7\n")
    head = "POST /upload HTTP/1.1\r\nHost: {}:{}\r\nContent-Type: multipart/form-data; boundary=B\r\n".format(*address)
    with socket.create_connection(address, timeout=20) as sock:  # declares 300 MB: refused before the body
        sock.sendall(f"{head}Content-Length: {300 << 20}\r\n\r\n".encode() + part)
        assert read_reply_head(sock).startswith(b"HTTP/1.1 413")
    with socket.create_connection(address, timeout=20) as sock:  # chunked, never ends: refused past 1 MiB
        sock.sendall(f"{head}Transfer-Encoding: chunked\r\n\r\n".encode() + b"%x\r\n%s\r\n" % (len(part), part))
        block = b"0" * (64 << 10)
        sent = 0
        while sent < (1 << 20) + (256 << 10):  # a little over the limit: the server must answer without the rest
            sock.sendall(b"%x\r\n%s\r\n" % (len(block), block))
            sent += len(block)
        reply = read_reply_head(sock)
        assert reply.startswith(b"HTTP/1.1 413"), reply[:200]
    assert files_under(uploads) == []
    assert httpx.get(base + "/healthz").status_code == 200


def test_upload_errors_name_the_file_as_sent(open_web) -> None:
    base, uploads = open_web
    for name, data in {"report.pdf": os.urandom(5000), "scan.pdf": b"%PDF-1.7\n" + os.urandom(5000),
                       "huge.pdf": b"%PDF-1.7\n" + b"0" * ((1 << 20) + 1000)}.items():
        reply = httpx.post(base + "/upload", files={"pdf": (name, data, "application/pdf")})
        message = upload_error(reply)
        assert reply.status_code in (400, 413) and name in message, message
        assert ".part" not in message and "\n" not in message, message
    assert files_under(uploads) == []


def index_upload(base: str, name: str, pdf: Path) -> dict:
    """Upload ``pdf`` as ``name``; its indexing job, done."""
    reply = httpx.post(base + "/upload", files={"pdf": (name, pdf.read_bytes(), "application/pdf")})
    assert reply.status_code == 303, reply.text[:500]
    job = wait_for_job(base, reply.headers["location"].split("job=")[1])
    assert job["state"] == "done", job["error"]
    return job


@pytest.mark.timeout(LONG_TEST)
async def test_a_300_character_file_name_is_kept_shortened(open_web, db, tmp_path: Path) -> None:
    base, uploads = open_web
    pdf = tiny_pdf(tmp_path / "long.pdf", "Quillon Works", "Ida Marsh", "Peru", "lanterns")
    name = "ä" * 150 + "x" * 146 + ".pdf"  # 300 characters, 450 bytes
    try:
        job = index_upload(base, name, pdf)
        assert job["name"] == name  # the page shows the name as sent
        (stored,) = [p for p in files_under(uploads) if p.is_file()]
        assert stored.name.endswith(".pdf") and len(stored.name.encode()) <= MAX_NAME_BYTES
        assert stored.name.startswith("ä" * 60) and stored.read_bytes() == pdf.read_bytes()
    finally:
        await delete_document(db, file_key(pdf))


@pytest.mark.timeout(LONG_TEST)
async def test_uploads_are_kept_per_server_and_database(settings, offline_models, schema, db,
                                                        tmp_path: Path) -> None:
    other = settings.replace(neo4j_instance=f"{settings.neo4j.instance}-other")
    mine = create_app(settings, models=offline_models, use_llm=False)
    theirs = create_app(other, models=offline_models, use_llm=False)  # another instance's app: never served
    assert mine.state.uploads == settings.upload_dir and theirs.state.uploads == other.upload_dir
    assert mine.state.uploads != theirs.state.uploads
    pdf = tiny_pdf(tmp_path / "shared.pdf", "Orrin Mills", "Bea Stone", "Chile", "kettles")
    try:
        with serving(mine) as base:
            job = index_upload(base, "shared.pdf", pdf)
            path = Path((await db.run("MATCH (d:Document {key: $k}) RETURN d.path AS p", {"k": job["doc_key"]},
                                         read=True))[0]["p"])
            assert path.is_relative_to(mine.state.uploads)
            copy = theirs.state.uploads / path.relative_to(mine.state.uploads)  # the same PDF uploaded there
            copy.parent.mkdir(parents=True)
            shutil.copy(path, copy)
            assert httpx.post(f"{base}/documents/{job['doc_key']}/delete", headers={"Origin": base}).status_code == 303
            assert not path.exists() and copy.read_bytes() == pdf.read_bytes()
    finally:
        await delete_document(db, file_key(pdf))
        shutil.rmtree(theirs.state.uploads, ignore_errors=True)
        with contextlib.suppress(OSError):
            theirs.state.uploads.parent.rmdir()


def png_size(png: bytes) -> tuple[int, int]:
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    return struct.unpack(">II", png[16:24])


async def test_a_huge_page_renders_within_the_pixel_budget(open_web, db, tmp_path: Path) -> None:
    base, _ = open_web
    pdf = tmp_path / "poster.pdf"
    doc = pymupdf.open()
    doc.new_page(width=14_400, height=14_400).insert_text((72, 7200), "a poster", fontsize=400)
    doc.save(pdf)
    await add_document(db, "test-web-huge", path=str(pdf), pages=1)
    healthy: list[float] = []

    def probe() -> None:  # /healthz answers while pages render
        while not done.is_set():
            began = time.perf_counter()
            httpx.get(base + "/healthz", timeout=30).raise_for_status()
            healthy.append(time.perf_counter() - began)
            time.sleep(0.05)

    done = threading.Event()
    prober = threading.Thread(target=probe)
    prober.start()
    try:
        for scale in (1.0, 1.2, 2.0, 3.0):
            reply = httpx.get(f"{base}/documents/test-web-huge/pages/1.png", params={"scale": scale}, timeout=60)
            assert reply.status_code == 200, (scale, reply.text[:300])
            width, height = png_size(reply.content)
            assert width * height <= MAX_PIXELS * 1.001 and width > 1000, (scale, width, height)
    finally:
        done.set()
        prober.join()
    assert healthy and max(healthy) < 2.0, healthy


async def test_a_partial_document_shows_partial_and_a_failed_one_its_reason(open_web, db) -> None:
    base, _ = open_web
    await add_document(db, "test-web-partial", g2_status="building")  # its content graph build not done
    await add_document(db, "test-web-complete", g2_status="complete")
    await add_document(db, "test-web-failed", g2_status="building", error="ValueError: the content graph broke")
    page = httpx.get(base + "/").text
    status = dict(re.findall(r'<tr data-key="(test-web-[a-z]+)">.*?<td class="status">(\w+)', page, re.S))
    assert status == {"test-web-partial": "partial", "test-web-complete": "complete", "test-web-failed": "failed"}
    assert "ValueError: the content graph broke" in page
