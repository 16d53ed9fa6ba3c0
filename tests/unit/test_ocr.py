"""OCR in the parser (Tesseract, installed by `make ocr`): a page printed to an image reads back as text blocks
with boxes on the page, its tables and photos as table and image blocks; the words inside a figure become its
image block's text, apart from its caption;
``off`` and a missing Tesseract say what to do."""

from __future__ import annotations

import contextlib
import logging
import subprocess
import sys
from pathlib import Path

import numpy as np
import pymupdf
import pytest

from bookrag_neo4j.errors import DocumentError
from bookrag_neo4j.parsing import ocr
from bookrag_neo4j.parsing.furniture import read_page_furniture
from bookrag_neo4j.parsing.limits import MAX_RENDER_PIXELS
from bookrag_neo4j.parsing.ocr import OcrOptions
from bookrag_neo4j.parsing.pymupdf_parser import parse_pdf

LINES = ["Quarterly Report of the Vega Launch Company", "Revenue grew to 412 million dollars in 2024,",
         "while operating costs fell by nine percent.", "The board approved a second launch pad in Kourou."]


def text_page(doc: pymupdf.Document, lines: list[str], *, footer: str = "") -> None:
    page = doc.new_page()
    for i, line in enumerate(lines):
        page.insert_text((72, 100 + 24 * i), line, fontsize=14 if i == 0 else 11)
    if footer:
        page.insert_text((280, page.rect.height - 40), footer, fontsize=11)


def scanned(path: Path, pages: list[list[str]], footers: list[str] | None = None) -> Path:
    """Each page's lines (and footer) printed to a 150 dpi image, the images put together into a PDF with a
    stamp's line of text on each page (the only text layer a scan often has)."""
    with pymupdf.open() as source, pymupdf.open() as out:
        for i, lines in enumerate(pages):
            text_page(source, lines, footer=footers[i] if footers else "")
        for number, page in enumerate(source, 1):
            image = page.get_pixmap(dpi=150, colorspace=pymupdf.csGRAY).tobytes("png")
            target = out.new_page(width=page.rect.width, height=page.rect.height)
            target.insert_image(target.rect, stream=image)
            target.insert_text((36, target.rect.height - 12), f"Scanned by the records office, sheet {number}", fontsize=6)
        out.save(path)
    return path


pytestmark = pytest.mark.skipif(ocr.tesseract() is None, reason="Tesseract is not installed: run `make ocr`")


def words(text: str) -> set[str]:
    return {w.strip(".,").lower() for w in text.split()}


def test_a_scanned_page_reads_back_as_blocks_with_boxes(tmp_path: Path) -> None:
    pdf = scanned(tmp_path / "scan.pdf", [LINES, LINES[::-1]])
    parsed = parse_pdf(pdf, tables="off", ocr_options=OcrOptions("auto"))
    assert {b.page for b in parsed.blocks} == {1, 2}
    read = words(" ".join(b.text for b in parsed.blocks if b.page == 1))
    expected = words(" ".join(LINES))
    assert len(read & expected) >= 0.9 * len(expected), read ^ expected
    for block in parsed.blocks:  # boxes in page coordinates, on the page
        x0, y0, x1, y1 = block.bbox
        assert 0 <= x0 < x1 <= 595 and 0 <= y0 < y1 <= 842  # A4, the default page
    revenue = next(b for b in parsed.blocks if b.page == 1 and "Revenue" in b.text)
    assert 80 < revenue.bbox[1] < 140  # where the line was printed (y 124, baseline)
    with pytest.raises(DocumentError, match="no text layer.*--ocr auto"):
        parse_pdf(_without_stamp(tmp_path), tables="off", ocr_options=OcrOptions("off"))


def _without_stamp(tmp_path: Path) -> Path:
    with pymupdf.open() as source, pymupdf.open() as out:
        text_page(source, LINES)
        image = source[0].get_pixmap(dpi=100).tobytes("png")
        out.new_page().insert_image(pymupdf.Rect(0, 0, 595, 842), stream=image)
        out.save(tmp_path / "bare.pdf")
    return tmp_path / "bare.pdf"


