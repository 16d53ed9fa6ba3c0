"""Bounded input without a server: questions are refused when empty or too long, a client of a server that is
down fails within seconds with a hint, and the CLI prints any error as one line. (Against the real server, with
counts that prove nothing was written: ``tests/integration/test_faults.py``.)"""

from __future__ import annotations

import socket
import time

import pytest

from bookrag_neo4j.cli import one_line
from bookrag_neo4j.db.client import ConnectionInfo, Neo4jClient
from bookrag_neo4j.errors import Neo4jUnavailableError, QuestionError
from bookrag_neo4j.methods.retriever import checked_question


@pytest.mark.parametrize("question", ["", " ", "\n\t  \n"])
def test_an_empty_question_is_refused(question: str) -> None:
    with pytest.raises(QuestionError, match="the question is empty"):
        checked_question(question, 4000)


def test_a_question_over_the_limit_is_refused_and_one_at_it_passes() -> None:
    assert checked_question("  " + "q" * 4000 + "\n", 4000) == "q" * 4000
    with pytest.raises(QuestionError, match="4,001 characters; the limit is 4,000"):
        checked_question("q" * 4001, 4000)


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]  # nothing listens once the socket closes


async def test_a_server_that_is_down_fails_the_first_call_at_once_with_a_hint() -> None:
    conn = ConnectionInfo(f"bolt://127.0.0.1:{_closed_port()}", "neo4j", "password1")
    began = time.perf_counter()
    async with Neo4jClient(conn) as db:  # the default retry time (30 s) must not apply to the first contact
        with pytest.raises(Neo4jUnavailableError, match=r"not reachable .*bookrag neo4j start.*NEO4J_URI"):
            await db.read("server/versions")
    assert time.perf_counter() - began < 5.0


def test_an_error_prints_as_one_line() -> None:
    assert one_line(QuestionError("the question\n  is empty")) == "the question is empty"
    line = one_line(UnicodeEncodeError("utf-8", "\udcff", 0, 1, "surrogates not allowed"))
    assert line.startswith("UnicodeEncodeError: ") and "--debug" in line and "\n" not in line


def test_an_outline_nested_thousands_deep_is_read_without_recursion_and_capped(tmp_path) -> None:
    import pymupdf

    from bookrag_neo4j.parsing.limits import MAX_OUTLINE_DEPTH, read_outline

    doc = pymupdf.open()
    doc.new_page().insert_text((72, 72), "One page.")
    doc.set_toc([[level, f"Level {level}", 1] for level in range(1, 2001)] + [[1, "Sibling", 1]])
    doc.save(tmp_path / "deep.pdf")
    with pymupdf.open(tmp_path / "deep.pdf") as again:
        outline, warnings = read_outline(again)
    assert [e.level for e in outline] == [*range(1, MAX_OUTLINE_DEPTH + 1), 1]
    assert outline[-1].title == "Sibling" and outline[0].page == 1
    assert warnings == [f"the outline nests deeper than {MAX_OUTLINE_DEPTH} levels: {2000 - MAX_OUTLINE_DEPTH} "
                        "deeper entries ignored"]


def test_a_long_block_is_split_at_boundaries_within_the_limit() -> None:
    from pathlib import Path

    from bookrag_neo4j.parsing.blocks import Block, ParsedDocument
    from bookrag_neo4j.parsing.limits import MAX_BLOCK_CHARS, split_long_blocks, split_text

    text = "A sentence of some words ends here. " * 2700  # 97,200 characters, one "page"
    parts = split_text(text)
    assert all(len(p) <= MAX_BLOCK_CHARS for p in parts) and all(p.endswith("here.") for p in parts)
    assert " ".join(parts) == text.strip()
    assert [len(p) for p in split_text("x" * 9000)] == [4000, 4000, 1000]  # no boundary: a hard cut
    parsed = ParsedDocument(path=Path("a.pdf"), content_hash="0" * 64, title="a", page_count=1,
                            blocks=[Block("title", "Title", 1), Block("text", text, 1), Block("table", "t" * 9000, 1)])
    split = split_long_blocks(parsed)
    assert [b.kind for b in split.blocks] == ["title", *["text"] * len(parts), "table"]
    assert split.warnings == [f"page 1: a text block of {len(text):,} characters was split into {len(parts)} blocks "
                              f"of at most {MAX_BLOCK_CHARS:,}"]
    assert split_long_blocks(split) is split  # nothing left to split


