"""Domain packs: the shipped finance pack (its glossary), none, a pack of one's own beside it,
and a name that is no pack."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bookrag_neo4j.domains import glossary_for, load_domains, names_of
from bookrag_neo4j.errors import ConfigurationError
from bookrag_neo4j.retrieval.glossary import Glossary


def test_the_finance_pack_brings_its_glossary() -> None:
    finance = load_domains(("finance",))
    assert finance.glossary.sub_questions("What is Acme's FY2017 return on assets?") == [
        "What is Acme's FY2017 net income?", "What is Acme's FY2017 total assets?"]
    assert len(glossary_for("finance", "shipped").entries) == len(Glossary.load("shipped").entries) > 40


def test_no_pack_plans_without_a_glossary_and_a_file_overrides_the_packs(tmp_path: Path) -> None:
    assert names_of(" finance , ") == ("finance",) and names_of("") == ()
    none = load_domains(())
    assert none.glossary.sub_questions("What is Acme's return on assets?") == []
    assert glossary_for("", "shipped").entries == [] and glossary_for("finance", "").entries == []


def test_a_pack_of_ones_own_adds_to_the_shipped_one(tmp_path: Path) -> None:
    pack = tmp_path / "clinical"
    pack.mkdir()
    (pack / "glossary.json").write_text(json.dumps({"entries": [
        {"terms": ["body mass index", "bmi"], "parts": ["body weight", "body height"]}]}))
    both = load_domains(("finance", str(pack)))
    assert both.glossary.sub_questions("What was the patients' BMI?") == [
        "What was the patients' body weight?", "What was the patients' body height?"]
    assert both.glossary.sub_questions("What is the return on assets?")  # finance's entries stay


def test_a_name_that_is_no_pack_is_refused_with_the_shipped_ones(tmp_path: Path) -> None:
    with pytest.raises(ConfigurationError, match="finance"):
        load_domains(("legal",))
    (tmp_path / "no-glossary").mkdir()
    with pytest.raises(ConfigurationError, match="glossary.json"):
        load_domains((str(tmp_path / "no-glossary"),))
