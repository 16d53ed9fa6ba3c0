"""Read a MinerU output folder into our parser output (:class:`~bookrag_neo4j.parsing.blocks.ParsedDocument`).

    doc = load_mineru_output(Path("out/report"))  # or run_mineru(Path("report.pdf"), Path("out")) first

MinerU writes ``<name>_content_list.json`` (blocks in reading order), ``<name>_middle.json`` (page sizes, boxes in
PDF points) and ``images/``; the content list is required, middle.json adds page sizes and exact boxes. Titles keep
MinerU's ``text_level`` as ``heading_level`` (:mod:`~bookrag_neo4j.tree.headings`), page furniture is dropped,
and items become blocks in :mod:`.mineru_blocks`, placed by :mod:`.mineru_boxes`.
Handled: magic-pdf 0.9-1.3 and mineru 2.0-2.1 (no ``bbox``: boxes from middle.json), mineru 2.2+ (``bbox`` 0-1000)
and the 2.5+ VLM/hybrid extras (list, code, chart, seal); MinerU 4.0's ``*_content_list_v2.json`` is not read.
Format sources: MinerU's ``docs/en/reference/output_files.md`` and changelog, and its ``*_mkcontent.py`` backends.
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
