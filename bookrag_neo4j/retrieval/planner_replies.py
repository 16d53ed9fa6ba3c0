"""The planner's LLM replies (prompts ``query_classify``, ``query_decompose``, ``global_filter``), validated."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

QueryCategory = Literal["single-hop", "multi-hop", "global"]


class QueryClassification(BaseModel):
    """Reply to ``query_classify``."""

    category: QueryCategory


class SubQuestion(BaseModel):
    question: str = Field(min_length=1)
    type: Literal["retrieval", "synthesis"]


class Decomposition(BaseModel):
    """Reply to ``query_decompose``: independent retrieval sub-questions, then synthesis."""

    sub_questions: list[SubQuestion] = Field(min_length=1)


class GlobalFilter(BaseModel):
    filter_type: Literal["section", "image", "table", "equation", "page"]
    filter_value: str | None = None


class GlobalPlan(BaseModel):
    """Reply to ``global_filter``: structural filters and one aggregation."""

    filters: list[GlobalFilter]
    operation: Literal["COUNT", "LIST", "SUMMARIZE", "ANALYZE"]


class SectionChoice(BaseModel):
    """Reply to ``select_sections``: ids of the chosen sections, most likely first."""

    section_ids: list[int] = Field(default_factory=list)


class SourcedAnswer(BaseModel):
    """Reply to ``answer_map`` and ``answer_reduce``: an answer and the evidence numbers it used."""

    answer: str
    sources: list[int] = Field(default_factory=list)
