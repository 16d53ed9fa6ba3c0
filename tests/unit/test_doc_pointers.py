"""Every pointer in the user docs (the README and ``docs/*.md``) leads somewhere: a link's file and its anchor, a
repository path in backticks, and a section named in quotes ("see "Models"", "under "Tests"") in the same page."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")
PATH = re.compile(r"`((?:docs|bookrag_neo4j|cypher|prompts|tests|docker|notebooks|\.ci)/[^`\s*{}<>]*)`")
SECTION = re.compile(r"(?:\b[Ss]ee|\bunder|\bbelow,|\babove,|\bin) [\"“]([A-Z][^\"”]{2,60})[\"”]")
FENCE = re.compile(r"^```.*?^```", re.M | re.S)


def headings(page: Path) -> list[str]:
    return [line.lstrip("#").strip() for line in FENCE.sub("", page.read_text()).splitlines() if line.startswith("#")]


def anchor(heading: str) -> str:
    """GitHub's anchor of a heading: lower case, punctuation dropped, spaces as hyphens."""
    return re.sub(r"[^\w\- ]", "", heading.lower()).replace(" ", "-")


def prose(page: Path) -> str:
    return FENCE.sub("", page.read_text())


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_links_and_paths_lead_to_files(page: Path) -> None:
    text = prose(page)
    missing = []
    for target in LINK.findall(text):
        if re.match(r"[a-z]+:", target):
            continue  # a web address
        path, _, fragment = target.partition("#")
        file = (page.parent / path).resolve() if path else page
        if not file.exists():
            missing.append(target)
        elif fragment and file.suffix == ".md" and fragment not in {anchor(h) for h in headings(file)}:
            missing.append(target)
    missing += [p for p in PATH.findall(text)
                if "/_resources" not in p and not (ROOT / p.rstrip(".,:;")).exists()]  # _resources: in the wheel
    assert not missing, f"{page.name}: pointers that lead nowhere: {missing}"


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_named_sections_exist(page: Path) -> None:
    titles = headings(page)
    named = SECTION.findall(" ".join(prose(page).split()))
    missing = [name for name in named if not any(t.startswith(name) for t in titles)]
    assert not missing, f"{page.name}: sections named but not there: {missing}"


def test_the_patterns_find_what_they_should() -> None:
    """The checks above cannot pass by finding nothing."""
    assert LINK.findall("[a](docs/x.md#y)") == ["docs/x.md#y"]
    assert PATH.findall("see `docs/eval/README.md`.") == ["docs/eval/README.md"]
    assert SECTION.findall('see "Models" and (below, "Exploring the index")') == ["Models", "Exploring the index"]
    assert anchor("Adding an operator and a method") == "adding-an-operator-and-a-method"
    assert any(LINK.findall(prose(p)) for p in PAGES) and any(SECTION.findall(prose(p)) for p in PAGES)


def test_the_readme_layout_names_every_part_of_the_package() -> None:
    layout = (ROOT / "README.md").read_text().split("\n## Layout\n", 1)[1]
    package = ROOT / "bookrag_neo4j"
    parts = [p.name + "/" for p in package.iterdir() if p.is_dir() and (p / "__init__.py").exists()]
    parts += [p.name for p in package.glob("*.py") if p.name != "__init__.py"]
    assert len(parts) > 20
    assert [p for p in parts if f"`{p}`" not in layout] == []
