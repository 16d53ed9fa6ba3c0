"""Domain packs: the shipped finance pack (its glossary, for the kinds of document it names), none, a pack of one's
own beside it, the former BOOKRAG_GLOSSARY, and a name that is no pack."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bookrag_neo4j.domains import domains_of, load_domains, names_of
from bookrag_neo4j.errors import ConfigurationError
from bookrag_neo4j.retrieval.glossary import Glossary


def test_the_finance_pack_brings_its_glossary_to_filings_and_reports_only() -> None:
    finance = load_domains(("finance",))
    for kinds in (["10-K"], ["earnings release", "paper"], ["Annual Report"], None):  # None: documents not known yet
        assert finance.glossary_for(kinds).sub_questions("What is Acme's FY2017 return on assets?") == [
            "What is Acme's FY2017 net income?", "What is Acme's FY2017 total assets?"], kinds
    for kinds in (["paper"], ["manual", "brochure"], [""], []):
        assert finance.glossary_for(kinds).entries == [], kinds
    assert len(finance.glossary_for(["10-Q"]).entries) == len(Glossary.load("shipped").entries) > 40


def test_no_pack_plans_without_a_glossary() -> None:
    assert names_of(" finance , ") == ("finance",) and names_of("") == ()
    assert load_domains(()).glossary_for(None).sub_questions("What is Acme's return on assets?") == []
    assert domains_of("", "shipped").glossary_for(["10-K"]).entries == []


def test_the_former_glossary_setting_still_works_for_every_document_and_warns(tmp_path: Path) -> None:
    path = tmp_path / "pumps.json"
    path.write_text(json.dumps({"entries": [{"terms": ["mtbf"], "parts": ["operating hours", "failures"]}]}))
    with pytest.warns(DeprecationWarning, match="BOOKRAG_DOMAINS"):
        mine = domains_of("finance", str(path))
    assert mine.glossary_for(["manual"]).sub_questions("What is the pump's MTBF?") and mine.names == (str(path),)
    with pytest.warns(DeprecationWarning):
        assert domains_of("finance", "").glossary_for(["10-K"]).entries == []


def test_a_pack_of_ones_own_adds_to_the_shipped_one_for_the_kinds_it_names(tmp_path: Path) -> None:
    pack = tmp_path / "clinical"
    pack.mkdir()
    (pack / "glossary.json").write_text(json.dumps({"kinds": ["paper"], "entries": [
        {"terms": ["body mass index", "bmi"], "parts": ["body weight", "body height"]}]}))
    both = load_domains(("finance", str(pack)))
    assert both.glossary_for(["paper"]).sub_questions("What was the patients' BMI?") == [
        "What was the patients' body weight?", "What was the patients' body height?"]
    assert not both.glossary_for(["paper"]).sub_questions("What is the return on assets?")  # finance is not a paper's
    assert both.glossary_for(["10-K", "paper"]).sub_questions("What is the return on assets?")  # both in scope
    assert not both.glossary_for(["10-K"]).sub_questions("What was the patients' BMI?")


def test_a_name_that_is_no_pack_is_refused_with_the_shipped_ones(tmp_path: Path) -> None:
    with pytest.raises(ConfigurationError, match="finance"):
        load_domains(("legal",))
    (tmp_path / "no-glossary").mkdir()
    with pytest.raises(ConfigurationError, match="glossary.json"):
        load_domains((str(tmp_path / "no-glossary"),))
