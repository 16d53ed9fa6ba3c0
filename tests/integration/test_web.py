"""The web app (``bookrag serve``) against the test server: the token on every request, bad uploads refused with
a message and nothing written, and, in headless Chromium, a person's path: upload R-data.pdf, watch it being
indexed, open its table of contents, ask, and see the answer with citations whose pages show the evidence boxed.
Set BOOKRAG_SCREENSHOTS=docs/web to keep the screenshots the README shows."""

from __future__ import annotations

import os
from pathlib import Path

import httpx
import pymupdf
import pytest

from bookrag_neo4j.index.pipeline import Indexer
from bookrag_neo4j.library.catalogue import delete_document
from bookrag_neo4j.web import create_app

from ..helpers.pdfs import R_DATA, need
from ..helpers.server import external
from ..helpers.timeouts import BROWSER_WAIT_MS, HANG, LONG_TEST
from ..helpers.webapp import serving


@pytest.fixture
def web(settings, offline_models, schema, tmp_path: Path):
    """The app served LLM-free on a free port, its uploads in a temporary folder, with token ``s3cret``."""
    app = create_app(settings.replace(serve_max_upload_mb=1), models=offline_models, use_llm=False,
                     upload_dir=tmp_path / "uploads", token="s3cret")
    with serving(app) as base:
        yield base, tmp_path / "uploads"


async def count_documents(db) -> int:
    return (await db.run("MATCH (d:Document) RETURN count(d) AS n", read=True))[0]["n"]


def test_every_request_needs_the_token(web) -> None:
    base, _ = web
    assert httpx.get(base + "/").status_code == 401
    assert httpx.get(base + "/?token=wrong").status_code == 401
    assert httpx.get(base + "/api/jobs", headers={"Authorization": "Bearer s3cret"}).status_code == 200
    with httpx.Client(base_url=base, follow_redirects=True) as browser:
        first = browser.get("/?token=s3cret")  # a browser's first visit: the token goes into a cookie
        assert first.status_code == 200 and "Library" in first.text and "token" not in str(first.url)
        assert browser.get("/ask").status_code == 200
        refused = browser.post("/documents/x/delete", headers={"Origin": "http://evil.example"})
        assert refused.status_code == 403


async def test_bad_uploads_get_a_message_and_write_nothing(web, db, tmp_path: Path) -> None:
    base, uploads = web
    before = await count_documents(db)
    encrypted = tmp_path / "secret.pdf"
    doc = pymupdf.open()
    doc.new_page().insert_text((72, 72), "confidential")
    doc.save(encrypted, encryption=pymupdf.PDF_ENCRYPT_AES_256, user_pw="pw", owner_pw="pw")
    cases = {
        "random.pdf": (os.urandom(5000), 400, "not a readable PDF"),
        "secret.pdf": (encrypted.read_bytes(), 400, "encrypted"),
        "notes.txt": (b"hello", 400, "not a .pdf file"),
        "huge.pdf": (b"%PDF-1.7\n" + b"0" * (1 << 21), 413, "larger than 1 MiB"),
        "empty.pdf": (b"", 400, "empty"),
    }
    auth = {"Authorization": "Bearer s3cret"}
    for name, (data, status, text) in cases.items():
        reply = httpx.post(base + "/upload", files={"pdf": (name, data, "application/pdf")}, headers=auth)
        assert reply.status_code == status, (name, reply.text[:300])
        assert text in reply.text and "Traceback" not in reply.text, name
    assert await count_documents(db) == before
    assert not uploads.exists() or not any(p.is_file() for p in uploads.rglob("*"))
    assert httpx.get(base + "/api/jobs", headers=auth).json() == []


def test_errors_are_messages(web) -> None:
    base, _ = web
    auth = {"Authorization": "Bearer s3cret"}
    missing = httpx.get(base + "/documents/no-such-document", headers=auth)
    assert missing.status_code == 404 and "no-such-document" in missing.text and "Traceback" not in missing.text
    empty = httpx.get(base + "/ask", params={"question": "  "}, headers=auth)
    assert empty.status_code == 400 and "write a question first" in empty.text
    long = httpx.get(base + "/ask", params={"question": "why " * 1001}, headers=auth)  # the CLI's limit: 4,000
    assert long.status_code == 400 and "at most 4,000" in long.text
    method = httpx.get(base + "/ask", params={"question": "why?", "method": "nope"}, headers=auth)
    assert method.status_code == 400 and "no method &#39;nope&#39;" in method.text
    page = httpx.get(base + "/documents/x/pages/abc.png", headers=auth)
    assert page.status_code in (400, 404) and "Traceback" not in page.text


