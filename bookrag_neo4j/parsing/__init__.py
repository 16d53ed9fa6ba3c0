"""Layout parsing: a PDF (PyMuPDF) or MinerU output becomes a :class:`ParsedDocument` of :class:`Block`s."""

from .blocks import Block, BlockKind, OutlineEntry, ParsedDocument

__all__ = ["Block", "BlockKind", "OutlineEntry", "ParsedDocument"]
