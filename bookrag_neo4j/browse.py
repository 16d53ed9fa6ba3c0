"""Neo4j Browser links that open the BookIndex with a ready query (``bookrag browse``).

    url = browser_url("http://localhost:7474/browser/", "toc", {"doc": "R-intro.pdf"})
    # http://localhost:7474/browser/?cmd=edit&arg=%3Aparam%20%7Bdoc%3A%20...  (editor prefilled, not run)

The queries are the files in ``cypher/browser/``. Browser 5 (``cmd=edit``) puts every ``arg`` on its own line
of the editor: first a ``:param {...}`` line with the parameters as a Cypher map literal, then the query; the
user presses Run. Browser decodes the whole URL once and then cuts ``arg`` at the first ``&`` or ``#``, so the
values escape those two as ``\\u0026`` / ``\\u0023`` (Cypher string escapes) and the query files hold neither.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any
from urllib.parse import quote

from .graph.queries import load_query

_IDENTIFIER = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_CUTS = {"&": "\\u0026", "#": "\\u0023"}


def cypher_literal(value: Any) -> str:
    """A JSON value as a Cypher literal (strings double-quoted with JSON escapes, which Cypher reads too)."""
    text = json.dumps(value, ensure_ascii=True)
    for char, escape in _CUTS.items():
        text = text.replace(char, escape)
    return text


def param_command(params: Mapping[str, Any]) -> str:
    """``:param {name: "value", ...}`` for Browser."""
    for name in params:
        if not _IDENTIFIER.match(name):
            raise ValueError(f"invalid parameter name {name!r}")
    return ":param {" + ", ".join(f"{k}: {cypher_literal(v)}" for k, v in params.items()) + "};"


def browser_query(name: str) -> str:
    """The named query of ``cypher/browser/`` without its comment lines."""
    text = "\n".join(line for line in load_query(f"browser/{name}").splitlines() if not line.lstrip().startswith("//"))
    if set(text) & set(_CUTS):
        raise ValueError(f"browser/{name} holds '&' or '#', which Browser's URL parameter cannot carry")
    return text


def browser_url(base: str, name: str, params: Mapping[str, Any] | None = None) -> str:
    """A Browser URL whose editor holds the ``:param`` line (when there are parameters) and the query."""
    lines = ([param_command(params)] if params else []) + [browser_query(name)]
    return base.rstrip("/") + "/?cmd=edit" + "".join(f"&arg={quote(line, safe='')}" for line in lines)


def answer_trace_params(answer: Mapping[str, Any]) -> dict[str, list[str]]:
    """``nodes`` (the evidence keys) and ``seeds`` (the question's linked entities) of an answer or evidence
    as ``bookrag ask --json`` / ``bookrag retrieve --json`` print it."""
    nodes = [n["key"] for n in answer.get("evidence") or answer.get("nodes") or []]
    seeds = [s for step in answer.get("trace") or [] if step.get("operator") == "Extract"
             for s in step.get("detail", {}).get("seeds", [])]
    if not nodes:
        raise ValueError("the answer has no evidence nodes")
    return {"nodes": nodes, "seeds": list(dict.fromkeys(seeds))}
