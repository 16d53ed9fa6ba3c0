"""The MinerU adapter turns a MinerU output folder (content list + middle.json + images) into our blocks."""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from bookrag_neo4j.errors import DocumentError
from bookrag_neo4j.parsing.blocks import ParsedDocument
from bookrag_neo4j.parsing.mineru import load_mineru_output
from bookrag_neo4j.parsing.mineru_blocks import html_table_to_rows
from bookrag_neo4j.parsing.tables import to_markdown as rows_to_markdown

from ..helpers.pdfs import MINERU_SAMPLE as FIXTURE

CONTENT = FIXTURE / "sample_content_list.json"
MIDDLE = FIXTURE / "sample_middle.json"


@pytest.fixture(scope="module")
def doc() -> ParsedDocument:
    return load_mineru_output(FIXTURE)


def middle_boxes() -> dict[int, list[tuple[float, ...]]]:
    """Page (1-based) -> the para_block boxes of middle.json, in order."""
    data = json.loads(MIDDLE.read_text(encoding="utf-8"))
    return {page["page_idx"] + 1: [tuple(b["bbox"]) for b in page["para_blocks"]] for page in data["pdf_info"]}


def copy_fixture(tmp_path: Path, *, middle: bool = True) -> Path:
    target = tmp_path / "sample" / "vlm"
    shutil.copytree(FIXTURE, target)
    if not middle:
        (target / MIDDLE.name).unlink()
    return tmp_path / "sample"


def rewrite_items(folder: Path, change: Any) -> None:
    path = next(folder.rglob("*_content_list.json"))
    items = json.loads(path.read_text(encoding="utf-8"))
    path.write_text(json.dumps(change(items), ensure_ascii=False), encoding="utf-8")


# --------------------------------------------------------------------------------------------- the fixture


def test_kinds_and_order_follow_the_content_list(doc: ParsedDocument) -> None:
    assert [(b.page, b.kind) for b in doc.blocks] == [
        (1, "title"),
        (1, "text"),
        (1, "title"),
        (1, "text"),
        (1, "image"),
        (2, "title"),
        (2, "text"),
        (2, "table"),
        (2, "text"),
        (2, "equation"),
        (2, "text"),
        (2, "list"),
    ]
    assert doc.blocks[1].text.startswith("This handbook summarises how to choose")
    assert doc.blocks[-1].text == (
        "Check cell temperature before charging.\nKeep the state of charge between 20 % and 80 % in storage."
    )


def test_heading_levels_and_document_metadata(doc: ParsedDocument) -> None:
    titles = [(b.text, b.heading_level) for b in doc.blocks if b.kind == "title"]
    assert titles == [("Battery Storage for Small Grids", 1), ("1 Cell chemistry", 2), ("2 Sizing the bank", 2)]
    assert all(b.heading_level is None for b in doc.blocks if b.kind != "title")
    assert doc.title == "Battery Storage for Small Grids"
    assert doc.parser == "mineru"
    assert doc.outline == []
    assert doc.content_hash == hashlib.sha256(CONTENT.read_bytes()).hexdigest()
    assert doc.path == CONTENT.resolve()
    assert doc.warnings == []


def test_pages_are_one_based_with_sizes_from_middle_json(doc: ParsedDocument) -> None:
    raw_pages = {item["page_idx"] for item in json.loads(CONTENT.read_text(encoding="utf-8"))}
    assert raw_pages == {0, 1}
    assert {b.page for b in doc.blocks} == {1, 2}
    assert doc.page_count == 2
    assert doc.page_sizes == {1: (612.0, 792.0), 2: (612.0, 792.0)}


def test_image_caption_footnote_and_absolute_path(doc: ParsedDocument) -> None:
    image = next(b for b in doc.blocks if b.kind == "image")
    assert image.caption == "Figure 1. Discharge curves of LFP and NMC cells at 0.5C."
    assert image.text == ("Figure 1. Discharge curves of LFP and NMC cells at 0.5C.\nMeasured at 25 °C ambient temperature.")
    path = Path(image.image_path)
    assert path.is_absolute() and path.is_file()
    assert path.parent == (FIXTURE / "images").resolve()
    assert path.read_bytes().startswith(b"\x89PNG\r\n\x1a\n")


