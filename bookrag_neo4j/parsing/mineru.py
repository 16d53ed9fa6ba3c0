"""Read a MinerU output folder into our parser output (:class:`~bookrag_neo4j.parsing.blocks.ParsedDocument`).

MinerU (``mineru -p report.pdf -o out``) writes ``out/report/<method>/report_content_list.json`` (the content
blocks in reading order), ``report_middle.json`` (pages, sizes and blocks with boxes in PDF points) and
``images/``. This adapter needs the content list; with middle.json it also knows page sizes and exact boxes::

    from pathlib import Path

    from bookrag_neo4j.parsing.mineru import load_mineru_output, run_mineru

    doc = load_mineru_output(Path("out/report"))  # or run_mineru(Path("report.pdf"), Path("out")) first
    print(doc.title, doc.page_count, len(doc.blocks))
    for block in doc.blocks:
        print(block.page, block.kind, block.heading_level, block.bbox, block.text[:60])

Titles keep MinerU's ``text_level`` as ``heading_level`` (the section level, or with LLM section filtering a
feature the LLM reads, see :mod:`~bookrag_neo4j.tree.headings`); page headers, footers and page numbers are dropped;
tables carry the HTML, a Markdown rendering and their size; images carry an absolute ``image_path``. The items
become blocks in :mod:`~bookrag_neo4j.parsing.mineru_blocks`, placed by :mod:`~bookrag_neo4j.parsing.mineru_boxes`.

Format sources (MinerU's output folder, as this adapter reads it):

* opendatalab/MinerU, docs/en/reference/output_files.md (published as
  https://opendatalab.github.io/MinerU/reference/output_files/): the ``*_content_list.json`` and
  ``*_middle.json`` layouts. Its 2.5-era revision documents the pipeline content list with ``bbox`` normalised
  to 0-1000, ``image_caption``/``image_footnote``, ``table_body`` HTML, equations as ``text`` + ``text_format:
  "latex"``, and the VLM-backend extensions (``list`` with ``list_items``, ``code`` with ``code_body``,
  discarded ``header``/``footer``/``page_number``/``aside_text``/``page_footnote`` items). An older revision of
  the same page (no ``bbox``) shows ``img_caption``/``img_footnote`` instead.
* opendatalab/MinerU, docs/en/reference/changelog.md: 2.2.0 added ``bbox`` (0-1000) to the content list; 2.5.x
  changed middle.json/content_list.json for the new VLM layout types; 2.0.0 renamed ``magic-pdf`` to ``mineru``.
* opendatalab/MinerU, mineru/backend/vlm/vlm_middle_json_mkcontent.py and
  mineru/backend/pipeline/pipeline_middle_json_mkcontent.py (2.x-4.0 alpha): how each para_block becomes a
  content-list item, ``bbox = int(x * 1000 / page_width)`` etc., para_blocks then discarded_blocks per page.
* opendatalab/MinerU, magic_pdf/dict2md/ocr_mkcontent.py (magic-pdf 0.x-1.x): the older item shapes
  (``img_caption``, no ``bbox``, title levels capped at 4).

Versions handled: magic-pdf 0.9-1.3 and mineru 2.0-2.1 (no ``bbox``; boxes come from middle.json), mineru 2.2+
(``bbox`` 0-1000), mineru 2.5+/2.7 VLM/hybrid extras (list, code, chart, seal, discarded page furniture).
MinerU 4.0 replaces these files with a new schema; ``*_content_list_v2.json`` is not read.
"""

from __future__ import annotations

import hashlib
import json
import logging
import shutil
import subprocess
from pathlib import Path
from typing import Any

from ..errors import DocumentError
from ..keys import file_key, key_prefix
from .blocks import ParsedDocument
from .mineru_blocks import BlockBuilder
from .mineru_boxes import PageBoxes, page_number

log = logging.getLogger(__name__)

CONTENT_LIST_SUFFIX = "_content_list.json"
MIDDLE_SUFFIX = "_middle.json"


