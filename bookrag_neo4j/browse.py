"""Neo4j Browser links that open the BookIndex with a ready query (``bookrag browse``).

    url = browser_url("http://localhost:7474/browser/", "toc", {"doc": "R-intro.pdf"})
    # http://localhost:7474/browser/?cmd=edit&arg=WITH%20%22R-intro.pdf%22%20AS%20doc...  (editor prefilled)

The queries are the files in ``cypher/browser/``. Each one that takes parameters binds them on its first line
(``WITH $doc AS doc, $section AS section``) and uses only the variables after it, so the same file runs with
parameters from the SDK and, in a link, with that line's parameters replaced by literals: one statement that
the user runs with one click and edits in one place. Browser 5 (``cmd=edit``) puts every ``arg`` on a line of
its editor; it decodes the whole URL once and then cuts ``arg`` at the first ``&`` or ``#``, so literals escape
those two as ``\\u0026`` / ``\\u0023`` (Cypher string escapes) and the files hold neither.

``style_url`` prefills ``:style`` with ``bookindex.grass`` (hex colours written as ``rgb()``, for the same
reason), so the BookIndex style is one click away too. ``login_base`` adds the connection to the base URL (Browser's
``dbms``, ``db`` and ``preselectAuthMethod`` parameters), so its login form opens with the server and the user
filled in and asks for the password alone.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

from pydantic import BaseModel

from .db.queries import load_query
from .resources import resource_dir

if TYPE_CHECKING:
    from .config import Settings

_BINDING = re.compile(r"^WITH (\$(\w+) AS (\w+))(, \$(\w+) AS (\w+))*$")
_BOUND = re.compile(r"\$(\w+) AS (\w+)")
_CUTS = {"&": "\\u0026", "#": "\\u0023"}
_HEX = re.compile(r"#([0-9A-Fa-f]{6})\b")


class EvidenceEdge(BaseModel):
    """An edge of an answer's evidence graph (``retrieval/evidence_graph``): its ends' keys, kinds and captions."""

    source: str
    source_kind: str
    source_caption: str
    type: str
    target: str
    target_kind: str
    target_caption: str

def cypher_literal(value: Any) -> str:
    """A JSON value as a Cypher literal (strings double-quoted with JSON escapes, which Cypher reads too)."""
    text = json.dumps(value, ensure_ascii=True)
    for char, escape in _CUTS.items():
        text = text.replace(char, escape)
    return text


def browser_query(name: str, params: Mapping[str, Any] | None = None) -> str:
    """The named query of ``cypher/browser/`` without its comments, its binding line's parameters replaced
    by the literals of ``params`` (which must name exactly the parameters it binds)."""
    lines = [line for line in load_query(f"browser/{name}").splitlines() if not line.lstrip().startswith("//")]
    binding = _BINDING.match(lines[0])
    wanted = {p for p, _ in _BOUND.findall(lines[0])} if binding else set()
    if wanted != set(params or {}):
        raise ValueError(f"browser/{name} takes parameters {sorted(wanted)}, not {sorted(params or {})}")
    if binding:
        assert params is not None
        lines[0] = "WITH " + ", ".join(f"{cypher_literal(params[p])} AS {v}" for p, v in _BOUND.findall(lines[0]))
    if set("\n".join(lines[1:])) & {"$", *_CUTS}:
        raise ValueError(f"browser/{name} uses '$', '&' or '#' after its binding line")
    return "\n".join(lines)


def login_base(base: str, uri: str, username: str, database: str) -> str:
    """``base`` (the Browser's URL) with the login form's server, database and user filled in."""
    scheme, _, address = uri.partition("://")
    dbms = f"{scheme}://{quote(username, safe='')}@{address}"
    return (base.rstrip("/") + f"/?dbms={quote(dbms, safe=':/@')}&db={quote(database, safe='')}"
            "&preselectAuthMethod=NATIVE")


def managed_browser(settings: Settings, browser: str | None = None) -> tuple[str, str]:
    """The base of this library's Browser links (``browser``, default the managed server's Browser), with the
    login filled in, and one line saying who logs in and where the password is."""
    uri = settings.neo4j.uri or f"bolt://localhost:{settings.neo4j.bolt_port}"  # no password read: none is shown
    user = settings.neo4j.username if settings.neo4j.uri else "neo4j"
    base = browser or f"http://localhost:{settings.neo4j.http_port}/browser/"
    where = "NEO4J_PASSWORD" if settings.neo4j.uri else f"in {settings.password_file}"
    return login_base(base, uri, user, settings.neo4j.database), f"log in as {user}; the password is {where}"


def _link(base: str, lines: list[str]) -> str:
    start = base + "&" if "?" in base else base.rstrip("/") + "/?"
    return start + "cmd=edit" + "".join(f"&arg={quote(line, safe='')}" for line in lines)


def browser_url(base: str, name: str, params: Mapping[str, Any] | None = None) -> str:
    """A Browser URL whose editor holds the named query with ``params`` written in."""
    return _link(base, [browser_query(name, params)])


def style_url(base: str) -> str:
    """A Browser URL whose editor holds ``:style`` and the BookIndex GraSS (press Run once per browser)."""
    grass = (resource_dir("cypher") / "browser" / "bookindex.grass").read_text()
    grass = _HEX.sub(lambda m: "rgb({}, {}, {})".format(*bytes.fromhex(m.group(1))), grass)
    if set(grass) & set(_CUTS):
        raise ValueError("bookindex.grass holds '&' or '#' that are not hex colours")
    return _link(base, [":style " + grass.strip()])


def answer_trace_params(answer: Mapping[str, Any]) -> dict[str, list[str]]:
    """``nodes`` (the evidence keys) and ``seeds`` (the question's linked entities) of an answer or evidence
    as ``bookrag ask --json`` / ``bookrag retrieve --json`` print it."""
    nodes = [n["key"] for n in answer.get("evidence") or answer.get("nodes") or []]
    if not nodes:
        raise ValueError("the answer has no evidence nodes")
    return {"nodes": nodes, "seeds": list(answer.get("seeds") or [])}


def answer_url(base: str, answer: Mapping[str, Any]) -> str:
    """A Browser URL for an answer's evidence (as ``bookrag ask --json`` prints it): G²-Reader's readout
    subgraph for its methods, else the evidence neighbourhood with the entities Graph_Reasoning used."""
    params = answer_trace_params(answer)
    if str((answer.get("plan") or {}).get("method", "")).startswith("g2"):
        return browser_url(base, "g2_readout", {"nodes": params["nodes"]})
    return browser_url(base, "answer_neighbourhood", params)
