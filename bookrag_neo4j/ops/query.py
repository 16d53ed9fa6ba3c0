"""Query operators: Embed the question, Extract its entities (linked to the graph), Decompose it.

    question = await embed(ctx, QuestionParams(question="What does lm fit?"))
    entities = await extract(ctx, QuestionParams(question="What does lm fit?"))   # names + linked seeds
"""

from __future__ import annotations

import logging

from pydantic import BaseModel, ConfigDict, Field

from ..errors import ModelError
from ..llm.prompts import render_prompt
from ..retrieval.linking import link_entities
from ..text.extraction import Extraction, clean_extraction
from ..text.names import identity
from ..text.offline_extract import SpacyExtractor
from .operator_registry import RunContext, model_time, operator
from .values import Entities, Question, SubQuestions

log = logging.getLogger(__name__)


class QuestionParams(BaseModel):
    model_config = ConfigDict(extra="forbid")
    question: str = Field(min_length=1)


@operator("Embed", family="query", params=QuestionParams)
async def embed(ctx: RunContext, p: QuestionParams) -> Question:
    """The question's embedding (the configured embedder)."""
    with model_time():
        (vector,) = await ctx.models.embedder.embed([p.question])
    return Question(text=p.question, vector=list(vector))


async def question_entities(ctx: RunContext, question: str) -> list[str]:
    """Entity names in the question: the LLM (prompt ``question_entities``), else (or on a failed reply)
    spaCy."""
    extraction = Extraction()
    if ctx.llm is not None:
        prompt = render_prompt("question_entities", question=question,
                               entity_types=", ".join(ctx.settings.kg.entity_types))
        try:
            extraction = (await ctx.llm.complete(prompt, Extraction, stage="query.extract")).value
        except ModelError as exc:
            log.warning("question entity extraction failed (%s); using spaCy", exc)
    if not extraction.entities:
        (extraction,) = await SpacyExtractor().extract([question])  # the pipeline loads once a process
    return [e.name for e in clean_extraction(extraction, ctx.settings.kg.entity_types).entities]


@operator("Extract", family="query", params=QuestionParams)
async def extract(ctx: RunContext, p: QuestionParams) -> Entities:
    """Question entities (LLM, else spaCy) linked to the scope's graph entities: the same identity
    (:func:`~bookrag_neo4j.kg.names.identity`), or an embedding within the link threshold, exactly over each
    document's entities in Neo4j (:func:`~bookrag_neo4j.retrieval.linking.link_entities`), so that the links do
    not depend on what else the library holds."""
    with model_time():
        names = await question_entities(ctx, p.question)
        vectors = await ctx.models.embedder.embed(names) if names else []
    if not names:
        return Entities(names=[], seeds=[])
    s = ctx.settings
    per_document = await ctx.each_document(lambda doc: link_entities(
        ctx.db, doc, [identity(name) for name in names], vectors, threshold=(1 + s.bookrag.link_threshold) / 2,
        top=s.bookrag.link_per_entity, engine=s.retrieval.vector_engine))
    seeds: list[str] = []
    for i in range(len(names)):
        linked = [hit for links in per_document for hit in links[i]]
        seeds += [key for key, _ in sorted(linked, key=lambda hit: -hit[1])[:s.bookrag.link_per_entity]]
    return Entities(names=names, seeds=list(dict.fromkeys(seeds)))


class DecomposeParams(BaseModel):
    model_config = ConfigDict(extra="forbid")
    sub_questions: list[dict[str, str]] = Field(min_length=1)


@operator("Decompose", family="query", params=DecomposeParams)
async def decompose(ctx: RunContext, p: DecomposeParams) -> SubQuestions:
    """The planner's decomposition of a multi-hop question (made with the LLM when the plan was built)."""
    return SubQuestions(items=p.sub_questions)