async def test_the_json_api_asks_and_retrieves_with_the_mcp_results(web, db, settings, offline_models,
                                                                      tmp_path: Path) -> None:
    base, _ = web
    auth = {"Authorization": "Bearer s3cret"}
    api = httpx.Client(timeout=HANG)  # a question on a busy machine may take longer than httpx's 5 s
    pdf = tmp_path / "api-notes.pdf"
    doc = pymupdf.open()
    for text in ("The stores sold 4,200 books in 2017. Most customers came online.",
                 "The stores expect more customers in 2018. Prices stay the same."):
        doc.new_page().insert_text((72, 90), text, fontsize=11)
    doc.save(pdf)
    report = await Indexer(db, settings, offline_models, use_llm=False).index(pdf, knowledge_graph=False, layout=False)
    try:
        schema = api.get(base + "/openapi.json", headers=auth).json()
        assert {"/api/ask", "/api/retrieve", "/api/documents", "/api/upload", "/api/jobs"} <= set(schema["paths"])
        assert api.get(base + "/docs", headers=auth).status_code == 200
        assert api.get(base + "/openapi.json").status_code == 401  # the token, as on the pages
        listed = api.get(base + "/api/documents", headers=auth).json()["documents"]
        assert report.doc_key in {d["key"] for d in listed}
        body = {"question": "How many books did the stores sell?", "docs": pdf.name, "top_k": 1}
        asked = api.post(base + "/api/ask", json=body, headers=auth)
        assert asked.status_code == 200, asked.text
        answer = asked.json()
        assert answer["extractive"] and "4,200" in answer["answer"] and len(answer["evidence"]) == 1
        assert answer["citations"][0]["document"] == pdf.name and answer["citations"][0]["pages"]
        found = api.post(base + "/api/retrieve", json=body | {"method": "bm25"}, headers=auth).json()
        assert found["method"] == "bm25" and len(found["evidence"]) == 1 and found["pages"] == {pdf.name: [1]}
        # errors in JSON, one line each: a bad method, the CLI's question limit, an unknown field, another site
        bad = api.post(base + "/api/ask", json=body | {"method": "nope"}, headers=auth)
        assert bad.status_code == 400 and "no method 'nope'" in bad.json()["error"]
        long = api.post(base + "/api/ask", json=body | {"question": "why " * 1001}, headers=auth)
        assert long.status_code == 400 and "4,000" in long.json()["error"]
        extra = api.post(base + "/api/ask", json=body | {"k": 3}, headers=auth)
        assert extra.status_code == 400 and "k" in extra.json()["error"]
        evil = api.post(base + "/api/ask", json=body, headers=auth | {"Origin": "http://evil.example"})
        assert evil.status_code == 403 and "another site" in evil.json()["error"]
        assert api.get(base + "/api/documents").json()["error"].startswith("this bookrag server needs its token")
        junk = api.post(base + "/api/upload", files={"pdf": ("junk.pdf", b"not a pdf", "application/pdf")}, headers=auth)
        assert junk.status_code == 400 and "junk.pdf" in junk.json()["error"]
    finally:
        await delete_document(db, report.doc_key)


