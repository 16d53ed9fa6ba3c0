"""Uploaded PDFs for the web app: the request body read as it streams in, refused as soon as it passes the size
limit (at once when its Content-Length says so), the PDF checked as the CLI checks one and kept as
``<uploads>/<hash>/<name>``. Nothing stays on disk when an upload is refused, and every message names the file
as the person sent it.

    path, name = await receive_pdf(request, settings.upload_dir, max_mb=100)   # name: for the page
    forget_upload(path, settings.upload_dir)                                    # after the document is deleted

A name longer than file systems take (255 bytes) is kept shortened to ``MAX_NAME_BYTES``, its extension kept.
"""

from __future__ import annotations

import logging
import re
import shutil
import tempfile
from pathlib import Path

from starlette.datastructures import UploadFile
from starlette.requests import Request
from starlette.types import Message

from ..errors import DocumentError
from ..hashing import sha256_file
from ..parsing.pymupdf_parser import open_pdf

log = logging.getLogger(__name__)
MIB = 1 << 20
FORM_SLACK = 64 << 10  # bytes of multipart framing (boundaries, part headers) a body may add around the file
MAX_NAME_BYTES = 200
FIELD = "pdf"  # the form field the library page's upload form sends


class UploadTooLargeError(DocumentError):
    """The upload is larger than ``serve_max_upload_mb`` (the page answers 413)."""


async def receive_pdf(request: Request, uploads: Path, max_mb: int) -> tuple[Path, str]:
    """The PDF of a ``multipart/form-data`` upload saved under ``uploads``, and its name as sent."""
    limit = max_mb * MIB + FORM_SLACK
    too_large = f"the upload is larger than {max_mb} MiB (BOOKRAG_SERVE_MAX_UPLOAD_MB)"
    declared = request.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > limit:
        raise UploadTooLargeError(too_large)
    received = 0

    async def receive() -> Message:  # counts the body as it arrives: the parser never reads past the limit
        nonlocal received
        message = await request.receive()
        received += len(message.get("body", b""))
        if received > limit:
            raise UploadTooLargeError(too_large)
        return message

    form = await Request(request.scope, receive).form(max_files=1, max_fields=8)
    try:
        upload = form.get(FIELD)
        if not isinstance(upload, UploadFile):
            raise DocumentError("choose a PDF file to upload")
        name = display_name(upload.filename or "")
        return await _save_pdf(upload, name, uploads, max_mb), name
    finally:
        await form.close()


def display_name(filename: str) -> str:
    """The file name a browser sent, without any folder (some send a Windows path) or control characters."""
    return re.sub(r"[\x00-\x1f\x7f]", "_", filename.replace("\\", "/").rsplit("/", 1)[-1]).strip()


def shortened_name(name: str) -> str:
    """``name`` as it is kept on disk: at most ``MAX_NAME_BYTES`` of UTF-8, cut at a character and ending in its
    extension."""
    if len(name.encode("utf-8", "replace")) <= MAX_NAME_BYTES:
        return name
    suffix = Path(name).suffix
    room = MAX_NAME_BYTES - len(f"…{suffix}".encode())
    return name[:-len(suffix) or None].encode("utf-8", "replace")[:room].decode("utf-8", "ignore") + "…" + suffix


async def _save_pdf(upload: UploadFile, name: str, uploads: Path, max_mb: int) -> Path:
    if not name.lower().endswith(".pdf") or name.startswith("."):
        raise DocumentError(f"{name or 'the upload'} is not a .pdf file")
    uploads.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(dir=uploads, prefix=".part-"))  # the file keeps its own name while checked
    try:
        temp, size = work / shortened_name(name), 0
        with temp.open("wb") as out:
            while chunk := await upload.read(MIB):
                size += len(chunk)
                if size > max_mb * MIB:
                    raise UploadTooLargeError(f"{name} is larger than {max_mb} MiB (BOOKRAG_SERVE_MAX_UPLOAD_MB)")
                out.write(chunk)
        if size == 0:
            raise DocumentError(f"{name} is empty")
        try:
            open_pdf(temp)[0].close()  # corrupt, encrypted or empty PDFs: DocumentError
        except DocumentError as exc:  # it names the file on disk, which a long name shortened
            raise DocumentError(" ".join(str(exc).replace(temp.name, name).split())) from exc
        target = uploads / sha256_file(temp)[:16] / temp.name
        target.parent.mkdir(exist_ok=True)
        temp.replace(target)
        log.info("saved the upload %s as %s", name, target)
        return target
    finally:
        shutil.rmtree(work, ignore_errors=True)


def forget_upload(path: Path, uploads: Path) -> None:
    """Remove a deleted document's uploaded PDF (never a file outside the uploads folder)."""
    if path.is_relative_to(uploads) and path.is_file():
        path.unlink()
        if not any(path.parent.iterdir()):
            path.parent.rmdir()
