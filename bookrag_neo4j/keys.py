"""Every key the index stores, derived in one place. Keys are content hashes, so indexing the same content again
writes the same keys (every write is a ``MERGE`` on them) and an existing index stays valid; changing any
function here orphans what is stored.

    doc = document_key(content_hash)            # 32 hex digits of the file's SHA-256
    page_key(doc, 3)                            # "<16 of doc>-p3"
    entity_key(doc, "PERSON|ada lovelace")      # "<16 of doc>-e<24 hex digits>"

Pages, tree nodes, entities and extracted images of a document all start with :func:`key_prefix` of its key.
A file's name and path are stored (and shown) through :func:`stored_name` and :func:`stored_path`: bytes that are
not UTF-8 become ``\\xNN``, which Neo4j, JSON and a console all take; :func:`local_path` finds the file again.
"""

from __future__ import annotations

import hashlib
import os
import re
from pathlib import Path

from .hashing import sha256_file


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def document_key(content_hash: str) -> str:
    """A document's key: the first 32 hex digits of its content hash (the SHA-256 of the PDF or the MinerU
    content list)."""
    return content_hash[:32]


def file_key(path: Path) -> str:
    """The key a PDF gets, from its file alone (known before parsing: an unchanged PDF is not parsed again)."""
    return document_key(sha256_file(path))


def stored_text(text: str) -> str:
    """A file name or path as the index stores and shows it: valid UTF-8 as it is; bytes that are not (Python
    holds them as surrogate escapes, ``\\udcff``) written as ``\\xff``, so any file name can be indexed."""
    try:
        return text.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
    except UnicodeEncodeError:  # a lone surrogate that no file-name byte made
        return text.encode("utf-8", "backslashreplace").decode("utf-8")


def stored_name(path: Path | str) -> str:
    """The name a document is stored and shown under: its file's name through :func:`stored_text`
    (``bad\\xff\\xfename.pdf``). Messages name a file this way too."""
    return stored_text(Path(path).name)


def stored_path(path: Path | str) -> str:
    """The absolute path a document is stored with, through :func:`stored_text`."""
    return stored_text(str(Path(path).absolute()))


_ESCAPED_BYTE = re.compile(rb"\\x([0-9a-f]{2})")


def local_path(stored: str) -> Path:
    """The file a stored path (:func:`stored_path`) names: the path as written when it exists, else with its
    ``\\xNN`` escapes turned back into the bytes of the file's name."""
    path = Path(stored)
    if "\\x" not in stored or path.exists():
        return path
    raw = _ESCAPED_BYTE.sub(lambda m: bytes([int(m[1], 16)]), stored.encode("utf-8"))
    return Path(os.fsdecode(raw))


def key_prefix(doc_key: str) -> str:
    """The 16 hex digits every key (and image file name) of a document's parts starts with; ``doc_key`` may
    also be the full content hash."""
    return doc_key[:16]


def page_key(doc_key: str, number: int) -> str:
    return f"{key_prefix(doc_key)}-p{number}"


def node_key(doc_key: str, order: int, kind: str, title: str, text: str) -> str:
    """A tree node's key from its place in reading order and its content; the document node's key is the
    document's."""
    if kind == "document":
        return doc_key
    return f"{key_prefix(doc_key)}-{_digest(f'{doc_key}|{order}|{kind}|{title}|{text}')[:24]}"


def entity_key(doc_key: str, identity: str) -> str:
    """An entity's key from its identity within the document (see :mod:`bookrag_neo4j.kg.resolve`)."""
    return f"{key_prefix(doc_key)}-e{_digest(f'{doc_key}|{identity}')[:24]}"


def image_file_name(doc_key: str, page: int, index: int) -> str:
    """The file an image block is saved to: the ``index``-th image of page ``page``."""
    return f"{key_prefix(doc_key)}-p{page:04d}-{index}.png"


def image_file_glob(doc_key: str) -> str:
    """A glob matching every image file of the document (see :func:`image_file_name`)."""
    return f"{key_prefix(doc_key)}-p*.png"


def layout_key(doc_key: str, part: str, identity: str) -> str:
    """A key of the layout layer (:mod:`bookrag_neo4j.layout`): ``part`` names the kind ("toc", "passage",
    "row") and ``identity`` its place and content within the document, so rebuilding writes the same keys."""
    return f"{key_prefix(doc_key)}-{part[0]}{_digest(f'{doc_key}|{part}|{identity}')[:24]}"


def term_key(text: str) -> str:
    """A library-wide ``(:Keyword)`` or ``(:Stem)`` key: the normalised term itself (shared by documents)."""
    return " ".join(text.lower().split())