def test_table_html_markdown_and_expanded_spans(doc: ParsedDocument) -> None:
    table = next(b for b in doc.blocks if b.kind == "table")
    assert 'colspan="2"' in table.table_html and table.table_html.startswith("<html><body><table>")
    assert table.caption == "Table 1. Typical cell parameters."
    assert (table.table_rows, table.table_cols) == (4, 4)
    assert table.cells[:2] == [
        ["Chemistry", "Energy density", "Energy density", "Cycle life"],
        ["Chemistry", "Wh/kg", "Wh/L", "Cycle life"],
    ]
    assert table.table_markdown == "\n".join(
        [
            "| Chemistry | Energy density | Energy density | Cycle life |",
            "| --- | --- | --- | --- |",
            "| Chemistry | Wh/kg | Wh/L | Cycle life |",
            "| LFP | 160 | 350 | 6000 |",
            "| NMC | 250 | 650 | 2000 |",
        ]
    )
    assert table.text.splitlines() == [
        "Table 1. Typical cell parameters.",
        "Chemistry | Energy density | Energy density | Cycle life",
        "Chemistry | Wh/kg | Wh/L | Cycle life",
        "LFP | 160 | 350 | 6000",
        "NMC | 250 | 650 | 2000",
        "Values at 25 °C and 80 % depth of discharge.",
    ]


def test_equation_is_bare_latex(doc: ParsedDocument) -> None:
    equation = next(b for b in doc.blocks if b.kind == "equation")
    assert equation.text == (
        "E _ { \\mathrm { u s a b l e } } = C _ { \\mathrm { n o m } } \\cdot V _ { \\mathrm { n o m } } "
        "\\cdot \\mathrm { D o D }"
    )
    assert "$" not in equation.text


def test_headers_and_page_numbers_are_dropped(doc: ParsedDocument) -> None:
    items = json.loads(CONTENT.read_text(encoding="utf-8"))
    assert sorted(i["type"] for i in items if i["type"] in {"header", "page_number"}) == [
        "header",
        "header",
        "page_number",
        "page_number",
    ]
    texts = [b.text for b in doc.blocks]
    assert "Battery Storage Handbook, draft 3" not in texts
    assert "1" not in texts and "2" not in texts
    assert len(doc.blocks) == len(items) - 4


def test_bboxes_are_middle_json_points(doc: ParsedDocument) -> None:
    boxes = middle_boxes()
    assert [b.bbox for b in doc.blocks if b.page == 1] == boxes[1]
    assert [b.bbox for b in doc.blocks if b.page == 2] == boxes[2]
    assert [b.lines for b in doc.blocks[:4]] == [1, 3, 1, 4]


# --------------------------------------------------------------------------------------------- format variants


def test_without_item_bboxes_boxes_come_from_middle_json_by_text(tmp_path: Path) -> None:
    """mineru < 2.2 (and magic-pdf) wrote no bbox: boxes are matched from middle.json, by text, not position."""
    folder = copy_fixture(tmp_path)

    def strip(items: list[dict]) -> list[dict]:
        for item in items:
            del item["bbox"]
        return items

    rewrite_items(folder, strip)
    middle_path = next(folder.rglob("*_middle.json"))
    middle = json.loads(middle_path.read_text(encoding="utf-8"))
    middle["pdf_info"][0]["para_blocks"].reverse()  # matching must not depend on the order alone
    middle_path.write_text(json.dumps(middle), encoding="utf-8")

    doc = load_mineru_output(folder)
    boxes = middle_boxes()
    assert [b.bbox for b in doc.blocks if b.page == 1] == boxes[1]
    assert [b.bbox for b in doc.blocks if b.page == 2] == boxes[2]
    assert doc.warnings == []


