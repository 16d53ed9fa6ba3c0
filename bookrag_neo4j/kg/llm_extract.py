"""LLM extraction (paper §4.3.1): entities (name, type, description) and relations (source, target,
description, weight) from a passage, by a chat model with a JSON schema; images through a VLM when one is
configured.

    extractor = LLMExtractor(llm, entity_types=ENTITY_TYPES, vlm=vlm)
    (extraction,) = await extractor.extract([Passage(text="...", kind="text", section="1 Intro")])

Types outside the allowed list become ``CONCEPT``; relations that name an entity the reply did not list are
dropped. A node whose reply stays invalid after the model layer's repair and re-ask raises
``ModelOutputError``; the graph stage records it and leaves the node for the next run.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

from ..config import ENTITY_TYPES
from ..llm.chat import ChatModel
from ..llm.messages import with_image
from ..llm.prompts import load_prompt, render_prompt
from ..text.extraction import Extraction, Passage, clean_extraction

MAX_PASSAGE_CHARS = 6000


class LLMExtractor:
    """Entities and relations by an LLM (text, tables, captions) and a VLM (images, when configured)."""

    batch_size = 1  # one request per passage

    def __init__(self, llm: ChatModel, *, entity_types: Sequence[str] = ENTITY_TYPES, vlm: ChatModel | None = None,
                 max_entities: int = 20) -> None:
        self.llm = llm
        self.vlm = vlm
        self.entity_types = list(entity_types)
        self.max_entities = max_entities

    @property
    def fingerprint(self) -> str:
        """Changes when the model, prompt or types change (keys the per-node extraction store)."""
        vlm = self.vlm.model if self.vlm else "-"
        return (f"llm:{self.llm.name}:{vlm}:{load_prompt('kg_extract').version}:"
                f"{load_prompt('image_extract').version}:{','.join(self.entity_types)}:{self.max_entities}")

    async def extract_one(self, passage: Passage) -> Extraction:
        types = ", ".join(t for t in self.entity_types if t not in ("SECTION_TITLE", "TABLE", "IMAGE", "EQUATION"))
        if passage.kind == "image" and self.vlm is not None and passage.image_path:
            prompt = render_prompt("image_extract", entity_types=types, max_entities=self.max_entities,
                                   document=passage.document, section=passage.section, caption=passage.caption)
            messages = [*prompt.messages[:-1], with_image(prompt.messages[-1], passage.image_path)]
            completion = await self.vlm.complete(messages, Extraction, stage="kg.extract.image")
        else:
            prompt = render_prompt("kg_extract", entity_types=types, max_entities=self.max_entities,
                                   document=passage.document, section=passage.section, kind=passage.kind,
                                   text=passage.text[:MAX_PASSAGE_CHARS])
            completion = await self.llm.complete(prompt, Extraction, stage="kg.extract")
        return clean_extraction(completion.value, self.entity_types)

    async def extract(self, passages: Sequence[Passage]) -> list[Extraction]:
        return list(await asyncio.gather(*(self.extract_one(p) for p in passages)))
