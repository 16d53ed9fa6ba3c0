"""Layers built when a question first needs them: the build wing's side of a method's ``needs``
(:class:`~bookrag_neo4j.methods.method_registry.LayerBuilder`), handed to the question path by the doors, so that the
question path itself imports nothing of index time.

    layers = OnDemandLayers(db, settings)
    await layers.ensure("layout", doc, models)   # SuperRAG's layer, unless it is built with this config
    await layers.ensure("g2", doc, models)       # G²-Reader's content graph, and the layout layer under it

One asker builds, however many arrive together, in one process or many: the builder holds the document's layers
lease (:func:`~bookrag_neo4j.index.leases.under_lease`); the others wait, and find the layer current when it is
theirs (without it two askers built the same layer at once: one deleted what the other wrote, and their GDS
projections collided).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from ..config import Settings
from ..db.client import Neo4jClient
from ..library.documents import Document, get_document
from ..library.layers import Layer, layer_current
from ..llm.factory import Models
from .leases import LeaseManager, layers_key, under_lease


class OnDemandLayers:
    """Builds a layer a method reads that a document lacks (or has with another config), once."""

    def __init__(self, db: Neo4jClient, settings: Settings) -> None:
        self.db = db
        self.settings = settings

    async def ensure(self, layer: Layer, doc: Document, models: Models) -> None:
        """``layer`` of ``doc`` (``layout``, or ``g2``: the content graph, with the layout layer under it), built
        unless current (:func:`~bookrag_neo4j.library.layers.layer_current`, the check a method makes before asking;
        here again once the lease is held, on the document read afresh: another process may have built it). The
        builders (and the PDF parser) are imported here, by the methods that read a layer, not by every question."""
        from ..content.build import ContentGraphBuilder
        from ..layout.build import LayoutBuilder

        build: Callable[[str], Awaitable[object]]
        if layer == "layout":
            build = LayoutBuilder(self.db, self.settings, models.embedder).build
        elif layer == "g2":
            llm = models.llm if self.settings.g2.evolution == "llm" else None
            build = ContentGraphBuilder(self.db, self.settings, models.embedder, llm=llm).build
        else:
            raise ValueError(f"the {layer} layer is built by indexing, not on a question's demand")
        llm_name = models.llm.name if models.llm else None

        async def built() -> bool:
            fresh = await get_document(self.db, doc.key)
            return fresh is not None and layer_current(layer, fresh, self.settings, models.embedder.name, llm_name)

        if not layer_current(layer, doc, self.settings, models.embedder.name, llm_name):
            await under_lease(LeaseManager(self.db, ttl=self.settings.indexing.index_lease_seconds),
                              layers_key(doc.key), lambda: build(doc.key), name=doc.name, done=built)
