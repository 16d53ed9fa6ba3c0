"""What extractors produce for one tree node: entities and relations (validated pydantic models, also the
reply schema of the LLM extractor)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field


class ExtractedEntity(BaseModel):
    # Nothing is required but the key: a reply cut off by the token limit (and repaired) keeps its complete
    # entities; an entity whose name was cut off is dropped when the extraction is cleaned.
    name: str
    type: str = "CONCEPT"
    description: str = ""


class ExtractedRelation(BaseModel):
    source: str = ""  # a relation cut off by the token limit loses its ends and is dropped when cleaned
    target: str = ""
    description: str = ""
    weight: float = Field(1.0, gt=0)
    kind: Literal["RELATED", "CONTAINED_IN"] = "RELATED"  # CONTAINED_IN: a table header -> its table


class Extraction(BaseModel):
    """Entities and relations extracted from one tree node."""

    entities: list[ExtractedEntity] = Field(default_factory=list)
    relations: list[ExtractedRelation] = Field(default_factory=list)
