"""What extractors read (a :class:`Passage`) and produce for one tree node or a question: entities and relations
(validated pydantic models, also the reply schema of the LLM extractor), and their cleaning."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
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


@dataclass(frozen=True)
class Passage:
    """What an extractor reads of one tree node."""

    text: str
    kind: str = "text"
    section: str = ""
    document: str = ""
    caption: str = ""
    image_path: str = ""


def clean_extraction(extraction: Extraction, entity_types: Sequence[str]) -> Extraction:
    """Known types only (else ``CONCEPT``), names stripped, duplicates and dangling relations dropped."""
    allowed = set(entity_types)
    entities, names = [], set()
    for entity in extraction.entities:
        name = " ".join(entity.name.split()).strip(" .,;:")
        if len(name) < 2 or name.lower() in names:
            continue
        names.add(name.lower())
        etype = entity.type.strip().upper().replace(" ", "_")
        entities.append(entity.model_copy(update={"name": name, "type": etype if etype in allowed else "CONCEPT"}))
    relations = [r for r in extraction.relations
                 if r.source.strip().lower() in names and r.target.strip().lower() in names
                 and r.source.strip().lower() != r.target.strip().lower()]
    return Extraction(entities=entities, relations=relations)
