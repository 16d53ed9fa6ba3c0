"""Top_K with a global question's filters: the filtered nodes first, then units from the rest of their range up
to the Skyline's minimum, none on a page the filtered ones already show (a table over pages 3-4 shows page 4)."""

from __future__ import annotations

from bookrag_neo4j.config import Settings
from bookrag_neo4j.ops.operator_registry import RunContext
from bookrag_neo4j.ops.reason import TopKParams, top_k
from bookrag_neo4j.ops.values import Candidates, Scores, Selection
from bookrag_neo4j.retrieval.reasoners import Candidate


def block(key: str, first: int, last: int) -> Candidate:
    return Candidate(key=key, doc_key="d", order=int(key[1:]), title="", section_path="", text=f"text of {key}",
                     page_start=first, page_end=last)


async def test_filtered_first_then_the_rest_of_their_range_on_other_pages() -> None:
    rows = [block("n1", 3, 4), block("n2", 4, 4), block("n3", 5, 5), block("n4", 0, 0), block("n5", 0, 0),
            block("n6", 6, 6)]
    text = Scores(by="text", values={"n1": 0.1, "n2": 0.9, "n3": 0.8, "n4": 0.7, "n5": 0.6, "n6": 0.5})
    ctx = RunContext(db=None, settings=Settings(skyline_min=4), models=None, llm=None, documents=[])  # type: ignore[arg-type]
    ranked = await top_k(ctx, TopKParams(by="text", budget="global"), Candidates(rows=rows), [text],
                         Selection(keys=["n1"]))
    # n1 first though it scores least; n2 starts on page 4, which n1 shows; pageless blocks are no page shown;
    # 4 units in all (n6, the fifth best of the rest, is left out)
    assert ranked.keys == ["n1", "n3", "n4", "n5"]
    unfiltered = await top_k(ctx, TopKParams(by="text", k=2), Candidates(rows=rows), [text], None)
    assert unfiltered.keys == ["n2", "n3"]  # without a selection: the best k by the score
