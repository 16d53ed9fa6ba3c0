"""LLM-free extraction (spaCy), for offline use and cheap indexing of large libraries.

    extractor = SpacyExtractor()
    extractions = await extractor.extract(["Acme reported net sales of $32.8 billion in 2018."])

Entities are named entities (spaCy's English NER, mapped to :data:`bookrag_neo4j.config.ENTITY_TYPES`) and noun phrases
(``CONCEPT``; leading determiners and pronouns dropped, bare numbers skipped); a named entity wins over a noun
phrase with the same name. Relations are co-occurrence within a sentence, weighted by how many sentences
of the block pair them; in a crowded sentence only entities at most ``window`` apart are paired. Each entity's
description is the first sentence it appears in.

The pipeline is the shared one of :mod:`bookrag_neo4j.text.nlp`.
"""

from __future__ import annotations

import asyncio
import re
from collections import defaultdict
from collections.abc import Sequence
from typing import Any

from .extraction import ExtractedEntity, ExtractedRelation, Extraction, Passage
from .nlp import PIPE_LOCK, SPACY_PACKAGE, load_spacy

NER_TYPES = {
    "PERSON": "PERSON", "ORG": "ORGANIZATION", "GPE": "LOCATION", "LOC": "LOCATION", "FAC": "FACILITY",
    "DATE": "DATE", "TIME": "DATE", "MONEY": "MONEY", "PERCENT": "PERCENT", "QUANTITY": "QUANTITY",
    "PRODUCT": "PRODUCT", "EVENT": "EVENT", "LAW": "LAW", "WORK_OF_ART": "WORK", "NORP": "GROUP",
    "LANGUAGE": "LANGUAGE",
}  # CARDINAL and ORDINAL (bare numbers) are left out: as entities they only add noise
_LEADING = re.compile(r"^(?:the|a|an|this|that|these|those|its|their|his|her|our|your|my|each|every|some|any|all)\s+",
                      re.IGNORECASE)
# Leading words that make a noun phrase a variant, not a different thing ("several vectors", "the new
# graphics device", "two numeric arrays" -> "vectors", "graphics device", "numeric arrays").
_MODIFIERS = {
    "other", "several", "such", "same", "further", "following", "new", "given", "particular", "simple", "certain",
    "various", "different", "many", "few", "more", "most", "much", "first", "second", "third", "last", "next",
    "previous", "current", "just", "very", "only", "also", "useful", "whole", "entire", "usual", "above", "below",
    "additional", "general", "specific", "corresponding", "appropriate", "possible", "example", "typical",
}
_SKIP_POS = {"DET", "NUM", "PRON", "ADV", "PUNCT", "CCONJ", "SYM"}
_PRONOUNS = {"it", "they", "we", "you", "i", "he", "she", "them", "us", "this", "that", "which", "who", "what"}


def _clean(text: str) -> str:
    """The name without leading determiners, a trailing possessive, quotes or punctuation at either end."""
    text = " ".join(text.split())
    while _LEADING.match(text):
        text = _LEADING.sub("", text, count=1)
    text = re.sub(r"['’]s$", "", text.strip(" ”’\"'"))
    return text.strip(" .,;:()[]\"'>#*“”‘’")


def _trim(chunk: Any) -> Any:
    """A noun chunk without leading determiners, numbers, adverbs and generic modifiers."""
    start = chunk.start
    while (start < chunk.end - 1 and chunk.doc[start].whitespace_  # a whole word ("3" of "3D" is not)
           and (chunk.doc[start].pos_ in _SKIP_POS or chunk.doc[start].lower_ in _MODIFIERS)):
        start += 1
    return chunk.doc[start:chunk.end]


class SpacyExtractor:
    """Named entities + noun phrases, co-occurrence relations."""

    batch_size = 32  # passages piped through spaCy together

    def __init__(self, model: str | None = None, *, window: int = 4, max_words: int = 6) -> None:
        self.model = model
        self.window = window
        self.max_words = max_words

    @property
    def fingerprint(self) -> str:
        """Identifies this extractor's output (keys the per-node extraction store)."""
        return f"spacy:{self.model or SPACY_PACKAGE}:{self.window}:{self.max_words}:trim4"

    def extract_sync(self, texts: Sequence[str | Passage]) -> list[Extraction]:
        plain = [t.text if isinstance(t, Passage) else t for t in texts]
        with PIPE_LOCK:  # a spaCy pipeline is not thread-safe; loading happens under it too
            nlp = load_spacy(self.model)
            docs = list(nlp.pipe([t[:100_000] for t in plain], batch_size=32))
        return [self._from_doc(doc) for doc in docs]

    async def extract(self, texts: Sequence[str | Passage]) -> list[Extraction]:
        return await asyncio.to_thread(self.extract_sync, list(texts))

    def _from_doc(self, doc: Any) -> Extraction:
        entities: dict[str, ExtractedEntity] = {}
        pair_weight: dict[tuple[str, str], int] = defaultdict(int)
        pair_sentence: dict[tuple[str, str], str] = {}
        for sent in doc.sents:
            found: list[tuple[int, str]] = []  # (token position, entity key) in this sentence
            spans = [(ent, NER_TYPES[ent.label_]) for ent in sent.ents if ent.label_ in NER_TYPES]
            spans += [(_trim(chunk), "CONCEPT") for chunk in sent.noun_chunks]
            for span, etype in spans:
                name = _clean(span.text)
                key = name.lower()
                if (len(name) < 2 or not any(c.isalpha() for c in name) or key in _PRONOUNS
                        or len(name.split()) > self.max_words):
                    continue
                known = entities.get(key)
                if known is None or (known.type == "CONCEPT" and etype != "CONCEPT"):
                    entities[key] = ExtractedEntity(name=name, type=etype, description=sent.text.strip()[:300])
                if all(k != key for _, k in found):
                    found.append((span.start, key))
            found.sort()
            for i, (_, a) in enumerate(found):
                for _, b in found[i + 1:i + 1 + self.window]:
                    pair = (a, b) if a < b else (b, a)
                    pair_weight[pair] += 1
                    pair_sentence.setdefault(pair, sent.text.strip()[:300])
        relations = [
            ExtractedRelation(source=entities[a].name, target=entities[b].name,
                              description=f"mentioned together: {pair_sentence[(a, b)]}", weight=float(w))
            for (a, b), w in sorted(pair_weight.items())
        ]
        return Extraction(entities=list(entities.values()), relations=relations)
