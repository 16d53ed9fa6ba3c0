"""The fault suite, part 1: bad input of every kind, as data. Each row is refused with a one-line error of the
package (:class:`BookRAGError`) and writes nothing: the counts of every label and relationship type in the
database are the same after it. (Hostile Cypher: ``test_gate.py``; killed processes, two writers and the soak:
``test_crashes.py``.)"""

from __future__ import annotations

import contextlib
import gzip
import os
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

import pymupdf
import pytest

from bookrag_neo4j.errors import BookRAGError
from bookrag_neo4j.sdk import BookRAG

from ..helpers.counts import database_counts
from ..helpers.pdfs import tiny_pdf

Work = Callable[[BookRAG, Path, str], Awaitable[Any]]


def _file(name: str, data: bytes) -> Callable[[Path], Path]:
    def make(folder: Path) -> Path:
        path = folder / os.fsdecode(name.encode("utf-8", "surrogateescape"))
        path.write_bytes(data)
        return path
    return make


def _encrypted(folder: Path, user: str = "secret-user", owner: str = "secret-owner") -> Path:
    doc = pymupdf.open()
    doc.new_page().insert_text((72, 72), "Confidential figures.")
    path = folder / "encrypted.pdf"
    doc.save(path, encryption=pymupdf.PDF_ENCRYPT_AES_256, user_pw=user, owner_pw=owner)
    return path


def _index(make: Callable[[Path], Path]) -> Work:
    async def work(rag: BookRAG, folder: Path, doc: str) -> Any:
        return await rag.aindex(make(folder))
    return work


def _ask(question: str, **options: Any) -> Work:
    async def work(rag: BookRAG, folder: Path, doc: str) -> Any:
        return await rag.aask(question, doc, **options)
    return work


def _retrieve(question: str, **options: Any) -> Work:
    async def work(rag: BookRAG, folder: Path, doc: str) -> Any:
        return await rag.aretrieve(question, doc, **options)
    return work


def _cypher(query: str, params: dict[str, Any] | None = None, **options: Any) -> Work:
    async def work(rag: BookRAG, folder: Path, doc: str) -> Any:
        return await rag.arun_cypher(query, params, **options)
    return work


def _call(method: str, *args: Any, **kwargs: Any) -> Work:
    async def work(rag: BookRAG, folder: Path, doc: str) -> Any:
        return await getattr(rag, method)(*args, **kwargs)
    return work


PDF_HEAD = b"%PDF-1.4\n"
NO_PAGES = PDF_HEAD + (b"1 0 obj<</Type/Catalog/Pages 2 0 R>>endobj\n2 0 obj<</Type/Pages/Kids[]/Count 0>>endobj\n"
                       b"trailer<</Root 1 0 R>>\n%%EOF\n")
NOT_A_PDF = "not a readable PDF|has no pages"
NOT_FOUND = "no indexed document|no such|not found|no document"


