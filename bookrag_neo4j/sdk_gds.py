"""Graph Data Science through its Python client, for :class:`~bookrag_neo4j.sdk.BookRAG`: the ``graphdatascience``
client on the library's server and a document's entity graph projected for its algorithms (sync, as the client is).

    with rag.entity_graph("annual-report-2017.pdf") as G:    # dropped after the block
        communities = rag.gds.leiden.stream(G)
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from typing import TYPE_CHECKING

from .db import analytics
from .server import connection_info

if TYPE_CHECKING:
    from graphdatascience import Graph, GraphDataScience
    from pandas import DataFrame

    from .config import Settings
    from .library.documents import Document


class GdsAccess:
    """The GDS part of the SDK; the class using it has ``settings``, ``_gds``, ``document`` and ``adocument``."""

    settings: Settings
    _gds: GraphDataScience | None

    if TYPE_CHECKING:
        def document(self, doc: str) -> Document: ...

        async def adocument(self, doc: str) -> Document: ...

    @property
    def gds(self) -> GraphDataScience:
        """A ``graphdatascience`` client on this library's server and database (made on first use, closed by
        :meth:`close`): its algorithms return pandas DataFrames, e.g. ``rag.gds.page_rank.stream(G)``."""
        if self._gds is None:
            self._gds = analytics.open_gds(connection_info(self.settings))
        return self._gds

    @contextmanager
    def entity_graph(self, doc: str) -> Iterator[Graph]:
        """A document's entity graph projected into GDS (entities, undirected ``RELATED``/``CONTAINED_IN`` with
        their ``weight``) under a unique name, dropped when the block ends (also on error): ``with
        rag.entity_graph("R-intro.pdf") as G: rag.gds.louvain.stream(G)``."""
        with analytics.entity_graph(self.gds, self.document(doc).key) as G:
            yield G

    @asynccontextmanager
    async def aentity_graph(self, doc: str) -> AsyncIterator[Graph]:
        """The async twin of :meth:`entity_graph` (projection and drop on a worker thread)."""
        key = (await self.adocument(doc)).key
        async with analytics.aentity_graph(await asyncio.to_thread(lambda: self.gds), key) as G:
            yield G

    def entity_table(self, G: Graph) -> DataFrame:
        """The entities of an :meth:`entity_graph`, one row a node, to join its streams on ``nodeId``: ``key``,
        ``name``, ``type``, ``degree``, ``mentions`` (GT-Links), ``chapter`` (its top-level section with most)."""
        return analytics.entity_table(self.gds, G)