def test_a_short_title_does_not_match_a_paragraph_that_contains_its_words(tmp_path: Path) -> None:
    items = [
        {"type": "text", "text": "Introduction", "text_level": 1, "page_idx": 0},
        {"type": "text", "text": "This introduction explains the method in detail.", "page_idx": 0},
    ]
    para = {
        "type": "text",
        "bbox": [72, 120, 540, 160],
        "lines": [
            {
                "bbox": [72, 120, 540, 160],
                "spans": [
                    {
                        "bbox": [72, 120, 540, 160],
                        "type": "text",
                        "content": "This introduction explains the method in detail.",
                    }
                ],
            }
        ],
    }
    title = {
        "type": "title",
        "bbox": [72, 80, 200, 96],
        "lines": [
            {"bbox": [72, 80, 200, 96], "spans": [{"bbox": [72, 80, 200, 96], "type": "text", "content": "Introduction"}]}
        ],
    }
    middle = {"pdf_info": [{"page_idx": 0, "page_size": [612, 792], "para_blocks": [para, title]}]}  # fmt: skip
    (tmp_path / "x_content_list.json").write_text(json.dumps(items), encoding="utf-8")
    (tmp_path / "x_middle.json").write_text(json.dumps(middle), encoding="utf-8")
    doc = load_mineru_output(tmp_path)
    assert [b.bbox for b in doc.blocks] == [(72.0, 80.0, 200.0, 96.0), (72.0, 120.0, 540.0, 160.0)]


def test_ligatures_in_middle_json_spans_still_match(tmp_path: Path) -> None:
    items = [{"type": "text", "text": "Official figures of flow", "page_idx": 0}]
    span = {"bbox": [88, 170, 452, 186], "type": "text", "content": "Of\ufb01cial \ufb01gures of \ufb02ow"}
    block = {"type": "text", "bbox": [88, 170, 452, 186], "lines": [{"bbox": [88, 170, 452, 186], "spans": [span]}]}
    middle = {"pdf_info": [{"page_idx": 0, "page_size": [544, 743], "para_blocks": [block]}]}
    (tmp_path / "x_content_list.json").write_text(json.dumps(items), encoding="utf-8")
    (tmp_path / "x_middle.json").write_text(json.dumps(middle), encoding="utf-8")
    assert load_mineru_output(tmp_path).blocks[0].bbox == (88.0, 170.0, 452.0, 186.0)


def test_without_middle_json_boxes_stay_normalised_with_a_warning(tmp_path: Path) -> None:
    doc = load_mineru_output(copy_fixture(tmp_path, middle=False))
    assert doc.page_sizes == {}
    assert doc.blocks[0].bbox == (118.0, 88.0, 766.0, 121.0)
    assert any("0-1000" in w for w in doc.warnings)
    assert [b.kind for b in doc.blocks][-1] == "list"


def test_own_bbox_is_converted_with_the_page_size(tmp_path: Path) -> None:
    folder = copy_fixture(tmp_path)

    def move(items: list[dict]) -> list[dict]:
        items[0]["bbox"] = [500, 500, 1000, 750]  # no longer the middle.json block's box
        return items

    rewrite_items(folder, move)
    doc = load_mineru_output(folder)
    assert doc.blocks[0].bbox == (306.0, 396.0, 612.0, 594.0)


def test_magic_pdf_style_items(tmp_path: Path) -> None:
    """magic-pdf 0.x-1.x: img_caption/img_footnote, no bbox, no middle.json: default boxes and a warning."""
    folder = tmp_path / "old" / "auto"
    folder.mkdir(parents=True)
    items = [
        {"type": "text", "text": "Old Report ", "text_level": 1, "page_idx": 0},
        {"type": "text", "text": "", "page_idx": 0},
        {"type": "image", "img_path": "images/a.jpg", "img_caption": ["Fig. 1. A map. "], "img_footnote": [],
         "page_idx": 2},
        {"type": "table", "img_path": "images/t.jpg", "table_caption": [], "table_footnote": [], "page_idx": 2},
        {"type": "equation", "img_path": "images/e.jpg", "page_idx": 2},
        {"type": "equation", "text": "$$\nx = 1\n$$", "text_format": "latex", "page_idx": 2},
    ]  # fmt: skip
    (folder / "old_content_list.json").write_text(json.dumps(items), encoding="utf-8")
    doc = load_mineru_output(tmp_path / "old")
    assert [(b.kind, b.page) for b in doc.blocks] == [
        ("title", 1),
        ("image", 3),
        ("table", 3),
        ("equation", 3),
        ("equation", 3),
    ]
    assert (doc.blocks[3].text, Path(doc.blocks[3].image_path).name) == ("", "e.jpg")
    assert doc.blocks[4].text == "x = 1"
    assert doc.blocks[1].caption == "Fig. 1. A map."
    assert doc.blocks[1].image_path == str((folder / "images" / "a.jpg").resolve())
    assert doc.blocks[2].table_markdown == "" and doc.blocks[2].table_rows == 0
    assert doc.page_count == 3
    assert all(b.bbox == (0.0, 0.0, 0.0, 0.0) for b in doc.blocks)
    assert any("no bounding box" in w for w in doc.warnings)
    assert any("missing" in w for w in doc.warnings)
    assert doc.title == "Old Report"