def _truncated(folder: Path) -> Path:
    whole = tiny_pdf(folder / "whole.pdf", "Acme", "Ada", "France", "widgets").read_bytes()
    return _file("truncated.pdf", whole[: len(whole) // 3])(folder)


def _gzipped(folder: Path) -> Path:
    whole = tiny_pdf(folder / "whole.pdf", "Acme", "Ada", "France", "widgets").read_bytes()
    return _file("gzipped.pdf", gzip.compress(whole))(folder)


def _dangling_link(folder: Path) -> Path:
    link = folder / "dangling.pdf"
    link.symlink_to(folder / "gone.pdf")
    return link


def _folder(folder: Path) -> Path:
    (folder / "a-folder.pdf").mkdir()
    return folder / "a-folder.pdf"


def _fifo(folder: Path) -> Path:
    os.mkfifo(folder / "pipe.pdf")
    return folder / "pipe.pdf"


def _edited_plan(operator: str) -> Work:
    async def work(rag: BookRAG, folder: Path, doc: str) -> Any:
        plan = await rag.retriever(await rag.aclient()).plan("What does Acme ship?")
        steps = [s.model_copy(update={"operator": operator}) if i == 0 else s for i, s in enumerate(plan.steps)]
        return await rag.aretrieve(plan.question, doc, plan=plan.model_copy(update={"steps": steps}))
    return work


# (id, the work, what the one-line error must say: a regular expression)
BAD_INPUTS: list[tuple[str, Work, str]] = [
    # --- files ---
    ("missing file", _index(lambda f: f / "nope.pdf"), "no such file"),
    ("a folder", _index(_folder), "a folder, not a PDF file"),
    ("empty file", _index(_file("empty.pdf", b"")), NOT_A_PDF),
    ("header only", _index(_file("header.pdf", PDF_HEAD + b"%%EOF\n")), NOT_A_PDF),
    ("garbage after header", _index(_file("garbage.pdf", PDF_HEAD + b"this is not really a PDF")), NOT_A_PDF),
    ("no pages", _index(_file("nopages.pdf", NO_PAGES)), NOT_A_PDF),
    ("text file", _index(_file("notes.pdf", b"Meeting notes, not a PDF.\n" * 50)), NOT_A_PDF),
    ("HTML page", _index(_file("page.pdf", b"<!doctype html><html><body>hi</body></html>")), NOT_A_PDF),
    ("PNG image", _index(_file("image.pdf", b"\x89PNG\r\n\x1a\n" + bytes(200))), NOT_A_PDF),
    ("ZIP archive", _index(_file("archive.pdf", b"PK\x03\x04" + bytes(200))), NOT_A_PDF),
    ("random bytes", _index(_file("random.pdf", os.urandom(10_000))), NOT_A_PDF),
    ("zero bytes", _index(_file("zeros.pdf", bytes(4096))), NOT_A_PDF),
    ("truncated PDF", _index(_truncated), NOT_A_PDF),
    ("gzipped PDF", _index(_gzipped), NOT_A_PDF),
    ("encrypted (AES-256)", _index(_encrypted), "is encrypted"),
    ("a PDF header in junk past 1 KiB", _index(_file("late.pdf", bytes(2048) + PDF_HEAD)), NOT_A_PDF),
    ("dangling symlink", _index(_dangling_link), "no such file"),
    ("a named pipe", _index(_fifo), r"pipe.pdf: a named pipe \(FIFO\), not a file"),  # reading it would never end
    ("/dev/zero", _index(lambda f: Path("/dev/zero")), "/dev/zero: a device, not a file"),
    ("garbage with a name that is not UTF-8", _index(_file("r\udcffport.pdf", b"junk")), NOT_A_PDF),
    ("neither PDF nor MinerU folder", _call("aindex", None), "give either a PDF path or a MinerU output folder"),
    ("missing MinerU folder", _call("aindex", None, mineru_output=Path("/nonexistent/mineru")), "mineru|MinerU|no such"),
    # --- questions ---
    ("empty question (retrieve)", _retrieve(""), "the question is empty"),
    ("spaces only", _retrieve("   "), "the question is empty"),
    ("newlines and tabs (ask)", _ask("\n\t \n"), "the question is empty"),
    ("4,001 characters", _retrieve("q" * 4001), "4,001 characters; the limit is 4,000"),
    ("100 KB question (ask)", _ask("What? " * 17_000), "the limit is 4,000"),
    ("empty question (cypher)", _call("acypher", ""), "the question is empty"),
    ("long question (cypher)", _call("acypher", "x" * 5000), "the limit is 4,000"),
    ("empty question, no LLM method", _retrieve("", method="bm25"), "the question is empty"),
    ("unknown method", _retrieve("What does Acme ship?", method="no-such-method"), "no-such-method"),
    ("unknown method (ask)", _ask("What does Acme ship?", method="DROP DATABASE"), "DROP DATABASE"),
    ("plan with an unknown operator", _edited_plan("No_Such_Operator"), "No_Such_Operator"),
    # --- documents that are not there ---
    ("retrieve from an unknown document", _call("aretrieve", "What?", "no-such-document.pdf"), NOT_FOUND),
    ("ask an unknown document", _call("aask", "What?", ["no-such-document.pdf"]), NOT_FOUND),
    ("a key prefix of nothing", _call("aretrieve", "What?", "ffffffffffff"), NOT_FOUND),
    ("delete an unknown document", _call("adelete", "no-such-document.pdf"), NOT_FOUND),
    ("delete with an injected name", _call("adelete", "x' OR 1=1 //"), NOT_FOUND),
    ("stats of an unknown document", _call("astats", "no-such-document.pdf"), NOT_FOUND),
    ("toc of an unknown document", _call("atoc", "no-such-document.pdf"), NOT_FOUND),
    ("graph stage on an unknown document", _call("abuild_graph", "no-such-document.pdf"), NOT_FOUND),
    ("layout stage on an unknown document", _call("abuild_layout", "no-such-document.pdf"), NOT_FOUND),
    ("content graph of an unknown document", _call("abuild_content_graph", "no-such-document.pdf"), NOT_FOUND),
    ("an unknown BI query", _call("abi", "no_such_query"), "no_such_query"),
    ("a BI query name with a path", _call("abi", "../../etc/passwd"), "passwd"),
    # --- user Cypher ---
    ("a write", _cypher("CREATE (:Intruder) RETURN 1 AS one"), "only read-only Cypher"),
    ("a syntax error", _cypher("MATCH (n RETURN n"), "refused to plan"),
    ("a missing parameter", _cypher("MATCH (d:Document {key: $key}) RETURN d.name AS name"), "key|parameter"),
    ("too many rows", _cypher("UNWIND range(1, 20000) AS x RETURN x"), "more than 10000 rows"),
    ("over the memory limit", _cypher("UNWIND range(1, 100000000) AS x WITH collect(x) AS xs RETURN size(xs) AS n"),
     "MemoryPoolOutOfMemory|memory"),
    ("over the time limit", _cypher("UNWIND range(1, 100000000) AS x WITH x WHERE x < 0 RETURN count(*) AS n",
                                    timeout=0.5), "TransactionTimedOut|timed out|terminated"),
    ("LOAD CSV from loopback", _cypher("LOAD CSV FROM 'http://127.0.0.1:7474/' AS r RETURN r"), "LOAD CSV"),
    ("an empty query", _cypher(""), "refused to plan|empty"),
    ("two statements", _cypher("RETURN 1 AS a; CREATE (:Intruder)"), "refused to plan"),
    # --- evaluation input ---
    ("evaluate a missing folder", _call("aevaluate", "/nonexistent/benchmark"), "benchmark|no such|not found"),
    ("evaluate a folder without questions", _call("aevaluate", Path(__file__).parent), "questions|benchmark"),
]


@pytest.fixture(scope="module")
async def library(settings, offline_models, conn, schema, tmp_path_factory) -> AsyncIterator[tuple[BookRAG, str]]:
    """One small document indexed (tree and graph), so that questions have something to be refused over."""
    pdf = tiny_pdf(tmp_path_factory.mktemp("faults") / "acme-faults.pdf", "Acme", "Ada Quill", "France", "widgets")
    rag = BookRAG(settings.replace(llm_provider="none"), models=offline_models, use_llm=False)
    report = await rag.aindex(pdf, layout=False)
    yield rag, report.doc_key
    await rag.adelete(report.doc_key)
    await rag.aclose()


def test_the_table_is_long_enough() -> None:
    assert len(BAD_INPUTS) >= 50
    assert len({name for name, _, _ in BAD_INPUTS}) == len(BAD_INPUTS)


@pytest.mark.parametrize(("name", "work", "reason"), BAD_INPUTS, ids=[row[0] for row in BAD_INPUTS])
async def test_bad_input_is_one_line_and_writes_nothing(library: tuple[BookRAG, str], tmp_path: Path, name: str,
                                                        work: Work, reason: str) -> None:
    rag, doc = library
    db = await rag.aclient()
    before = await database_counts(db)
    with pytest.raises(BookRAGError, match=f"(?i){reason}") as raised:
        await work(rag, tmp_path, doc)
    message = str(raised.value)
    assert "\n" not in message.strip(), message
    assert message.encode("utf-8")  # printable: a name that is not UTF-8 arrives escaped
    assert await database_counts(db) == before, name


async def test_a_pdf_whose_name_is_not_utf8_is_indexed_under_an_escaped_name(library: tuple[BookRAG, str],
                                                                             tmp_path: Path) -> None:
    rag, _ = library
    pdf = tmp_path / os.fsdecode(b"bericht-\xe4.pdf")  # PyMuPDF cannot save to such a name: renamed after
    tiny_pdf(tmp_path / "bericht.pdf", "Zeta Corp", "Bo Lind", "Chile", "pumps").rename(pdf)
    with pytest.warns(DeprecationWarning, match="knowledge_graph"):  # the former name of the option still works
        report = await rag.aindex(pdf, graph=False, layout=False)
    try:
        assert report.graph is None  # no knowledge graph built
        assert report.name == "bericht-\\xe4.pdf"
        assert (await rag.adocument("bericht-\\xe4.pdf")).key == report.doc_key
    finally:
        await rag.adelete(report.doc_key)
    with pytest.warns(DeprecationWarning, match="aclient"):  # so does the client's former name
        assert await rag.agraph() is await rag.aclient()


async def test_a_namesake_from_another_folder_is_another_document_unless_replaced(
        library: tuple[BookRAG, str], tmp_path: Path) -> None:
    from bookrag_neo4j.errors import DocumentNotFoundError

    rag, _ = library
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    first = await rag.aindex(tiny_pdf(tmp_path / "a" / "report.pdf", "Zeta Corp", "Bo Lind", "Chile", "pumps"),
                             knowledge_graph=False, layout=False)
    other = tiny_pdf(tmp_path / "b" / "report.pdf", "Omega Ltd", "Cy Holm", "Peru", "valves")
    second = await rag.aindex(other, knowledge_graph=False, layout=False)
    try:
        assert second.status == "indexed" and any("stay indexed as separate documents" in w for w in second.warnings)
        assert {first.doc_key, second.doc_key} <= {d.key for d in await rag.adocuments()}
        with pytest.raises(DocumentNotFoundError, match="matches several documents"):
            await rag.adocument("report.pdf")
        third = await rag.aindex(other, knowledge_graph=False, layout=False, force=True, replace=True)
        assert third.status == "replaced" and first.doc_key not in {d.key for d in await rag.adocuments()}
    finally:
        for key in (first.doc_key, second.doc_key):
            with contextlib.suppress(DocumentNotFoundError):
                await rag.adelete(key)
