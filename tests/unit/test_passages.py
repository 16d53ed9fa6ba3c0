"""Passages: whole blocks, one section and one page each (unless a block spans pages), about N words."""

from bookrag_neo4j.layout.passages import LayoutBlock, make_passages
from bookrag_neo4j.layout.table_rows import lead_in


def block(key: str, words: int, page: int, section: str | None = "s1", end: int | None = None) -> LayoutBlock:
    return LayoutBlock(key=key, kind="text", text=" ".join(["w"] * words), page_start=page,
                       page_end=end or page, section=section, embedding=[1.0, 0.0])


def test_passages_close_at_sections_pages_and_the_word_window() -> None:
    blocks = [block("a", 100, 1), block("b", 100, 1), block("c", 250, 1),  # the window closes before c
              block("d", 50, 2),                                           # a new page opens a passage
              block("e", 50, 2, section="s2"),                             # so does a new section
              block("f", 900, 2, section="s2", end=3),                     # a long block is one passage
              block("g", 10, 3, section="s2")]
    passages = make_passages(blocks, words=300)
    assert [p.blocks for p in passages] == [["a", "b"], ["c"], ["d"], ["e"], ["f"], ["g"]]
    assert [p.pages for p in passages] == [[1], [1], [2], [2], [2, 3], [3]]
    assert [p.section for p in passages] == ["s1", "s1", "s1", "s2", "s2", "s2"]
    assert sorted(k for p in passages for k in p.blocks) == [b.key for b in blocks]  # every block exactly once


def test_blocks_without_a_page_stay_with_their_neighbours() -> None:
    passages = make_passages([block("a", 10, 4), block("b", 10, 0), block("c", 10, 4)], words=300)
    assert [p.blocks for p in passages] == [["a", "b", "c"]] and passages[0].pages == [4]


def test_pooled_embedding_is_unit_length_and_weighted_by_words() -> None:
    blocks = [LayoutBlock(key="a", kind="text", text="w " * 30, page_start=1, page_end=1, section=None,
                          embedding=[1.0, 0.0]),
              LayoutBlock(key="b", kind="text", text="w " * 10, page_start=1, page_end=1, section=None,
                          embedding=[0.0, 1.0])]
    (passage,) = make_passages(blocks)
    x, y = passage.pooled_embedding()
    assert abs(x * x + y * y - 1) < 1e-9 and abs(x / y - 3) < 1e-9


def test_a_tables_lead_in_is_the_short_text_just_above_it() -> None:
    def text(key: str, words: str, page: int = 3, section: str = "s1") -> LayoutBlock:
        return LayoutBlock(key=key, kind="text", text=words, page_start=page, page_end=page, section=section)

    table = LayoutBlock(key="t", kind="table", text="| a | b |", page_start=3, page_end=3, section="s1")
    paragraph = text("p", "Cash flows rose in the year because the company sold fewer stores than it had planned to.")
    blocks = [paragraph, text("h", "Consolidated Statement of  Cash Flows"), text("u", "(in millions)"),
              text("y", "2021 2020"), table]
    # the title and the unit, in reading order; column years skipped; reading stops at the paragraph
    assert lead_in(blocks, 4) == "Consolidated Statement of Cash Flows (in millions)"
    # an introduction that ends in a colon is kept; a page or section change stops the reading
    intro = text("i", "Share repurchases during the three fiscal years ended in May were as follows:")
    assert lead_in([intro, table], 1) == intro.text
    assert lead_in([text("h", "Balance Sheet", page=2), table], 1) == ""
    assert lead_in([text("h", "Balance Sheet", section="s0"), table], 1) == ""
    assert lead_in([table], 0) == "" and lead_in([table, table], 1) == ""  # nothing, or another table, above
