"""The method registry: a method turns a question into a :class:`~bookrag_neo4j.retrieval.plan.Plan` over the
shared operators. Everything that runs a method (``bookrag ask|retrieve --method``, the SDK's ``method=``,
``bookrag eval --methods``, ``bookrag methods``) reads this registry and nothing else::

    @method("layout", "Layout+Vanilla, the tree's content blocks nearest to the question", baseline=True)
    async def layout(question: str, planner: Planner, category: QueryCategory | None) -> Plan:
        return Plan(question=question, method="layout", steps=[...], output="evidence", answer="reduce")
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Literal

from ..config import Settings
from ..db.client import GraphClient
from ..errors import PlanError
from ..index.leases import LeaseManager, layers_key, under_lease
from ..library.documents import Document, get_document
from ..llm.factory import Models
from ..retrieval.plan import Plan
from ..retrieval.planner import Planner
from ..retrieval.replies import QueryCategory

PlanBuilder = Callable[[str, Planner, QueryCategory | None], Awaitable[Plan]]
Preparer = Callable[[GraphClient, Settings, Models, Document], Awaitable[object]]


@dataclass(frozen=True)
class Method:
    name: str
    description: str
    build: PlanBuilder
    preparer: Preparer | None = None  # builds a layer the method reads on first use (the layout layer)
    ablates: str | None = None  # the full method this one is with a part left out (its description says which)
    baseline: bool = False  # a method from the papers' comparisons, not one of the three

    @property
    def role(self) -> Literal["method", "baseline", "ablation"]:
        """``method`` (BookRAG, SuperRAG, G²-Reader: the ones to use), ``baseline`` or ``ablation`` (for evaluation)."""
        return "ablation" if self.ablates else "baseline" if self.baseline else "method"

    async def prepare(self, graph: GraphClient, settings: Settings, models: Models, doc: Document) -> None:
        """Build what the method reads of the document ahead of the first question (e.g. before timing). ``doc``
        as read: a layer it shows built with this config costs no query (a question over 50 documents would
        otherwise read each one again)."""
        if self.preparer is not None:
            await self.preparer(graph, settings, models, doc)

    async def plan(self, question: str, planner: Planner, category: QueryCategory | None = None) -> Plan:
        """The plan for ``question`` (``planner.llm`` None: LLM-free; ``category`` skips the classification)."""
        plan = await self.build(question, planner, category)
        return plan.model_copy(update={"method": self.name})


METHODS: dict[str, Method] = {}


async def build_once(graph: GraphClient, settings: Settings, doc: Document, current: Callable[[Document], bool],
                     build: Callable[[], Awaitable[object]]) -> None:
    """Build a layer of ``doc`` that ``current`` says it lacks, once however many askers arrive together, in one
    process or many: the builder holds the document's layers lease
    (:func:`~bookrag_neo4j.index.leases.under_lease`); the others wait, and find the layer current when it is
    theirs. Without it two askers built the same layer at once: one deleted what the other wrote, and their GDS
    projections collided."""
    if current(doc):
        return

    async def built() -> bool:
        fresh = await get_document(graph, doc.key)
        return fresh is not None and current(fresh)

    await under_lease(LeaseManager(graph, ttl=settings.indexing.index_lease_seconds), layers_key(doc.key), build,
                      name=doc.name, done=built)


async def prepare_layout(graph: GraphClient, settings: Settings, models: Models, doc: Document) -> None:
    """The preparer of the methods over passages and table rows: the layout layer, unless it is built."""
    from ..layout.build import LayoutBuilder, layout_current  # with the PDF parser: only the methods that read it

    await build_once(graph, settings, doc, lambda d: layout_current(d, settings, models.embedder),
                     lambda: LayoutBuilder(graph, settings, models.embedder).build(doc.key))


def method(name: str, description: str, *, prepare: Preparer | None = None,
           ablates: str | None = None, baseline: bool = False) -> Callable[[PlanBuilder], PlanBuilder]:
    """Register a plan builder as the method ``name`` (``ablates``: the method it is with a part left out, so that
    ``bookrag eval`` reports whether that part helps; ``baseline``: one the papers compare against)."""

    def register(build: PlanBuilder) -> PlanBuilder:
        if name in METHODS:
            raise ValueError(f"method {name!r} is registered twice")
        METHODS[name] = Method(name, description, build, prepare, ablates, baseline)
        return build

    return register


def get_method(name: str) -> Method:
    try:
        return METHODS[name]
    except KeyError:
        raise PlanError(f"unknown method {name!r}; known: {', '.join(METHODS)}") from None
