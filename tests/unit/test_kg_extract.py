"""Names, acronyms and the offline ER scorer's rules (hand-made vectors); extraction with a scripted LLM: a
failing node, images to the VLM, a reply cut off by the token limit. (The real embedder's scores and extraction
on real 10-K pages: ``tests/integration/test_kg_extract.py``.)"""

from __future__ import annotations

import json

import pytest

from bookrag_neo4j.errors import ModelError
from bookrag_neo4j.kg.er_scores import EntityView, NameScorer
from bookrag_neo4j.kg.extract import cells_from_markdown, extract_nodes, node_from_row
from bookrag_neo4j.kg.llm_extract import LLMExtractor
from bookrag_neo4j.llm.scripted import ScriptedChatModel
from bookrag_neo4j.parsing.tables import to_markdown
from bookrag_neo4j.text.names import identity, is_acronym, name_key, normalise
from bookrag_neo4j.tree.model import TreeNode


@pytest.mark.parametrize(("a", "b"), [
    ("Large Language Models", "large language model"), ("Policies", "policy"), ("GPT-4", "gpt-4"),
    ("Apple's revenue", "apple revenue"), ("  Net   sales ", "net sale"), ("U.S. Dollars", "u.s dollar"),
    ("Apple’s revenue", "apple revenue"),
])
def test_normalised_names(a: str, b: str) -> None:
    assert normalise(a) == normalise(b)


def test_identity_keeps_types_and_different_words_apart() -> None:
    assert name_key("Apple", "ORGANIZATION") != name_key("Apple", "PRODUCT")
    assert normalise("analysis") == "analysis" and normalise("process") == "process"  # -is, -ss kept
    assert normalise("GPT-4") != normalise("GPT 4o")


@pytest.mark.parametrize(("a", "b"), [
    ("Foot Locker, Inc.’s", "FOOT LOCKER"), ("KPMG LLP", "kpmg"), ("Apple Inc.", "Apple Incorporated"),
    ("Kimberly-Clark Corp.", "kimberly-clark corporation"),
])
def test_a_companys_legal_form_is_not_part_of_its_identity(a: str, b: str) -> None:
    assert name_key(a, "ORGANIZATION") == name_key(b, "ORGANIZATION")
    assert identity("Inc.") == "inc" and identity("Apple Computer Inc.") != identity("Apple")  # only a trailing form


def test_offline_names_lose_possessives_and_quotes() -> None:
    from bookrag_neo4j.text.offline_extract import SpacyExtractor

    (found,) = SpacyExtractor().extract_sync(["At Foot Locker, Inc.’s annual meeting, the “Exchange Act” was read."])
    names = {e.name for e in found.entities}
    assert "Foot Locker, Inc" in names and "Exchange Act" in names, names
    assert not any(n[0] in "“”‘’" or n[-1] in "“”‘’" or n.endswith(("’s", "'s")) for n in names), names


def test_acronyms() -> None:
    assert is_acronym("SEC", "Securities and Exchange Commission")
    assert is_acronym("LLMs", "large language models") and is_acronym("U.S.", "United States")
    assert not is_acronym("SEC", "Section") and not is_acronym("Rag", "Retrieval Augmented Generation")


@pytest.mark.parametrize(("a", "b", "etype"), [
    ("$515 million", "$511 million", "MONEY"), ("Q2", "Q1 2017", "DATE"), ("Item 7", "Item 7A", "CONCEPT"),
    ("non-NUS modules", "NUS modules", "CONCEPT"), ("Y. Liu", "L. Liu", "PERSON"), ("J. Han", "M. Han", "PERSON"),
    ("Invoking R from the command line", "Invoking R under Windows", "SECTION_TITLE"),
])
async def test_names_that_cannot_be_the_same_thing(a: str, b: str, etype: str) -> None:
    same_vector = [1.0, 0.0]
    assert await NameScorer().score(EntityView("", a, etype, "", same_vector), [EntityView("", b, etype, "", same_vector)]) \
        == [0.0]


async def test_compatible_variants_still_score() -> None:
    vec = [1.0, 0.0]
    scorer = NameScorer()
    assert (await scorer.score(EntityView("", "David M. Smith", "PERSON", "", vec),
                               [EntityView("", "David Smith", "PERSON", "", vec)]))[0] == 1.0
    assert (await scorer.score(EntityView("", "3. Diagnostic English Test", "CONCEPT", "", vec),
                               [EntityView("", "Diagnostic English Test", "CONCEPT", "", vec)]))[0] == 1.0
    assert not is_acronym("3M", "3M Mexico") and not is_acronym("3M", "3M’s motion")
    assert is_acronym("NYSE", "New York Stock Exchange")


def test_tables_read_back_from_markdown() -> None:
    cells = [["Segment", "2017"], ["North | America", "106,110"]]
    assert cells_from_markdown(to_markdown(cells)) == cells
    node = node_from_row({"key": "k", "kind": "section", "title": "2.1 Vectors", "section_path": "2 Basics > 2.1 Vectors"})
    assert node.path == ["2 Basics"]


async def test_extractor_error_for_one_node_only() -> None:
    class Flaky:
        fingerprint = "flaky"
        batch_size = 1

        async def extract(self, passages):
            if any("boom" in p.text for p in passages):
                raise ModelError("boom")
            return [await _one(p) for p in passages]

    async def _one(p):
        from bookrag_neo4j.text.extraction import ExtractedEntity, Extraction
        return Extraction(entities=[ExtractedEntity(name=p.text.split()[0], type="CONCEPT")])

    nodes = [TreeNode(kind="text", text=t, key=t) for t in ("alpha one", "boom two", "gamma three")]
    results, failed = await extract_nodes(nodes, Flaky())
    assert [len(r.entities) for r in results] == [1, 0, 1] and list(failed) == ["boom two"]


async def test_images_go_to_the_vlm_with_their_caption(tmp_path) -> None:
    import pymupdf

    from bookrag_neo4j.text.extraction import Passage

    image = tmp_path / "fig.png"
    pymupdf.Pixmap(pymupdf.csRGB, pymupdf.IRect(0, 0, 8, 8), False).save(image)
    reply = json.dumps({"entities": [{"name": "Revenue", "type": "CONCEPT", "description": "the bars"}],
                        "relations": []})
    llm, vlm = ScriptedChatModel([]), ScriptedChatModel([reply])
    extractor = LLMExtractor(llm, vlm=vlm)
    (result,) = await extractor.extract([Passage("Figure 3: Revenue by year", "image", "Results", "10-K",
                                                 "Figure 3: Revenue by year", str(image))])
    assert [e.name for e in result.entities] == ["Revenue"] and not llm.requests
    (request,) = vlm.requests
    parts = request[-1]["content"]
    assert parts[0]["type"] == "text" and "Figure 3: Revenue by year" in parts[0]["text"]
    assert parts[1]["image_url"]["url"].startswith("data:image/png;base64,")


def test_a_reply_cut_off_by_the_token_limit_keeps_its_complete_entities() -> None:
    from bookrag_neo4j.config import ENTITY_TYPES
    from bookrag_neo4j.llm.json_reply import parse_reply
    from bookrag_neo4j.text.extraction import Extraction, clean_extraction

    cut = ('{"entities": [{"name": "Amazon", "type": "ORGANIZATION", "description": "the company"}, '
           '{"name": "AWS", "type": "PRODUCT"}, {"name": "')
    cleaned = clean_extraction(parse_reply(cut, Extraction), ENTITY_TYPES)
    assert [(e.name, e.type) for e in cleaned.entities] == [("Amazon", "ORGANIZATION"), ("AWS", "PRODUCT")]