def test_readings_are_cached_and_a_scan_keeps_its_printed_page_numbers(tmp_path: Path,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """The parse's readings serve the layout layer's look at the page furniture (no second OCR): the printed
    page numbers of a scan are its pages' labels."""
    pdf = scanned(tmp_path / "scan.pdf", [LINES[n:] + LINES[:n] for n in range(4)], [str(40 + n) for n in range(4)])
    options = OcrOptions("auto", cache=tmp_path / "ocr")
    first = parse_pdf(pdf, tables="off", ocr_options=options)
    runs: list[bytes] = []
    real = ocr._tesseract
    monkeypatch.setattr(ocr, "_tesseract", lambda png, language: runs.append(png) or real(png, language))
    again = parse_pdf(pdf, tables="off", ocr_options=options)
    assert runs == [] and [b.text for b in again.blocks] == [b.text for b in first.blocks]
    furniture = read_page_furniture(pdf, options)
    labels = [furniture[n].label for n in (1, 2, 3, 4)]
    assert runs == [] and sum(a == b for a, b in zip(labels, ["40", "41", "42", "43"], strict=True)) >= 3, labels  # one lone
    # number may be misread (Tesseract read page 2's "41" as "a" here)


def test_blank_pages_are_said_to_be_blank(tmp_path: Path) -> None:
    with pymupdf.open() as doc:
        for _ in range(2000):
            doc.new_page()
        doc.save(tmp_path / "blank.pdf")
    with pytest.raises(DocumentError, match="its pages are blank"):
        parse_pdf(tmp_path / "blank.pdf", tables="off", ocr_options=OcrOptions("auto"))


def test_a_text_page_is_not_ocrd_unless_forced(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with pymupdf.open() as doc:
        text_page(doc, LINES * 3)
        doc.save(tmp_path / "text.pdf")
    calls: list[int] = []
    real = ocr.ocr_pages
    monkeypatch.setattr(ocr, "ocr_pages", lambda pages, numbers, options: calls.append(len(pages)) or real(
        pages, numbers, options))
    auto = parse_pdf(tmp_path / "text.pdf", tables="off", ocr_options=OcrOptions("auto"))
    assert calls == []
    forced = parse_pdf(tmp_path / "text.pdf", tables="off", ocr_options=OcrOptions("force"))
    assert calls == [1] and [b.text for b in forced.blocks] == [b.text for b in auto.blocks]  # OCR on text: no doubles


def test_words_inside_a_figure_are_its_text_apart_from_its_caption(tmp_path: Path) -> None:
    with pymupdf.open() as chart, pymupdf.open() as doc:
        page = chart.new_page(width=300, height=160)
        page.insert_text((20, 60), "Launch cadence per year", fontsize=18)
        page.insert_text((20, 110), "Kourou 14  Vandenberg 9", fontsize=18)
        image = page.get_pixmap(dpi=150).tobytes("png")
        host = doc.new_page()
        host.insert_text((72, 72), "Operations", fontsize=14)
        host.insert_text((72, 100), "The figure below shows the launches from each site over the year.", fontsize=11)
        host.insert_image(pymupdf.Rect(72, 130, 372, 290), stream=image)
        host.insert_text((72, 310), "Figure 3: Launches by site", fontsize=10)
        doc.save(tmp_path / "figure.pdf")
    parsed = parse_pdf(tmp_path / "figure.pdf", tables="off", ocr_options=OcrOptions("auto"))
    (figure,) = [b for b in parsed.blocks if b.kind == "image"]
    assert figure.caption == "Figure 3: Launches by site"
    assert {"kourou", "vandenberg", "cadence"} <= words(figure.image_text)
    assert figure.text.startswith(figure.caption) and figure.image_text in figure.text
    off = parse_pdf(tmp_path / "figure.pdf", tables="off", ocr_options=OcrOptions("off"))
    assert [b.image_text for b in off.blocks if b.kind == "image"] == [""]


def test_without_tesseract_auto_warns_and_force_says_how_to_install(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                    caplog: pytest.LogCaptureFixture) -> None:
    pdf = scanned(tmp_path / "scan.pdf", [LINES])
    monkeypatch.setattr(ocr.shutil, "which", lambda name: None)
    with caplog.at_level(logging.WARNING):
        parsed = parse_pdf(pdf, tables="off", ocr_options=OcrOptions("auto"))  # the stamp's line only
    assert "Tesseract is not installed" in caplog.text and "revenue" not in words(" ".join(b.text for b in parsed.blocks))
    with pytest.raises(DocumentError, match="make ocr"):
        parse_pdf(pdf, tables="off", ocr_options=OcrOptions("force"))


def _photo(width: int, height: int) -> bytes:
    """A grey picture without words (a photo's texture)."""
    rng = np.random.default_rng(7)
    y, x = np.mgrid[0:height, 0:width]
    pixels = 128 + 60 * np.sin(x / 9.0) * np.cos(y / 13.0) + rng.normal(0, 25, (height, width))
    return pymupdf.Pixmap(pymupdf.csGRAY, width, height, pixels.clip(0, 255).astype(np.uint8).tobytes(), False
                          ).tobytes("png")


SITES = [["Site", "Launches", "Payload"], ["Kourou", "14", "212"], ["Vandenberg", "9", "131"],
         ["Baikonur", "11", "187"], ["Tanegashima", "4", "58"]]
PHOTO = pymupdf.Rect(72, 300, 400, 520)


def _report_page(doc: pymupdf.Document) -> None:
    """A heading, a ruled table under its caption, a photo under its caption, and a paragraph."""
    page = doc.new_page()
    page.insert_text((72, 80), "Launch Operations Review", fontsize=16)
    page.insert_text((72, 110), "Table 2: Launches and payload by site in 2024", fontsize=10)
    for r, row in enumerate(SITES):
        for c, cell in enumerate(row):
            page.draw_rect(pymupdf.Rect(72 + 140 * c, 120 + 22 * r, 212 + 140 * c, 142 + 22 * r), width=0.8)
            page.insert_text((78 + 140 * c, 135 + 22 * r), cell, fontsize=11)
    page.insert_image(PHOTO, stream=_photo(656, 440))
    page.insert_text((72, 540), "Figure 4: The launch pad at dawn", fontsize=10)
    for i, line in enumerate(LINES):
        page.insert_text((72, 580 + 18 * i), line, fontsize=11)


def test_a_scanned_pages_table_and_photo_become_a_table_and_an_image(tmp_path: Path) -> None:
    """The table finder reads the OCR'd words of a scan (laid over its image); the regions Tesseract finds
    without words are its figures. A page's own picture is not doubled by OCR."""
    with pymupdf.open() as source, pymupdf.open() as out:
        _report_page(source)
        out.new_page().insert_image(pymupdf.Rect(0, 0, 595, 842),
                                    stream=source[0].get_pixmap(dpi=150, colorspace=pymupdf.csGRAY).tobytes("png"))
        photo_page = out.new_page()  # not a scan: a picture with one line of text, which auto OCRs too
        photo_page.insert_image(pymupdf.Rect(40, 40, 555, 700), stream=_photo(600, 760))
        photo_page.insert_text((72, 740), "Figure 5: The assembly hall", fontsize=10)
        out.save(tmp_path / "scan.pdf")
    parsed = parse_pdf(tmp_path / "scan.pdf", ocr_options=OcrOptions("auto"))
    (table,) = [b for b in parsed.blocks if b.kind == "table"]
    assert table.caption.startswith("Table 2") and table.table_rows == 5 and table.table_cols >= 3
    assert [row[0] for row in table.cells] == [row[0] for row in SITES]
    assert not any("Vandenberg" in b.text for b in parsed.blocks if b.kind != "table")  # its words are the table's
    figures = [b for b in parsed.blocks if b.kind == "image"]
    assert [(b.page, b.caption) for b in figures] == [(1, "Figure 4: The launch pad at dawn"),
                                                     (2, "Figure 5: The assembly hall")]
    box = pymupdf.Rect(figures[0].bbox)
    assert abs(box & PHOTO) > 0.8 * abs(box | PHOTO)
    off = parse_pdf(tmp_path / "scan.pdf", tables="off", ocr_options=OcrOptions("auto"))
    assert not any(b.kind == "table" for b in off.blocks)


def huge_page(path: Path, *, text: str = "", image_height: float = 14_400) -> Path:
    """A 12 KB PDF of one 14,400 by 14,400 point page (200 inches square) covered by a small image: at 150 dpi its
    rendering would be 900 million pixels (the parser reached 4.35 GB and took 26-48 s)."""
    with pymupdf.open() as source, pymupdf.open() as out:
        page = source.new_page(width=400, height=400)
        page.insert_text((20, 100), "x" * 40)
        pixmap = page.get_pixmap(dpi=144)
        huge = out.new_page(width=14_400, height=14_400)
        huge.insert_image(pymupdf.Rect(0, 0, 14_400, image_height), pixmap=pixmap)
        if text:
            huge.insert_text((72, 72), text, fontsize=11)
        out.save(path, deflate=True)
    return path


def test_a_huge_page_is_rendered_within_the_pixel_budget(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    rendered: list[int] = []
    real = pymupdf.Page.get_pixmap

    def recording(page: pymupdf.Page, *args, **kwargs) -> pymupdf.Pixmap:
        pixmap = real(page, *args, **kwargs)
        rendered.append(pixmap.width * pixmap.height)
        return pixmap

    monkeypatch.setattr(pymupdf.Page, "get_pixmap", recording)
    with contextlib.suppress(DocumentError):  # OCR'd at a lower resolution: a few words, or none ("no text")
        parse_pdf(huge_page(tmp_path / "scan.pdf"), tables="off", ocr_options=OcrOptions("auto"))
    assert rendered and max(rendered) <= MAX_RENDER_PIXELS
    rendered.clear()
    poster = huge_page(tmp_path / "poster.pdf", text="A poster of a launch site, " * 10, image_height=12_000)
    parsed = parse_pdf(poster, tables="off",
                       image_dir=tmp_path / "images", ocr_options=OcrOptions("auto"))  # its image saved as a file
    assert any(b.kind == "image" and b.image_path for b in parsed.blocks)
    assert rendered and max(rendered) <= MAX_RENDER_PIXELS


def test_a_huge_page_parses_in_bounded_memory(tmp_path: Path) -> None:
    """In a process of its own: the parser's peak memory with a huge scanned page (4.35 GB before the budget). Its
    VmHWM, since getrusage's maximum survives exec: it would count the test process that forked it."""
    pdf = huge_page(tmp_path / "scan.pdf")
    script = ("import re, sys; from pathlib import Path\n"
              "from bookrag_neo4j.parsing.ocr import OcrOptions\n"
              "from bookrag_neo4j.parsing.pymupdf_parser import parse_pdf\n"
              "try:\n    parse_pdf(Path(sys.argv[1]), tables='off', ocr_options=OcrOptions('auto'))\n"
              "except Exception as exc:\n    print(type(exc).__name__)\nelse:\n    print('parsed')\n"
              "print(int(re.search(r'VmHWM:\\s*(\\d+)', open('/proc/self/status').read())[1]) // 1024)\n")
    done = subprocess.run([sys.executable, "-c", script, str(pdf)], capture_output=True, text=True, check=True)
    outcome, peak_mb = done.stdout.split()
    assert outcome in {"parsed", "DocumentError"} and int(peak_mb) < 1024, done.stdout


def test_renderings_wait_for_tesseract_within_a_pixel_budget() -> None:
    sizes = [MAX_RENDER_PIXELS] * 6 + [100.0] * 20
    batches = list(ocr._batches(sizes, float, 4))
    assert [x for batch in batches for x in batch] == sizes  # all, in order
    assert all(len(b) <= 4 and (len(b) == 1 or sum(b) <= ocr.PIXELS_IN_FLIGHT) for b in batches)
    assert list(ocr._batches([10 * ocr.PIXELS_IN_FLIGHT], float, 4)) == [[10 * ocr.PIXELS_IN_FLIGHT]]  # one alone