@pytest.mark.browser
@pytest.mark.slow
@pytest.mark.timeout(LONG_TEST)
@pytest.mark.skipif(external(), reason="the browser path is checked on the managed server")
async def test_upload_index_and_ask_in_chromium(settings, offline_models, schema, db, tmp_path: Path) -> None:
    from playwright.async_api import async_playwright

    from bookrag_neo4j.keys import file_key

    from ..helpers.browser import CHROMIUM_FLAGS, chromium_path

    pdf = need(R_DATA)
    await delete_document(db, file_key(pdf))  # a fresh index: the page must show it being built
    shots = Path(os.environ.get("BOOKRAG_SCREENSHOTS") or tmp_path)
    app = create_app(settings, models=offline_models, use_llm=False, upload_dir=tmp_path / "uploads")
    try:
        with serving(app) as base:
            async with async_playwright() as playwright:
                chromium = await playwright.chromium.launch(executable_path=chromium_path(), args=CHROMIUM_FLAGS)
                page = await chromium.new_page(viewport={"width": 1280, "height": 1000})
                await page.goto(base + "/")
                await page.set_input_files("input[name=pdf]", str(pdf))
                await page.click("form.upload button")
                await page.wait_for_selector("li.job", timeout=BROWSER_WAIT_MS)  # progress shows up
                row = page.locator("table.docs tr", has_text="R-data.pdf")
                await row.wait_for(timeout=10 * BROWSER_WAIT_MS)  # indexed: the page reloads with it
                assert int(await row.locator("td.num").nth(1).inner_text()) > 5  # sections
                await row.get_by_role("link", name="R-data.pdf").click()
                await page.wait_for_selector("ul.toc details")
                assert await page.locator("ul.toc li").count() > 5
                assert "/browser/" in await page.locator("a.browser-link").get_attribute("href")

                await page.goto(base + "/ask")
                await page.fill("textarea[name=question]", "How do I read a CSV file into R?")
                await page.locator("label", has_text="R-data.pdf").locator("input").check()
                await page.select_option("select[name=method]", "bookrag")
                await page.click("form.ask button")
                await page.wait_for_selector("#answer", timeout=BROWSER_WAIT_MS)
                assert (await page.locator(".answer-text").inner_text()).strip()
                citations = page.locator("li.citation")
                assert await citations.count() >= 1
                assert "R-data.pdf" in await page.locator("h3.document").first.inner_text()  # citations by document
                await page.wait_for_function("() => [...document.querySelectorAll('a.page img')]"
                                             ".every(i => i.complete && i.naturalWidth > 0)", timeout=BROWSER_WAIT_MS)
                assert await page.locator("a.page .hl").count() >= 1
                assert await page.locator("a.browser-link").count() == 1
                await page.evaluate("document.querySelector('#answer').scrollIntoView()")
                await page.screenshot(path=str(shots / "web_ask.png"))
                await page.locator("a.page:has(.hl)").first.click()
                await page.wait_for_selector("#lightbox:not([hidden]) img")
                assert await page.locator("#lightbox .hl").count() >= 1
                await page.keyboard.press("Escape")

                # the document viewer: from a citation to its box, then on to the next highlight and page
                cited = await citations.count()
                await page.locator("a.view").first.click()
                await page.wait_for_selector("#viewer .hl.current", timeout=BROWSER_WAIT_MS)
                assert await page.locator("#mark-now").inner_text() == "1"
                first_page = int(await page.locator("#page-now").inner_text())
                total = await page.locator(".viewer-bar .where").nth(1).inner_text()
                assert total.endswith(f"of {await page.evaluate('JSON.parse(marks.textContent).length')}")
                if cited > 1:
                    await page.click("button[data-go=mark-next]")
                    assert await page.locator("#mark-now").inner_text() == "2"
                    await page.wait_for_selector("#viewer .hl.current")
                await page.wait_for_function("() => document.getElementById('sheet').complete")
                await page.screenshot(path=str(shots / "web_viewer.png"))
                shown = int(await page.locator("#page-now").inner_text())
                await page.click("button[data-go=page-next]")
                assert int(await page.locator("#page-now").inner_text()) == shown + 1 and first_page >= 1

                # a follow-up, no document ticked: read with the conversation, in the document it was about
                await page.go_back()
                await page.wait_for_selector("#answer", timeout=BROWSER_WAIT_MS)
                await page.fill("textarea[name=question]", "Which functions read fixed-width files?")
                await page.locator("label", has_text="R-data.pdf").locator("input").uncheck()
                await page.click("form.ask button")
                await page.wait_for_selector("section.conversation", timeout=BROWSER_WAIT_MS)
                assert "read a CSV file" in await page.locator("section.conversation").inner_text()
                assert {t.strip().split(" (")[0] for t in await page.locator("h3.document").all_inner_texts()} == {
                    "R-data.pdf"}
                await page.evaluate("document.querySelector('section.conversation').scrollIntoView()")
                await page.screenshot(path=str(shots / "web_followup.png"))
                await chromium.close()
    finally:
        await delete_document(db, file_key(pdf))
