"""Document cards without a server: what a cover says, the names and years a question uses. (Cards read at index
time and the routing that reads them: ``tests/integration/test_cards.py``.)"""

from __future__ import annotations

import pytest

from bookrag_neo4j.index.card_reader import read_card
from bookrag_neo4j.library.cards import DocumentCard, name_words, named_in, years_in

TEN_K = ["UNITED STATES SECURITIES AND EXCHANGE COMMISSION", "FORM 10-K",
         "For the fiscal year ended February 2, 2019", "Commission File Number 1-9595",
         "BEST BUY CO., INC.\n(Exact name of registrant as specified in its charter)",
         "Common Stock, $.10 par value per share BBY New York Stock Exchange"]


def test_a_10k_cover() -> None:
    card = read_card(name="best-buy-annual.pdf", title="0000764478-19-000009", cover=TEN_K, metadata={})
    assert (card.kind, card.issuer, card.aliases, card.period, card.date) == (
        "10-K", "BEST BUY CO., INC.", ["BBY", "best buy"], "FY2019", "2019-02-02")
    assert card.years == [2019, 2018]  # a fiscal year ending in February may be called by the year before
    assert card.title == "BEST BUY CO., INC. Form 10-K, FY2019"  # not the accession number in the metadata


def test_a_cover_without_the_registrant_phrase_and_in_small_capitals() -> None:
    cover = ["FORM 10-K", "For the fiscal year ended December 31, 2018", "Commission file number 1-10362",
             "MGM R ESORTS I NTERNATIONAL", "Delaware 88-0215232"]
    assert read_card(name="x.pdf", title="", cover=cover, metadata={}).issuer == "MGM RESORTS INTERNATIONAL"


def test_an_earnings_release_and_a_report() -> None:
    release = read_card(name="ULTABEAUTY_2023Q4_EARNINGS.pdf", title="", metadata={}, cover=[
        "March 9, 2023", "Ulta Beauty Announces Fourth Quarter Fiscal 2022 Results"])
    assert (release.kind, release.issuer, release.period, release.years, release.date) == (
        "earnings release", "Ulta Beauty", "Q4 FY2022", [2022, 2023], "2023-03-09")
    report = read_card(name="views.pdf", title="", metadata={"author": "EDGAR Online"}, cover=[
        "FOR RELEASE MARCH 4, 2021", "Most Americans Support Tough Stance", "RECOMMENDED CITATION Pew Research Center"])
    assert (report.issuer, report.years, report.date) == ("Pew Research Center", [2021], "2021-03-04")


def test_the_names_a_question_uses() -> None:
    best_buy = DocumentCard(issuer="BEST BUY CO., INC.", aliases=["BBY", "BESTBUY"])
    assert named_in("What were Best Buy's FY2019 inventories?", best_buy) == "best buy"
    assert named_in("bestbuy inventories", best_buy) == "best buy"
    assert named_in("the best buys of the year", best_buy) is None
    jnj = DocumentCard(issuer="Johnson & Johnson", aliases=["JNJ"])
    assert named_in("Which segment of JnJ is discontinued?", jnj) == "JNJ"  # a ticker, written with capitals
    assert named_in("what did jnj report", jnj) is None
    costco = DocumentCard(issuer="Costco Wholesale Corporation", aliases=["COST"])
    assert named_in("How much total assets did Costco have?", costco) == "costco"  # its distinctive first word
    assert named_in("What does the cost of sales include?", costco) is None  # "cost" is no ticker written so
    university = DocumentCard(issuer="University of California")  # a company's first word names it; not this one's
    assert named_in("How many authors come from Columbia University?", university) is None
    assert named_in("Which campus of the University of California?", university) == "university of california"
    assert named_in("General revenue", DocumentCard(issuer="General Mills, Inc.")) is None
    assert named_in("Walmart's margin", DocumentCard(issuer="Wal-Mart Stores, Inc.")) == "wal mart"
    assert name_words("The Boeing Company") == "boeing"


def test_the_years_a_question_names() -> None:
    assert years_in("FY2018 - FY2020 and fiscal 2023, FY 19, FY'21") == [2018, 2020, 2023, 2019, 2021]
    assert years_in("$2019 million, 2019.5 and 2021% and 12019") == []


def test_an_edit_is_the_users() -> None:
    card = DocumentCard(issuer="Vega", period="FY2021", years=[2021], source={"issuer": "cover"})
    edited = card.edit(issuer="Orion Space", period="fiscal 2022", summary=None)
    assert (edited.issuer, edited.years, edited.source["issuer"], edited.edited) == (
        "Orion Space", [2022], "user", ["issuer", "period"])
    with pytest.raises(ValueError, match="no field colour"):
        card.edit(colour="blue")


def test_a_ticker_in_a_table_of_registered_securities() -> None:
    cover = ["FORM 8-K", "Johnson & Johnson", "(Exact name of registrant as specified in its charter)",
             "Title of each class | Trading Symbol(s) | Name of each exchange on which registered\n"
             "Common Stock, Par Value $1.00 | JNJ | New York Stock Exchange"]
    assert "JNJ" in read_card(name="8k.pdf", title="", cover=cover, metadata={}).aliases


def test_filings_of_one_issuer_spelt_two_ways_are_one_issuer() -> None:
    """The issuer renamed between two filings ("ADOBE SYSTEMS INCORPORATED", "ADOBE INC."): the year the question
    names picks among both."""
    from bookrag_neo4j.library.documents import Document
    from bookrag_neo4j.retrieval.routing import Routing, named_documents

    def doc(name: str, issuer: str, year: int) -> Document:
        return Document(key=name, name=name, card=DocumentCard(issuer=issuer, kind="10-K", years=[year]))

    library = [doc("adobe-2017.pdf", "ADOBE SYSTEMS INCORPORATED", 2017), doc("adobe-2022.pdf", "ADOBE INC.", 2022),
               doc("other.pdf", "Corning Incorporated", 2017)]
    routing = named_documents("What is the FY2017 operating cash flow ratio for Adobe?", library)
    assert [d.name for d in routing.documents] == ["adobe-2017.pdf"] and routing.lead is None
    assert routing.steps[0].details == ["adobe-2017.pdf: the question names 'adobe' and 2017"]
    assert named_documents("What was revenue in 2017?", library) == Routing(library)  # names no issuer
    both = named_documents("Compare Adobe and Corning in 2017", library).documents
    assert [d.name for d in both] == ["adobe-2017.pdf", "other.pdf"]


def test_a_ticker_on_the_newer_cover_names_the_older_filings_too() -> None:
    """Covers print the ticker only since 2019: the older filings of the issuer answer to it through the name they
    share with the newer one."""
    from bookrag_neo4j.library.cards import issuers

    old = DocumentCard(issuer="ADOBE SYSTEMS INCORPORATED", aliases=["ADOBE"], years=[2015])
    new = DocumentCard(issuer="ADOBE INC.", aliases=["ADBE", "ADOBE"], years=[2022])
    other = DocumentCard(issuer="Corning Incorporated", aliases=["GLW"], years=[2015])
    widened = issuers([old, None, new, other])
    assert widened[1] is None and widened[0][0] == widened[2][0] != widened[3][0]
    assert named_in("What is the ROA for ADBE in FY2015?", old) is None
    assert named_in("What is the ROA for ADBE in FY2015?", widened[0][1]) == "ADBE"
    assert named_in("What is the ROA for ADBE in FY2015?", widened[3][1]) is None
