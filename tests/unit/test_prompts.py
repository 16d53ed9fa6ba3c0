"""Prompts are files: every one loads, renders with its variables, and is versioned by content."""

from __future__ import annotations

import pytest

from bookrag_neo4j.errors import ConfigurationError
from bookrag_neo4j.llm.prompts import load_prompt, render_prompt
from bookrag_neo4j.resources import resource_dir

NAMES = sorted(p.stem for p in resource_dir("prompts").glob("*.md") if p.stem != "README")


@pytest.mark.parametrize("name", NAMES)
def test_every_prompt_renders(name: str) -> None:
    template = load_prompt(name)
    rendered = template.render(**{v: f"<{v}>" for v in template.variables})
    assert rendered.messages[-1]["role"] == "user"
    for variable in template.variables:
        assert any(f"<{variable}>" in m["content"] for m in rendered.messages)
    assert len(rendered.version) == 12


def test_paper_prompts_exist_with_their_variables() -> None:
    assert load_prompt("query_classify").variables == {"question"}
    assert load_prompt("query_decompose").variables == {"question"}
    assert load_prompt("global_filter").variables == {"question"}
    assert load_prompt("er_judge").variables == {"new_entity", "candidates"}


def test_missing_variable_and_unknown_prompt_are_errors() -> None:
    with pytest.raises(ConfigurationError, match="question"):
        render_prompt("query_classify")
    with pytest.raises(ConfigurationError):
        load_prompt("no_such_prompt")


def test_json_braces_need_no_escaping_and_values_are_not_expanded() -> None:
    rendered = render_prompt("query_classify", question="What does $HOME cost in {braces}?")
    assert "What does $HOME cost in {braces}?" in rendered.messages[-1]["content"]
    assert '{"category":' in rendered.messages[-1]["content"]


def test_version_is_the_content_hash() -> None:
    import hashlib

    for name in NAMES:
        data = (resource_dir("prompts") / f"{name}.md").read_bytes()
        assert load_prompt(name).version == hashlib.sha256(data).hexdigest()[:12]
