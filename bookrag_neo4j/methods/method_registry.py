"""The method registry: a method turns a question into a :class:`~bookrag_neo4j.retrieval.plan.Plan` over the
shared operators. Everything that runs a method (``bookrag ask|retrieve --method``, the SDK's ``method=``,
``bookrag eval --methods``, ``bookrag methods``) reads this registry and nothing else::

    @method("layout-vanilla", "Layout+Vanilla, the tree's content blocks nearest to the question", baseline=True)
    async def layout_vanilla(question: str, planner: Planner, category: QueryCategory | None) -> Plan:
        return Plan(question=question, steps=[...], output="evidence", answer="reduce")

A renamed method keeps its former name (:data:`RENAMED`): it still runs, and warns.
"""

from __future__ import annotations

import logging
import warnings
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Literal, Protocol

from ..config import Settings
from ..errors import LayerMissingError, PlanError
from ..library.documents import ContentStatus, Document, LayoutStatus
from ..library.layers import Layer, layer_current
from ..llm.factory import Models
from ..retrieval.plan import Plan
from ..retrieval.planner import Planner
from ..retrieval.planner_replies import QueryCategory

log = logging.getLogger(__name__)

PlanBuilder = Callable[[str, Planner, QueryCategory | None], Awaitable[Plan]]
RENAMED = {"layout": "layout-vanilla"}  # a method's former name -> its name ("layout" names SuperRAG's layer)


class LayerBuilder(Protocol):
    """Builds a layer a document lacks when a method first needs it: the build wing's
    (:class:`~bookrag_neo4j.index.on_demand.OnDemandLayers`), handed in by the doors."""

    async def ensure(self, layer: Layer, doc: Document, models: Models) -> None: ...


@dataclass(frozen=True)
class Method:
    name: str
    description: str
    build: PlanBuilder
    needs: Layer | None = None  # a layer the method reads ("layout", "g2"), built on first use by a builder given
    ablates: str | None = None  # the full method this one is with a part left out (its description says which)
    baseline: bool = False  # a method from the papers' comparisons, not one of the three

    @property
    def role(self) -> Literal["method", "baseline", "ablation"]:
        """``method`` (BookRAG, SuperRAG, G²-Reader: the ones to use), ``baseline`` or ``ablation`` (for evaluation)."""
        return "ablation" if self.ablates else "baseline" if self.baseline else "method"

    async def prepare(self, layers: LayerBuilder | None, models: Models, doc: Document, settings: Settings) -> None:
        """Build the layer the method reads of ``doc`` ahead of its question, with ``layers``, unless it is current
        (then the builder is not asked); without a builder, a document that lacks it is an error that says how to
        build it."""
        if self.needs is None:
            return
        if layers is not None:
            if not layer_current(self.needs, doc, settings, models.embedder.name, models.llm.name if models.llm else None):
                await layers.ensure(self.needs, doc, models)
        elif not (doc.layout is LayoutStatus.COMPLETE and (self.needs == "layout" or doc.g2 is ContentStatus.COMPLETE)):
            stage = "content-graph" if self.needs == "g2" else self.needs
            raise LayerMissingError(f"method {self.name!r} reads the {stage} layer, which {doc.name} lacks: "
                                    f"`bookrag index {doc.name} --stage {stage}`, or ask through BookRAG, "
                                    "which builds it")

    async def plan(self, question: str, planner: Planner, category: QueryCategory | None = None) -> Plan:
        """The plan for ``question`` (``planner.llm`` None: LLM-free; ``category`` skips the classification)."""
        plan = await self.build(question, planner, category)
        return plan.model_copy(update={"method": self.name})


METHODS: dict[str, Method] = {}


def method(name: str, description: str, *, needs: Layer | None = None,
           ablates: str | None = None, baseline: bool = False) -> Callable[[PlanBuilder], PlanBuilder]:
    """Register a plan builder as the method ``name`` (``needs``: a layer it reads; ``ablates``: the method it is
    with a part left out, so that ``bookrag eval`` reports whether that part helps; ``baseline``: one the papers
    compare against)."""

    def register(build: PlanBuilder) -> PlanBuilder:
        if name in METHODS:
            raise ValueError(f"method {name!r} is registered twice")
        METHODS[name] = Method(name, description, build, needs, ablates, baseline)
        return build

    return register


def method_name(name: str) -> str:
    """The registered name of method ``name``: ``name``, or the name a renamed method has now (with a warning)."""
    if (new := RENAMED.get(name)) is None:
        return name
    warnings.warn(f"the method {name!r} is now {new!r}", DeprecationWarning, stacklevel=3)
    log.warning("the method %r is now %r", name, new)
    return new


def get_method(name: str) -> Method:
    try:
        return METHODS[method_name(name)]
    except KeyError:
        raise PlanError(f"unknown method {name!r}; known: {', '.join(METHODS)}") from None