def load_mineru_output(directory: Path) -> ParsedDocument:
    """Build a :class:`ParsedDocument` from a MinerU output folder (searched recursively).

    Raises :class:`DocumentError` when the folder is missing, holds no or several ``*_content_list.json``, or a
    JSON file is empty, broken or not shaped like MinerU's output.
    """
    directory = Path(directory)
    if not directory.exists():
        raise DocumentError(f"MinerU output folder {directory} does not exist")
    if not directory.is_dir():
        raise DocumentError(f"{directory} is not a folder (expected MinerU's output folder)")

    content_path = _find_content_list(directory)
    raw = content_path.read_bytes()
    items = _load_json(content_path, raw)
    if not isinstance(items, list):
        raise DocumentError(f"{content_path.name}: expected a JSON list of content items, got {type(items).__name__}")
    if not items:
        raise DocumentError(f"{content_path.name}: the content list is empty")

    middle_path = content_path.with_name(content_path.name[: -len(CONTENT_LIST_SUFFIX)] + MIDDLE_SUFFIX)
    if middle_path.is_file():
        boxes = PageBoxes.from_middle(_load_json(middle_path, middle_path.read_bytes()), middle_path.name)
    else:
        boxes = PageBoxes()
        log.info("no %s next to %s: boxes only from the content list", middle_path.name, content_path.name)

    builder = BlockBuilder(content_path.parent, boxes)
    max_page = max(boxes.pages, default=0)
    for index, item in enumerate(items):
        if not isinstance(item, dict):
            raise DocumentError(f"{content_path.name}: item {index} is a {type(item).__name__}, not an object")
        page = page_number(item.get("page_idx"), f"{content_path.name}: item {index}")
        max_page = max(max_page, page)
        builder.add(item, page)
    warnings = builder.finish()

    if not builder.blocks:
        raise DocumentError(f"{content_path.name}: no content blocks (only page headers, footers or empty items)")

    title = next(
        (b.text for b in builder.blocks if b.kind == "title" and b.heading_level == 1 and b.text),
        directory.resolve().name,
    )
    for warning in warnings:
        log.warning("%s: %s", content_path.name, warning)
    log.info(
        "read MinerU output %s: %d blocks on %d pages (%s)",
        content_path,
        len(builder.blocks),
        max_page,
        "with middle.json" if boxes.pages else "without middle.json",
    )
    return ParsedDocument(
        path=content_path.resolve(),
        content_hash=hashlib.sha256(raw).hexdigest(),
        title=title,
        page_count=max_page,
        blocks=builder.blocks,
        outline=[],
        page_sizes=boxes.sizes,
        parser="mineru",
        warnings=warnings,
    )


def run_mineru(pdf: Path, out_root: Path) -> Path:
    """Run MinerU's own CLI on a PDF (where the ``mineru`` package and its models are installed) and return
    its output folder for :func:`load_mineru_output`. Reuses an earlier run of the same file."""
    mineru = shutil.which("mineru")
    if mineru is None:
        raise DocumentError(
            "MinerU is not installed: pip install 'bookrag-neo4j[mineru]' and download its models, or run MinerU "
            "elsewhere and index its output with --mineru-output DIR"
        )
    out = out_root / key_prefix(file_key(pdf))
    if any(out.rglob(f"*{CONTENT_LIST_SUFFIX}")):
        return out
    proc = subprocess.run([mineru, "-p", str(pdf), "-o", str(out), "-b", "pipeline"], capture_output=True, text=True,
                          check=False)
    if proc.returncode != 0:
        raise DocumentError(f"MinerU failed on {pdf.name} (exit {proc.returncode}): {proc.stderr.strip()[-2000:]}")
    return out


def _find_content_list(directory: Path) -> Path:
    found = sorted(p for p in directory.rglob(f"*{CONTENT_LIST_SUFFIX}") if p.is_file())
    if not found:
        raise DocumentError(f"no *{CONTENT_LIST_SUFFIX} under {directory}: is this a MinerU output folder?")
    if len(found) > 1:
        listed = ", ".join(str(p.relative_to(directory)) for p in found)
        raise DocumentError(
            f"{len(found)} *{CONTENT_LIST_SUFFIX} files under {directory} ({listed}); pass the folder of one document"
        )
    return found[0]


def _load_json(path: Path, raw: bytes) -> Any:
    if not raw.strip():
        raise DocumentError(f"{path.name}: the file is empty")
    try:
        return json.loads(raw.decode("utf-8-sig"))
    except UnicodeDecodeError as exc:
        raise DocumentError(f"{path.name}: not UTF-8 text ({exc})") from exc
    except json.JSONDecodeError as exc:
        raise DocumentError(f"{path.name}: broken JSON ({exc})") from exc
