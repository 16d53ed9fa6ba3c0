"""The MCP server's resources and prompts: every page of every indexed PDF as a PNG resource (a template, so that a
library of thousands of pages lists one entry), which each citation names in its ``page_image``; and a prompt that
asks a question the way the tools work best (retrieve, read the evidence, cite it)."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from .api_models import PAGE_URI
from .keys import local_path
from .library.page_images import render_page

if TYPE_CHECKING:
    from mcp.server.mcpserver import MCPServer

    from .sdk import BookRAG

PAGE_SCALE = 1.5  # 108 dpi: small print stays legible, a US Letter page is about 1.3 million pixels


def add_pages_and_prompts(server: MCPServer, rag: BookRAG) -> None:
    """Register the page resource template and the prompt on ``server``."""
    from mcp.server.mcpserver.exceptions import ResourceError

    from .errors import BookRAGError

    @server.resource(PAGE_URI, name="page", mime_type="image/png", description=(
        "A page of an indexed PDF as a PNG image: `doc` a document's key or file name (list_documents), `page` "
        "1-based, as citations count; each citation's page_image is one."))
    async def page(doc: str, page: str) -> bytes:
        if not page.isdigit():
            raise ResourceError(f"page must be a page number, got {page!r}")
        try:
            found = await rag.adocument(doc)
            return await asyncio.to_thread(render_page, local_path(found.path), int(page), scale=PAGE_SCALE)
        except BookRAGError as exc:  # no such document or page, or its PDF moved: one line, not a traceback
            raise ResourceError(f"{type(exc).__name__}: {exc}") from exc

    @server.prompt(name="ask_the_library", description=(
        "Answer a question from the indexed documents with cited evidence (document, section, pages)."))
    def ask_the_library(question: str, docs: str = "") -> str:
        scope = f"the documents {docs}" if docs else "the whole library (list_documents shows what is in it)"
        return (f"Answer this question from {scope}: {question}\n\n"
                "Call retrieve with the question" + (f" and docs={docs!r}" if docs else "") + ". Read the evidence, "
                "answer only from it, and cite each claim with its citation label (document, section path, pages). "
                "If the evidence does not answer the question, say so and name what you looked at; look at a "
                "page's image (its page_image resource) when a table or figure matters.")
