"""File names and messages end to end: a PDF whose name holds bytes that are not UTF-8 is indexed (the CLI and the
SDK) under the name with ``\\xNN`` escapes and answers questions; a failed document in a batch is one unwrapped
line naming its file when stderr is piped; 2,000 empty pages are one warning in the index report."""

from __future__ import annotations

import json
import os
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from bookrag_neo4j.errors import DocumentNotFoundError
from bookrag_neo4j.sdk import BookRAG

from ..helpers.cli import run_cli
from ..helpers.pdfs import empty_pages_pdf, tiny_pdf, untitled_pdf
from ..helpers.timeouts import LONG_TEST

pytestmark = pytest.mark.timeout(LONG_TEST)

RAW_NAME = b"bad\xff\xfename.pdf"
STORED_NAME = "bad\\xff\\xfename.pdf"  # the backslashes are characters of the stored name


@pytest.fixture
async def rag(settings, offline_models, conn, schema) -> AsyncIterator[BookRAG]:
    library = BookRAG(settings.replace(llm_provider="none"), models=offline_models, use_llm=False)
    yield library
    for name in (STORED_NAME, "good.pdf", "blank.pdf"):
        for _ in range(3):
            try:
                await library.adelete(name)
            except DocumentNotFoundError:
                break
    await library.aclose()


def _bad_name_pdf(folder: Path, org: str) -> Path:
    """A small PDF without a title at ``folder/bad\\xff\\xfename.pdf`` (raw bytes; PyMuPDF cannot save to such a
    name): its title comes from the file's name too."""
    folder.mkdir(parents=True, exist_ok=True)
    pdf = folder / os.fsdecode(RAW_NAME)
    untitled_pdf(folder / "made.pdf", org, "widgets").rename(pdf)
    assert os.fsencode(pdf).endswith(RAW_NAME)
    return pdf


async def test_a_pdf_named_with_bytes_that_are_not_utf8_is_indexed_and_answers(settings, rag: BookRAG,
                                                                               tmp_path: Path) -> None:
    pdf = _bad_name_pdf(tmp_path / "cli", "Acme")
    done = run_cli(settings, "index", "--no-llm", "--json", str(pdf))
    assert done.returncode == 0, done.stderr[-3000:]
    assert "Traceback" not in done.stderr and "surrogates" not in done.stderr
    report = json.loads(done.stdout)
    assert report["name"] == STORED_NAME and report["status"] == "indexed" and report["title"] == "bad\\xff\\xfename"
    document = await rag.adocument(STORED_NAME)
    assert document.key == report["doc_key"] and document.name == STORED_NAME and document.title == "bad\\xff\\xfename"
    assert document.path.endswith(f"cli/{STORED_NAME}")
    asked = run_cli(settings, "retrieve", "--no-llm", "--json", "--doc", STORED_NAME, "What does Acme ship?")
    assert asked.returncode == 0, asked.stderr[-3000:]
    assert "widgets" in asked.stdout
    await rag.adelete(document.key)

    other = _bad_name_pdf(tmp_path / "sdk", "Zeta Corp")  # the SDK, all stages
    indexed = await rag.aindex(other)
    assert indexed.name == STORED_NAME and indexed.title == "bad\\xff\\xfename"
    assert (await rag.adocument(STORED_NAME)).key == indexed.doc_key
    evidence = await rag.aretrieve("What does Zeta Corp ship?", STORED_NAME)
    assert any("widgets" in node.text for node in evidence.nodes)
    assert indexed.layout is not None and not indexed.layout.warnings, indexed.layout  # it found the PDF


async def test_a_failed_document_in_a_batch_is_one_unwrapped_line_naming_it(settings, rag: BookRAG,
                                                                            tmp_path: Path) -> None:
    folder = tmp_path / ("a-folder-with-a-rather-long-name-" * 3)
    folder.mkdir()
    corrupt = folder / ("quarterly-report-of-the-northern-region-final-version-" * 2 + "corrupt.pdf")
    corrupt.write_bytes(b"%PDF-1.7\n" + bytes(range(256)) * 20)
    good = tiny_pdf(tmp_path / "good.pdf", "Omega Ltd", "Cy Holm", "Peru", "valves")
    done = run_cli(settings, "index", "--no-llm", "--stage", "tree", "--no-embed", str(corrupt), str(good))
    assert done.returncode == 1, done.stderr[-3000:]
    assert done.stdout == ""  # the report and the (undrawn) progress bars are on stderr: no blank lines here
    failed = [line for line in done.stderr.splitlines() if "failed" in line and "documents" not in line]
    assert len(failed) == 1, done.stderr
    assert failed[0].startswith("failed: ") and corrupt.name in failed[0] and "not a readable PDF" in failed[0]
    assert len(failed[0]) > 120  # longer than rich's 80 columns, and not folded
    summary = [line for line in done.stderr.splitlines() if line.startswith("2 documents")]
    assert summary and "1 indexed" in summary[0] and "1 failed" in summary[0]


async def test_two_thousand_empty_pages_are_one_warning_in_the_report(rag: BookRAG, tmp_path: Path) -> None:
    report = await rag.aindex(empty_pages_pdf(tmp_path / "blank.pdf", 2000), knowledge_graph=False, layout=False,
                              embed=False)
    empty = [w for w in report.warnings if "empty" in w]
    assert empty == ["1,999 pages are empty (pages 2, 3, 4, 5, 6, ... 2000)"]
    assert (await rag.adocument("blank.pdf")).warnings == report.warnings  # stored as reported