def test_a_file_name_that_is_not_utf8_is_stored_escaped() -> None:
    import os

    from bookrag_neo4j.keys import stored_text

    name = os.fsdecode(b"report-\xff\xfe.pdf")  # what Python makes of such a name: surrogate escapes
    assert stored_text(name) == "report-\\xff\\xfe.pdf"
    assert stored_text(name).encode("utf-8")  # storable and printable
    assert stored_text("Übersicht 2024.pdf") == "Übersicht 2024.pdf"
    assert stored_text("lone \ud800 surrogate") == "lone \\ud800 surrogate"


def test_a_folder_without_pdfs_is_its_own_error(tmp_path) -> None:
    from bookrag_neo4j.cli.common import pdf_paths
    from bookrag_neo4j.errors import DocumentError

    (tmp_path / "notes.txt").write_text("not a PDF")
    with pytest.raises(DocumentError, match="a folder with no PDF files in it"):
        pdf_paths([tmp_path])
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "A.PDF").write_bytes(b"%PDF-1.4")
    assert pdf_paths([tmp_path]) == [tmp_path / "sub" / "A.PDF"]


def test_many_long_blocks_split_are_one_warning_naming_their_pages() -> None:
    from pathlib import Path

    from bookrag_neo4j.parsing.blocks import Block, ParsedDocument
    from bookrag_neo4j.parsing.limits import MAX_BLOCK_CHARS, MAX_SPLIT_WARNINGS, page_list, split_long_blocks

    long = "A sentence of some words ends here. " * 200  # 7,200 characters: two blocks
    parsed = ParsedDocument(path=Path("a.pdf"), content_hash="0" * 64, title="a", page_count=900,
                            blocks=[Block("text", long, page) for page in range(1, 901)], warnings=["earlier"])
    split = split_long_blocks(parsed)
    assert len(split.blocks) == 1800
    assert split.warnings == ["earlier", f"900 blocks of over {MAX_BLOCK_CHARS:,} characters were split into blocks "
                              f"of at most {MAX_BLOCK_CHARS:,} (pages 1, 2, 3, 4, 5, ... 900)"]
    few = split_long_blocks(ParsedDocument(path=Path("a.pdf"), content_hash="0" * 64, title="a", page_count=3,
                                           blocks=[Block("text", long, p) for p in range(1, MAX_SPLIT_WARNINGS + 1)]))
    assert [w.split(":")[0] for w in few.warnings] == [f"page {p}" for p in range(1, MAX_SPLIT_WARNINGS + 1)]
    assert [page_list(p) for p in ([7], [2, 9], list(range(1, 7)), list(range(1, 8)))] == [
        "page 7", "pages 2, 9", "pages 1, 2, 3, 4, 5, 6", "pages 1, 2, 3, 4, 5, ... 7"]


def test_a_name_that_is_not_utf8_is_stored_shown_and_found_again_through_one_function(tmp_path) -> None:
    import os

    from bookrag_neo4j.keys import local_path, stored_name, stored_path

    pdf = tmp_path / os.fsdecode(b"bad\xff\xfename.pdf")
    pdf.write_bytes(b"%PDF-1.4")
    assert stored_name(pdf) == "bad\\xff\\xfename.pdf" == stored_name(str(pdf))
    assert stored_path(pdf) == f"{tmp_path}/bad\\xff\\xfename.pdf"
    assert local_path(stored_path(pdf)) == pdf and local_path(stored_path(pdf)).is_file()
    assert local_path(str(tmp_path / "plain.pdf")) == tmp_path / "plain.pdf"  # nothing escaped: as written
    literal = tmp_path / "a\\x41.pdf"  # a name with a backslash in it, not an escape
    literal.write_bytes(b"%PDF-1.4")
    assert local_path(stored_path(literal)) == literal


def test_a_plan_file_that_is_not_a_plan_is_one_line(tmp_path) -> None:
    from bookrag_neo4j.cli.ask import _load_plan
    from bookrag_neo4j.errors import PlanError

    bad = tmp_path / "bad.json"
    bad.write_text('{"question": "x", "steps": [{"id": 1}]}')
    with pytest.raises(PlanError) as found:
        _load_plan(bad)
    assert str(found.value) == (f"{bad}: not a plan: steps.0.id: Input should be a valid string; steps.0.operator: "
                                "Field required")  # no pydantic dump, no documentation links
    with pytest.raises(PlanError, match="cannot read the plan: No such file or directory"):
        _load_plan(tmp_path / "missing.json")
