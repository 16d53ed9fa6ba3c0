"""The graph stage of the BookIndex: extract -> embed names -> resolve -> write, for one indexed document.

    builder = GraphBuilder(db, settings, models, use_llm=False)
    report = await builder.build(doc_key)      # report.entities, report.relations, report.er["merges"]

It writes ``(:Entity)`` nodes with ``MENTIONED_IN`` GT-Links to tree nodes, ``RELATED`` and ``CONTAINED_IN`` (a table's
headers) edges among them, and optional cross-document ``SAME_AS`` (schema: docs/knowledge-graph.md). The Document
records ``graph_status`` ('building' until everything is written, then 'complete'), ``graph_config`` and
``graph_built_at``. The same configuration again changes nothing; another one, ``force`` or an interrupted build
rebuilds the document's entities from scratch. Extractions are stored per node and model replies cached, so a rebuild
costs only resolution and writes.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections import OrderedDict
from collections.abc import Sequence
from typing import Any, Literal

from pydantic import BaseModel, Field

from ..config import Settings
from ..db.batching import batches
from ..db.client import Neo4jClient
from ..errors import ConfigurationError, DocumentError, ModelError
from ..library.catalogue import delete_entities
from ..library.documents import GraphCounts, GraphStatus, TreeStatus, get_document
from ..library.layers import mark_building, mark_complete
from ..llm.chat import ChatModel
from ..llm.factory import Models
from ..llm.prompts import render_prompt
from ..llm.reply_cache import ResponseCache
from ..llm.usage import track_usage
from ..progress import ProgressCallback, stage
from ..text.extraction import Extraction
from ..text.offline_extract import SpacyExtractor
from .er_scores import EntityScorer, NameScorer, RerankerScorer
from .extract import ExtractionStore, Extractor, extract_nodes, load_tree_nodes
from .llm_extract import LLMExtractor
from .resolve import Entity, Resolver

log = logging.getLogger(__name__)

MAX_DESCRIPTIONS = 5
NAME_CACHE = 50_000  # entity-name embeddings a builder keeps across documents (about 75 MB at 384 dimensions)


class DescriptionSummary(BaseModel):
    description: str


class GraphReport(GraphCounts):
    """What one graph build did, with its figures."""

    doc_key: str
    status: Literal["built", "unchanged"]
    config: str = ""
    tree_nodes: int = 0
    extracted_mentions: int = 0
    er: dict[str, float | int] = Field(default_factory=dict)
    seconds: dict[str, float] = Field(default_factory=dict)
    llm_usage: dict[str, dict[str, int]] = Field(default_factory=dict)
    warnings: list[str] = Field(default_factory=list)


class GraphBuilder:
    """Builds (or rebuilds) the knowledge graph and GT-Links of indexed documents."""

    def __init__(self, db: Neo4jClient, settings: Settings, models: Models, *, use_llm: bool = True,
                 progress: ProgressCallback | None = None, er_mode: Literal["gradient", "basic"] | None = None,
                 scorer: EntityScorer | None = None, extractor: Extractor | None = None) -> None:
        self.db = db
        self.settings = settings
        self.models = models
        self.llm: ChatModel | None = models.llm if use_llm else None
        self.er_mode = er_mode or settings.kg.er_mode
        self.progress = progress
        self.extractor = extractor or self._default_extractor()
        self.scorer = scorer or self._default_scorer()
        self.store = ExtractionStore(ResponseCache(settings.cache_dir / "extractions.sqlite"))
        self._name_vectors: OrderedDict[str, list[float]] = OrderedDict()  # name -> embedding, least recent first

    def _default_extractor(self) -> Extractor:
        choice = self.settings.kg.kg_extractor
        if choice == "llm" or (choice == "auto" and self.llm is not None):
            if self.llm is None:
                raise ConfigurationError("BOOKRAG_KG_EXTRACTOR=llm needs an LLM (and no --no-llm)")
            return LLMExtractor(self.llm, entity_types=self.settings.kg.entity_types, vlm=self.models.vlm)
        return SpacyExtractor()

    def _default_scorer(self) -> EntityScorer:
        choice = self.settings.kg.er_scorer
        if choice == "reranker" or (choice == "auto" and self.settings.models.reranker_provider != "fusion"):
            return RerankerScorer(self.models.reranker)
        return NameScorer()

    @property
    def config(self) -> str:
        s = self.settings.kg
        er = (f"gradient(exact,k={s.er_top_k},g={s.er_gradient},min={s.er_min_score},single={s.er_single_candidate_score},"
              f"floor={s.er_similarity_floor},scorer={self.scorer.fingerprint},"
              f"judge={self.llm.model if self.llm else '-'})" if self.er_mode == "gradient" else "basic")
        return f"{self.extractor.fingerprint}|{er}"

    async def build(self, doc_key: str, *, force: bool = False) -> GraphReport:
        """Build the document's graph unless it is complete with the same configuration and every node's LLM
        extraction succeeded."""
        doc = await get_document(self.db, doc_key)
        if doc is None or doc.tree is not TreeStatus.COMPLETE:
            raise DocumentError(f"document {doc_key!r} has no complete tree: index it first")
        if (not force and doc.graph is GraphStatus.COMPLETE and doc.graph_config == self.config
                and not doc.graph_counts.llm_failed):
            return GraphReport(doc_key=doc_key, status="unchanged", config=self.config,
                               **doc.graph_counts.model_dump())
        await mark_building(self.db, doc_key, "graph", self.config)
        await delete_entities(self.db, doc_key)
        with track_usage() as ledger:
            report = await self._build(doc_key, doc.title or doc.name)
        report.llm_usage = ledger.as_dict()
        usage = ledger.total()
        await mark_complete(self.db, doc_key, "graph", self.config, seconds=round(sum(report.seconds.values()), 2),
                            figures={"graph_llm_calls": usage.calls, "graph_tokens": usage.total_tokens,
                                     "graph_er_merges": int(report.er.get("merges", 0)), **report.properties()})
        return report

    async def _build(self, doc_key: str, document: str) -> GraphReport:
        seconds: dict[str, float] = {}
        began = time.perf_counter()
        nodes = await load_tree_nodes(self.db, doc_key)
        with stage(self.progress, "extracting entities", len(nodes)) as extracting:
            extractions, failed = await extract_nodes(
                nodes, self.extractor, store=self.store, document=document,
                concurrency=self.settings.models.llm_max_concurrency, progress=extracting.advance)
        seconds["extract"] = time.perf_counter() - began
        warnings = [f"entity extraction failed for {len(failed)} of {len(nodes)} nodes ({next(iter(failed.values()))}); "
                    "they keep their structural entities and the next build asks again"] if failed else []

        began = time.perf_counter()
        vectors = await self._embed_names(extractions)
        seconds["embed"] = time.perf_counter() - began

        began = time.perf_counter()
        s = self.settings
        resolver = Resolver(doc_key, mode=self.er_mode, scorer=self.scorer, llm=self.llm,
                            top_k=s.kg.er_top_k, gradient=s.kg.er_gradient, min_score=s.kg.er_min_score,
                            single_candidate_score=s.kg.er_single_candidate_score,
                            similarity_floor=s.kg.er_similarity_floor)
        relations: dict[tuple[str, str, str], list[Any]] = {}
        with stage(self.progress, f"resolving entities ({self.er_mode})", len(nodes)) as resolving:
            for node, extraction in zip(nodes, extractions, strict=True):
                keys = await resolver.add_node(node.key, extraction, [vectors.get(e.name) for e in extraction.entities])
                _collect_relations(relations, extraction, keys)
                resolving.advance()
                await asyncio.sleep(0)  # without an LLM nothing above waits: let the loop run between nodes
        seconds["resolve"] = time.perf_counter() - began

        began = time.perf_counter()  # the entities are written once, with everything resolution found
        entities = list(resolver.entities.values())
        descriptions = await self._descriptions(entities)
        rows = _relation_rows(relations)
        writes: list[tuple[str, list[dict[str, Any]]]] = [
            ("kg/merge_entities", [{"key": e.key, "props": {
                **resolver.properties(e), "description": descriptions[e.key], "aliases": e.aliases,
                "merges": e.merges, "merged_from": e.merged_from, "mentions": len(e.mentions)}} for e in entities]),
            ("kg/merge_mentions", [{"entity": e.key, "node": n} for e in entities for n in e.mentions]),
            ("kg/merge_related", [r for r in rows if r["kind"] == "RELATED"]),
            ("kg/merge_contained_in", [r for r in rows if r["kind"] == "CONTAINED_IN"]),
        ]
        with stage(self.progress, "writing the graph", len(writes)) as writing:
            for query, batch in writes:
                await self._write(query, batch, doc_key)
                writing.advance()
        mentions, related, contained = (batch for _, batch in writes[1:])
        same_as = 0
        if self.settings.kg.link_across_documents:
            (row,) = await self.db.write("kg/link_same_as", doc_key=doc_key)
            same_as = row["linked"]
        seconds["write"] = time.perf_counter() - began
        log.info("graph of %s: %d entities, %d relations, %d GT-Links", doc_key, len(entities), len(related),
                 len(mentions))
        return GraphReport(
            doc_key=doc_key, status="built", config=self.config, tree_nodes=len(nodes),
            extracted_mentions=sum(len(x.entities) for x in extractions), entities=len(entities),
            relations=len(related), contained_in=len(contained), gt_links=len(mentions), same_as=same_as,
            llm_failed=len(failed),
            er=resolver.stats.as_dict(), seconds={k: round(v, 3) for k, v in seconds.items()}, warnings=warnings,
        )

    async def _embed_names(self, extractions: Sequence[Extraction]) -> dict[str, list[float]]:
        """Each distinct name embedded once; names met in earlier documents of this builder come from its cache."""
        names = list(dict.fromkeys(e.name for x in extractions for e in x.entities))
        vectors = {name: self._name_vectors[name] for name in names if name in self._name_vectors}
        missing = [name for name in names if name not in vectors]
        with stage(self.progress, "embedding entity names", len(missing)) as embedding:
            for chunk in batches(missing, 512):
                vectors.update(zip(chunk, await self.models.embedder.embed(list(chunk)), strict=True))
                embedding.advance(len(chunk))
        for name in names:
            self._name_vectors[name] = vectors[name]
            self._name_vectors.move_to_end(name)
        while len(self._name_vectors) > NAME_CACHE:
            self._name_vectors.popitem(last=False)
        return vectors

    async def _descriptions(self, entities: Sequence[Entity]) -> dict[str, str]:
        """Distinct descriptions joined; with an LLM, a summary for entities described many times."""
        out = {e.key: " | ".join(e.descriptions[:MAX_DESCRIPTIONS])[:1500] for e in entities}
        llm = self.llm
        if llm is None:
            return out
        many = [e for e in entities if len(e.descriptions) >= self.settings.kg.er_summarize_after]

        async def summarise(entity: Entity) -> None:
            prompt = render_prompt("entity_summary", entity_name=entity.name, entity_type=entity.type,
                                   descriptions="\n".join(f"- {d}" for d in entity.descriptions[:20]))
            try:
                out[entity.key] = (await llm.complete(prompt, DescriptionSummary,
                                                      stage="kg.summary")).value.description
            except ModelError as exc:
                log.warning("description summary of %r failed (%s); descriptions joined", entity.name, exc)

        await asyncio.gather(*(summarise(e) for e in many))
        return out

    async def _write(self, query: str, rows: Sequence[dict[str, Any]], doc_key: str) -> None:
        for batch in batches(rows):
            await self.db.write(query, rows=list(batch), doc_key=doc_key)


def _collect_relations(relations: dict[tuple[str, str, str], list[Any]], extraction: Extraction,
                       keys: dict[str, str]) -> None:
    """Add a node's relations under canonical keys: one per pair (RELATED is undirected, CONTAINED_IN
    directed), weights summed, distinct descriptions kept; self-loops from merges dropped."""
    for relation in extraction.relations:
        a, b = keys.get(relation.source.lower()), keys.get(relation.target.lower())
        if a is None or b is None or a == b:
            continue
        if relation.kind == "RELATED" and b < a:
            a, b = b, a
        entry = relations.setdefault((relation.kind, a, b), [0.0, []])
        entry[0] += relation.weight
        if relation.description and relation.description not in entry[1]:
            entry[1].append(relation.description)


def _relation_rows(relations: dict[tuple[str, str, str], list[Any]]) -> list[dict[str, Any]]:
    return [{"kind": kind, "source": a, "target": b, "weight": weight,
             "description": " | ".join(descriptions[:MAX_DESCRIPTIONS])[:1500]}
            for (kind, a, b), (weight, descriptions) in relations.items()]