def test_title_falls_back_to_the_folder_name(tmp_path: Path) -> None:
    folder = tmp_path / "annual-report"
    folder.mkdir()
    items = [{"type": "text", "text": "Body only.", "page_idx": 0}]
    (folder / "annual-report_content_list.json").write_text(json.dumps(items), encoding="utf-8")
    assert load_mineru_output(folder).title == "annual-report"


# --------------------------------------------------------------------------------------------- errors


def test_missing_folder_is_a_document_error(tmp_path: Path) -> None:
    with pytest.raises(DocumentError, match="does not exist"):
        load_mineru_output(tmp_path / "nope")


def test_folder_without_content_list_is_a_document_error(tmp_path: Path) -> None:
    (tmp_path / "report_middle.json").write_text("{}", encoding="utf-8")
    with pytest.raises(DocumentError, match="no \\*_content_list.json"):
        load_mineru_output(tmp_path)


def test_several_content_lists_are_a_document_error(tmp_path: Path) -> None:
    for name in ("a", "b"):
        (tmp_path / name).mkdir()
        (tmp_path / name / f"{name}_content_list.json").write_text("[]", encoding="utf-8")
    with pytest.raises(DocumentError, match="2 \\*_content_list.json"):
        load_mineru_output(tmp_path)


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ('[{"type": "text", "text": "x", "page_idx": 0}', "broken JSON"),
        ("", "empty"),
        ("[]", "empty"),
        ('{"pdf_info": []}', "JSON list"),
        ('[{"type": "text", "text": "x"}]', "page_idx"),
    ],
)
def test_broken_content_list_is_a_document_error(tmp_path: Path, content: str, message: str) -> None:
    (tmp_path / "doc_content_list.json").write_text(content, encoding="utf-8")
    with pytest.raises(DocumentError, match=message) as info:
        load_mineru_output(tmp_path)
    assert "doc_content_list.json" in str(info.value)


def test_broken_middle_json_is_a_document_error(tmp_path: Path) -> None:
    folder = copy_fixture(tmp_path)
    next(folder.rglob("*_middle.json")).write_text('{"pdf_info": [', encoding="utf-8")
    with pytest.raises(DocumentError, match="sample_middle.json: broken JSON"):
        load_mineru_output(folder)


# --------------------------------------------------------------------------------------------- HTML tables


def test_html_table_spans_nesting_and_markdown_escaping() -> None:
    html = (
        "<table><thead><tr><th>A</th><th colspan='2'>B &amp; C</th></tr></thead>"
        "<tbody><tr><td rowspan=3>x<br>y</td><td>1|2</td><td>3</td></tr>"
        "<tr><td><table><tr><td>inner</td></tr></table></td><td>4</td></tr>"
        "<tr><td>5</td></tr></tbody></table>"
    )
    rows = html_table_to_rows(html)
    assert rows == [
        ["A", "B & C", "B & C"],
        ["x y", "1|2", "3"],
        ["x y", "inner", "4"],
        ["x y", "5", ""],
    ]
    assert rows_to_markdown(rows).splitlines()[2] == "| x y | 1\\|2 | 3 |"
    assert html_table_to_rows("<p>no table</p>") == []
    assert html_table_to_rows("<table><tr><td>open") == [["open"]]
