"""Named Cypher queries: every query the product runs is a ``.cypher`` file under ``cypher/``.

A query's name is its path below ``cypher/`` without the suffix::

    from bookrag_neo4j.db.queries import load_query

    text = load_query("server/versions")        # cypher/server/versions.cypher

Queries take ``$parameters`` only; nothing is ever concatenated into their text.
"""

from __future__ import annotations

import re
from functools import cache

from ..errors import QueryNotFoundError
from ..resources import resource_dir

_NAME = re.compile(r"^[a-z0-9_]+(/[a-z0-9_]+)*$")


@cache
def load_query(name: str) -> str:
    """Return the text of the named query (cached)."""
    if not _NAME.match(name):
        raise QueryNotFoundError(f"invalid query name {name!r}")
    path = resource_dir("cypher") / f"{name}.cypher"
    if not path.is_file():
        raise QueryNotFoundError(f"no query named {name!r} (looked for {path})")
    return path.read_text(encoding="utf-8").strip()


def documented_columns(name: str) -> list[str]:
    """The columns a query's ``// Columns: a, b, c`` header documents (the BI queries' contract); [] if none."""
    header = re.search(r"^// Columns: (.+)$", load_query(name), re.MULTILINE)
    return [c.strip() for c in header.group(1).split(",")] if header else []


def split_statements(text: str) -> list[str]:
    """Split a multi-statement file (such as ``schema.cypher``) on ``;`` at line ends, dropping ``//`` comments."""
    lines = [line for line in text.splitlines() if not line.strip().startswith("//")]
    statements = re.split(r";\s*$", "\n".join(lines), flags=re.MULTILINE)
    return [s.strip() for s in statements if s.strip()]
