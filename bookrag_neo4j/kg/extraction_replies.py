"""The knowledge-graph stage's LLM replies, validated."""

from __future__ import annotations

from pydantic import BaseModel, Field


class ERJudgement(BaseModel):
    """Reply to ``er_judge``: the id of the matching candidate, or -1 for a new entity."""

    select_id: int = Field(ge=-1)
    explanation: str = ""
