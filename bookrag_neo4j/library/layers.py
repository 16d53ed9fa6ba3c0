"""The one writer of a layer's build state on its ``(:Document)``: ``<layer>_status`` is 'building' while the layer
is made and 'complete' after, with its config, seconds, build time and figures; cleared when the layer is deleted.
The knowledge graph (``graph_``), the layout layer (``layout_``) and the content graph (``g2_``) share it, so a
reader (:class:`~bookrag_neo4j.library.documents.Document`) finds every layer's state under the same names.

A layer's config names what its build depends on (settings, models, the layer beneath); a complete layer with the
config the settings give is current: the builders leave it alone, and a question reads it without asking them.

    await mark_building(db, doc_key, "layout", config)
    await mark_complete(db, doc_key, "layout", config, seconds=12.3, figures=counts.properties())
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any, Literal

from ..config import Settings
from ..db.client import Neo4jClient
from .documents import ContentStatus, Document, LayoutStatus

Layer = Literal["graph", "layout", "g2"]
LAYERS: tuple[Layer, ...] = ("graph", "layout", "g2")
EvolutionMode = Literal["lite", "llm", "off"]  # how the content graph's node states evolve

LAYOUT_VERSION = "layout-v7"  # v4: a row's heading names its table; v5: REFERS_TO by tree.references; v6: labels
# from a number that starts or ends a running line; v7: a page between two numbered at one offset takes its number
G2_VERSION = "g2-v1"


def layout_config(settings: Settings, embedder: str) -> str:
    """The layout layer's config with these settings and the embedder named ``embedder``."""
    return (f"{LAYOUT_VERSION}|passages-{settings.layout.passage_words}w|kw-{settings.layout.keywords}"
            f"|knn-{settings.layout.knn_top_k}@{settings.layout.knn_cutoff}|{embedder}")


def content_config(settings: Settings, embedder: str, doc: Document, evolution: EvolutionMode, llm: str | None) -> str:
    """The content graph's config with these settings, on ``doc``'s layout layer as built (``llm``: the chat model
    that evolves node states, ``provider:model``, named when ``evolution`` is 'llm')."""
    model = f"|{llm}" if evolution == "llm" and llm is not None else ""
    return (f"{G2_VERSION}|{evolution}{model}|w{settings.g2.window}|T{settings.g2.rounds}|K{settings.g2.k}"
            f"|a{settings.g2.alpha}|h0-{settings.g2.node_embedding}|kw{settings.g2.keywords}|{embedder}"
            f"|{doc.layout_config}@{doc.layout_built_at}")


def layout_current(doc: Document, settings: Settings, embedder: str) -> bool:
    """Whether ``doc`` (as read) has a complete layout layer of this config, decided without a query."""
    return doc.layout is LayoutStatus.COMPLETE and doc.layout_config == layout_config(settings, embedder)


def layer_current(layer: Layer, doc: Document, settings: Settings, embedder: str, llm: str | None) -> bool:
    """Whether ``doc`` (as read) has ``layer`` (``layout``, or ``g2``: the content graph) current with these settings
    and models (``llm``: the chat model's name, read only when the content graph's states evolve by LLM)."""
    if layer == "graph":
        raise ValueError("the knowledge graph is built by indexing, not on a question's demand")
    if layer == "layout":
        return layout_current(doc, settings, embedder)
    return content_current(doc, settings, embedder, settings.g2.evolution, llm)


def content_current(doc: Document, settings: Settings, embedder: str, evolution: EvolutionMode, llm: str | None) -> bool:
    """Whether ``doc`` (as read) has a complete content graph of this config on a complete layout layer."""
    return (doc.layout is LayoutStatus.COMPLETE and doc.g2 is ContentStatus.COMPLETE
            and doc.g2_config == content_config(settings, embedder, doc, evolution, llm))


async def _set(db: Neo4jClient, doc_key: str, layer: Layer, props: Mapping[str, Any]) -> None:
    if layer not in LAYERS:
        raise ValueError(f"no layer {layer!r}")
    foreign = [name for name in props if not name.startswith(f"{layer}_")]
    if foreign:
        raise ValueError(f"{layer} layer properties must start with {layer}_: {foreign}")
    await db.write("library/set_layer_state", doc_key=doc_key, props=dict(props))


async def mark_building(db: Neo4jClient, doc_key: str, layer: Layer, config: str) -> None:
    """The layer is being (re)built with ``config``: readers treat it as missing until it is complete."""
    await _set(db, doc_key, layer, {f"{layer}_status": "building", f"{layer}_config": config})


async def mark_complete(db: Neo4jClient, doc_key: str, layer: Layer, config: str, *, seconds: float,
                        figures: Mapping[str, Any] = {}) -> None:
    """The layer is complete: its config, build seconds, build time (to the microsecond: a cache keyed by it never
    mistakes a rebuild in the same second for the old layer) and ``figures`` (properties named ``<layer>_...``)."""
    await _set(db, doc_key, layer, {
        f"{layer}_status": "complete", f"{layer}_config": config, f"{layer}_seconds": seconds,
        f"{layer}_built_at": datetime.now(UTC).isoformat(), **figures})


async def clear_state(db: Neo4jClient, doc_key: str, layer: Layer) -> None:
    """The layer was deleted: no status, no config."""
    await _set(db, doc_key, layer, {f"{layer}_status": None, f"{layer}_config": None})
