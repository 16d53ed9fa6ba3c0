"""The web app's defences that need no server: which Host headers it answers, upload names as kept on disk, the
pixel budget of a page render, the upload folder of each server and database, the header and body deadlines
``bookrag serve`` runs with, and which questions came from another site."""

from __future__ import annotations

import struct
from pathlib import Path
from types import SimpleNamespace

import pymupdf
import pytest
from starlette.requests import Request

from bookrag_neo4j.config import Settings
from bookrag_neo4j.library.page_images import MAX_PIXELS, fit_scale, render_page
from bookrag_neo4j.web.security import HostGuard, cross_site, host_name
from bookrag_neo4j.web.serving import DeadlineProtocol, server_config
from bookrag_neo4j.web.uploads import MAX_NAME_BYTES, display_name, shortened_name

GUARD = HostGuard(app=None, allowed=["books.example:8443", "0.0.0.0", "Library.Example."])


@pytest.mark.parametrize("host", ["localhost", "localhost:8000", "LOCALHOST.:8000", "127.0.0.1:18777", "127.9.8.7",
                                  "[::1]:8000", "[::1]", "books.example", "books.example:80", "library.example:1"])
def test_loopback_and_allowed_hosts_are_answered(host: str) -> None:
    assert GUARD.allows(host)


@pytest.mark.parametrize("host", [None, "", "evil.example:18777", "127.0.0.1.evil.example", "0.0.0.0:8000",
                                  "[::2]:8000", "[::1", "evil.example@127.0.0.1", "localhost:80:80", "a b",
                                  "192.168.1.20:8000", "books.example.evil"])
def test_other_hosts_are_refused(host: str | None) -> None:
    assert not GUARD.allows(host)


def test_the_address_a_request_arrived_on_is_answered() -> None:
    assert GUARD.allows("192.168.1.20:8000", local="192.168.1.20")
    assert GUARD.allows("[fe80::1]:8000", local="fe80::1")
    assert GUARD.allows("192.168.1.20:8000", local="::ffff:192.168.1.20")  # a dual-stack socket's IPv4 client
    assert not GUARD.allows("evil.example:8000", local="192.168.1.20")


def test_allowed_hosts_are_a_setting(monkeypatch) -> None:
    monkeypatch.setenv("BOOKRAG_SERVE_ALLOWED_HOSTS", '["books.example", "10.0.0.7"]')
    assert Settings().serve.allowed_hosts == ["books.example", "10.0.0.7"]


def test_host_names_are_parsed() -> None:
    assert host_name("[::1]:8000") == "::1" and host_name("Books.Example.:443") == "books.example"
    assert host_name("evil.example/x") is None and host_name("") is None


def test_a_long_name_is_shortened_keeping_its_extension() -> None:
    for name in ("a" * 296 + ".pdf", "ä" * 296 + ".PDF", "€" * 80 + ".pdf"):
        kept = shortened_name(name)
        assert len(kept.encode()) <= MAX_NAME_BYTES and kept.endswith(name[-4:]), name
        assert kept[:-5] == name[:len(kept) - 5] and kept[-5] == "…"
    assert shortened_name("report.pdf") == "report.pdf" and shortened_name("é" * 98 + ".pdf") == "é" * 98 + ".pdf"


def test_a_display_name_has_no_folder_or_control_characters() -> None:
    assert display_name("C:\\Users\\ada\\report.pdf") == "report.pdf"
    assert display_name("../../etc/passwd.pdf") == "passwd.pdf" and display_name("a\nb\x00.pdf") == "a_b_.pdf"


def test_the_scale_fits_the_pixel_budget() -> None:
    assert fit_scale(612, 792, 2.0) == 2.0 and fit_scale(612, 792, 9.0) == 3.0 and fit_scale(612, 792, 0) == 0.2
    for width, height, scale in ((14_400, 14_400, 1.2), (14_400, 14_400, 0.2), (14_400, 200, 3.0)):
        fitted = fit_scale(width, height, scale)
        assert 0 < fitted < scale and width * height * fitted**2 <= MAX_PIXELS * 1.0001


def test_a_huge_page_renders_within_the_budget(tmp_path: Path) -> None:
    pdf = tmp_path / "poster.pdf"
    doc = pymupdf.open()
    doc.new_page(width=14_400, height=14_400).insert_text((72, 7200), "a poster", fontsize=400)
    doc.save(pdf)
    png = render_page(pdf, 1, scale=2.0)
    width, height = struct.unpack(">II", png[16:24])
    assert 0.99 * MAX_PIXELS <= width * height <= 1.001 * MAX_PIXELS


def test_uploads_are_kept_per_server_and_database(tmp_path: Path) -> None:
    one = Settings(data_dir=tmp_path, neo4j_uri=None, neo4j_instance="one", neo4j_database="neo4j")
    two = one.replace(neo4j_instance="two")
    own = one.replace(neo4j_uri="neo4j+s://db.example")
    other_db = own.replace(neo4j_database="books")
    folders = {s.upload_dir for s in (one, two, own, other_db)}
    assert len(folders) == 4 and all(f.is_relative_to(tmp_path / "uploads") for f in folders)
    assert one.upload_dir == tmp_path / "uploads" / "instance-one" / "neo4j"
    assert one.image_dir == tmp_path / "images" / "instance-one" / "neo4j"  # the images' folders, the same way
    assert own.upload_dir.relative_to(tmp_path / "uploads") == own.image_dir.relative_to(tmp_path / "images")


def test_the_deadlines_are_settings_that_bookrag_serve_uses(monkeypatch) -> None:
    monkeypatch.setenv("BOOKRAG_SERVE_HEADER_TIMEOUT", "3.5")
    monkeypatch.setenv("BOOKRAG_SERVE_BODY_TIMEOUT", "42")
    serve = Settings().serve
    assert (serve.header_timeout, serve.body_timeout) == (3.5, 42.0)
    app = SimpleNamespace(state=SimpleNamespace(serve=serve))  # what create_app sets
    protocol = server_config(app, host="127.0.0.1", port=8000).http
    assert issubclass(protocol, DeadlineProtocol) and (protocol.header_timeout, protocol.body_timeout) == (3.5, 42.0)
    default = server_config(SimpleNamespace(), host="127.0.0.1", port=8000).http
    assert (default.header_timeout, default.body_timeout) == (10.0, 300.0)


def request_with(headers: dict[str, str]) -> Request:
    raw = [(k.lower().encode(), v.encode()) for k, v in {"host": "127.0.0.1:8000", **headers}.items()]
    return Request({"type": "http", "method": "GET", "path": "/ask", "query_string": b"question=why", "headers": raw})


@pytest.mark.parametrize(("headers", "foreign"), [
    ({}, False), ({"Sec-Fetch-Site": "same-origin"}, False), ({"Sec-Fetch-Site": "none"}, False),
    ({"Origin": "http://127.0.0.1:8000", "Sec-Fetch-Site": "same-origin"}, False),
    ({"Sec-Fetch-Site": "cross-site"}, True), ({"Sec-Fetch-Site": "same-site"}, True),
    ({"Origin": "http://evil.example"}, True), ({"Origin": "null"}, True), ({"Origin": "http://127.0.0.1:3000"}, True),
])
def test_a_question_from_another_site_is_told_apart(headers: dict[str, str], foreign: bool) -> None:
    assert cross_site(request_with(headers)) is foreign
