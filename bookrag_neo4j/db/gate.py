"""The read-only gate for Cypher a user wrote: it judges the server's plan of the query, never its text.

:meth:`Neo4jClient.run_user_query <bookrag_neo4j.db.client.Neo4jClient.run_user_query>` plans the query with
``EXPLAIN``, and :func:`check_plan` walks the plan's operator tree, raising
:class:`~bookrag_neo4j.errors.QueryRefusedError` with a one-line reason for: admin and schema commands, operators on
another database, ``Show*``/``Terminate*``, ``LoadCSV``, ``IN TRANSACTIONS``; procedures outside
:data:`ALLOWED_PROCEDURES` (also those a subquery hides); functions with side effects or unknown reach
(``gds.graph.project``, ``gds.*`` outside :data:`ALLOWED_GDS_FUNCTIONS`, ``apoc.*``, ``dbms.*``); work inside one row
that the server's timeout and memory limits cannot stop (:func:`loop_reason`: regular expressions, a loop in a loop,
a loop that works on a whole value from outside it, ``range`` outside ``UNWIND``, over :data:`MAX_CONCATENATIONS`
``+`` and ``||``, a shortest-path search without an upper bound of at most :data:`MAX_SHORTEST_HOPS`); any query not
planned as a read, or not planned at all (:func:`explain_refused`). Threat model: docs/reliability.md.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterator, Mapping
from typing import Any

from ..errors import QueryRefusedError

log = logging.getLogger(__name__)

ALLOWED_PROCEDURES = frozenset({
    "db.index.fulltext.queryNodes", "db.index.fulltext.queryRelationships", "db.index.vector.queryNodes",
    "db.labels", "db.relationshipTypes", "db.propertyKeys",
    "db.schema.visualization", "db.schema.nodeTypeProperties", "db.schema.relTypeProperties",
})
# GDS functions that only compute or read (the plugin's non-procedure surface, GDS 2.x); gds.graph.project, the
# aggregation function that creates a catalog graph, is deliberately not here.
ALLOWED_GDS_FUNCTIONS = frozenset({
    "gds.graph.exists", "gds.version", "gds.isLicensed", "gds.alpha.ml.oneHotEncoding",
})
ALLOWED_GDS_FUNCTION_PREFIXES = ("gds.similarity.", "gds.util.", "gds.alpha.linkprediction.")
DENIED_FUNCTION_PREFIXES = ("apoc.", "dbms.")
QUERY_TYPES = {"rw": "read-write", "w": "write", "s": "a schema change"}
COMMAND_PREFIXES = ("Show", "Terminate")
IN_TRANSACTIONS_OPERATORS = frozenset({"TransactionForeach", "TransactionApply"})
ADMIN_PLANNERS = frozenset({"ADMINISTRATION"})
ADMIN_RUNTIMES = frozenset({"SYSTEM", "SCHEMA"})

_NAME = r"[A-Za-z_][\w]*(?:\.[A-Za-z_][\w]*)*"
_PROCEDURE_DETAILS = re.compile(rf"^\s*({_NAME})\s*\(")  # a ProcedureCall's Details: "db.labels() :: (label :: ...)"
_HIDDEN_CALL = re.compile(rf"\b(?:Resolved|Unresolved)Call\(\s*({_NAME})\s*\(")  # a procedure in a nested plan
_SIGNATURE = re.compile(rf"(?<![\w.])({_NAME})\([^()]*\)\s*::\s*\(")  # "name(args) :: (outputs)": a procedure
_DOTTED_CALL = re.compile(r"(?<![\w.$`])([A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+)\s*\(")  # "gds.util.asNode(": a call
_LOAD_CSV = re.compile(r"\bLOAD\s+CSV\b", re.IGNORECASE)
_SKIPPED_ARGUMENTS = frozenset({"string-representation"})  # the whole plan as a wrapped table: judged per operator
MAX_CONCATENATIONS = 8  # "+" and "||" in one query: a value doubled this often grows 256 times at most
MAX_SHORTEST_HOPS = 8  # the longest shortest-path search: its breadth-first search runs inside one row
_SHORTEST_OPERATORS = ("ShortestPath", "StatefulShortestPath", "LegacyShortestPath")
_UPPER_BOUND = re.compile(r"\{\s*\d*\s*,\s*(\d*)\s*\}|\*\s*(?:\d*\s*\.\.\s*(\d*)|(\d+))?")  # {1, 3}, *, *..5, *2
_CLOSING = {"[": "]", "(": ")", "{": "}"}
_MEMBERSHIP = re.compile(r"\sIN\s+(?!\$)", re.IGNORECASE)  # x IN list, but not IN $parameter (the caller's)
_REDUCE = re.compile(r"\breduce\s*\(", re.IGNORECASE)
_RANGE = re.compile(r"\brange\s*\(", re.IGNORECASE)
_PLUS = re.compile(r"\s(?:\+|\|\|)\s")  # a + b, a || b
_QUOTED_NAME = re.compile(r"`[^`]*`")  # a column or variable name in backticks: text, not an expression
_STRING = re.compile(r"'(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\"")
_LOOP_HEAD = re.compile(r"(?:\[|\b(?:all|any|none|single)\s*\()\s*`?(\w+)`?\s+IN\s", re.IGNORECASE)
_VARIABLE = re.compile(r"(?<![\w$.:`])([A-Za-z_]\w*)(?![\w`])")
_KEYWORDS = frozenset({"and", "or", "xor", "not", "in", "is", "null", "true", "false", "contains", "starts", "ends",
                       "with", "where", "case", "when", "then", "else", "end", "distinct", "as", "nan", "inf"})


def check_plan(plan: Any, *, query_type: str | None, database: str | None, allowed_database: str) -> None:
    """Raise :class:`~bookrag_neo4j.errors.QueryRefusedError` unless the planned query may run through the gate."""
    reason = refusal_reason(plan, query_type=query_type, database=database, allowed_database=allowed_database)
    if reason is not None:
        log.info("refused user Cypher: %s", reason)
        raise QueryRefusedError(reason)


def refusal_reason(plan: Any, *, query_type: str | None, database: str | None, allowed_database: str) -> str | None:
    """Why the gate refuses the planned query (one line), or ``None`` when it may run. ``plan`` is the driver's
    ``summary.plan``; ``database`` is ``summary.database``."""
    if plan is None:
        return "the server returned no plan for this query, so it cannot be checked"
    for operator in _operators(plan):
        reason = _operator_reason(operator, allowed_database)
        if reason is not None:
            return reason
    if database is not None and not _same_database(database, allowed_database):
        return _database_reason(database, allowed_database)
    if query_type != "r":
        return (f"only read-only Cypher may run here; the server plans this query as "
                f"{QUERY_TYPES.get(query_type or '', query_type)}")
    return loop_reason(plan)


def loop_reason(plan: Any) -> str | None:
    """Why the plan does work inside one row that neither the timeout nor the memory limit can stop (the
    module's docstring lists it), or ``None``. Run after the other checks, so that their reasons come first."""
    plus = 0
    for op in _operators(plan):
        for text in map(_unquoted, op.texts()):
            if "=~" in text:
                return ("regular expressions (=~) are not allowed here: a pattern can run past any timeout; use "
                        "CONTAINS, STARTS WITH, ENDS WITH or the full-text index (db.index.fulltext.queryNodes)")
            if _REDUCE.search(text):
                return "reduce() is not allowed here: it loops inside one row, past the timeout; use UNWIND"
            if _nested_iteration(text):
                return ("a loop over a list (a list comprehension, any/all/none/single, x IN list) inside another "
                        "is not allowed here: it runs inside one row, past the timeout; use UNWIND")
            if _RANGE.search(text) and op.name != "Unwind":
                return "range() outside UNWIND is not allowed here (UNWIND range(1, 10) AS i is)"
            outside = _outer_value_in_loop(text)
            if outside is not None:
                return (f"the value {outside!r} from outside a loop over a list is not allowed here inside it, "
                        f"except read by property or index ({outside}.name, {outside}[k]): anything else works on "
                        "the whole value once per item, inside one row, past the timeout; use UNWIND")
            plus += len(_PLUS.findall(text))
        if op.name.startswith(_SHORTEST_OPERATORS) and not _bounded(op):
            hops = MAX_SHORTEST_HOPS
            return (f"a shortest-path search without an upper bound of at most {hops} hops is not allowed here: the "
                    "server cannot stop its search at the timeout; bound it, e.g. "
                    f"ANY SHORTEST (a)-[:RELATED]-{{1,{hops}}}(b) or shortestPath((a)-[*..{hops}]-(b))")
    if plus > MAX_CONCATENATIONS:
        return (f"more than {MAX_CONCATENATIONS} '+' or '||' operators in one query are not allowed here: repeated "
                "concatenation grows a string or list past any memory limit")
    return None


def _unquoted(text: str) -> str:
    """``text`` with each name in backticks (a column, or a variable such as `my list`) replaced by a plain one of
    its own, and string literals emptied: what remains is the expression."""
    names: dict[str, str] = {}
    text = _QUOTED_NAME.sub(lambda m: names.setdefault(m.group(0), f"quoted_{len(names)}"), text)
    return _STRING.sub("''", text)


def _bounded(op: _Operator) -> bool:
    """Whether every repetition in a shortest-path operator's pattern has an upper bound of at most
    :data:`MAX_SHORTEST_HOPS` (``{1, 3}``, ``*..5``, ``*2``; not ``{1, }``, ``+`` or ``*``)."""
    details = " ".join(op.texts())
    bounds = [next((g for g in m.groups() if g is not None), "") for m in _UPPER_BOUND.finditer(details)]
    return bool(bounds) and all(b.isdigit() and int(b) <= MAX_SHORTEST_HOPS for b in bounds)


def _outer_value_in_loop(text: str) -> str | None:
    """The first variable from outside a list comprehension or quantifier that its body uses whole (in a function,
    a concatenation, a comparison), not by property or index: the work on it repeats once per item inside one
    row. Parameters and the loop's own variable are fine."""
    for head in _LOOP_HEAD.finditer(text):
        own = head.group(1)
        body = _loop_body(text, head.end())
        for found in _VARIABLE.finditer(body):
            name = found.group(1)
            rest = body[found.end():].lstrip()
            if name == own or name.casefold() in _KEYWORDS or rest.startswith(("(", ".", "[", ":")):
                continue
            return name
    return None


def _loop_body(text: str, start: int) -> str:
    """What follows a loop's ``x IN list`` (from ``start``) up to its closing bracket: its ``WHERE`` and ``|``
    parts without the list (the list is evaluated once)."""
    depth, end = 0, len(text)
    body_start: int | None = None
    for i in range(start, len(text)):
        char = text[i]
        if char in _CLOSING:
            depth += 1
        elif char in _CLOSING.values():
            if depth == 0:
                end = i
                break
            depth -= 1
        elif depth == 0 and body_start is None and (char == "|" or text.startswith(" WHERE ", i)):
            body_start = i
    return "" if body_start is None else text[body_start:end]


def procedure_reason(name: str) -> str | None:
    """Why calling procedure ``name`` is refused, or ``None`` when it is on :data:`ALLOWED_PROCEDURES`."""
    return None if name in ALLOWED_PROCEDURES else f"procedure {name} is not allowed here"


def function_reason(name: str) -> str | None:
    """Why calling function ``name`` is refused, or ``None`` for an ordinary function."""
    if name.startswith("gds."):
        if name in ALLOWED_GDS_FUNCTIONS or name.startswith(ALLOWED_GDS_FUNCTION_PREFIXES):
            return None
        if name == "gds.graph.project":
            return "function gds.graph.project is not allowed here (it creates a GDS catalog graph)"
        return f"{name} is not allowed here (only GDS similarity and utility functions are)"
    if name.startswith(DENIED_FUNCTION_PREFIXES):
        return f"function {name} is not allowed here"
    return None


def _nested_iteration(text: str) -> bool:
    """Whether a list comprehension or quantifier holds another one or a search of a list (``x IN t``, which the
    planner also makes of ``any(y IN t WHERE y = x)``): a loop over a loop, quadratic in a list that one loop alone
    walks in linear time."""
    starts = [m.start() for m in _LOOP_HEAD.finditer(text)]
    for start in starts:
        depth, end = 0, len(text)
        for i in range(start, len(text)):
            if text[i] in _CLOSING:
                depth += 1
            elif text[i] in _CLOSING.values():
                depth -= 1
                if depth == 0:
                    end = i
                    break
        inner = text[start:end]
        if any(start < other < end for other in starts) or len(_MEMBERSHIP.findall(inner)) > 1:
            return True  # a loop, or a search of a list (x IN t), inside the loop; the first IN is its own
    return False


def explain_refused(code: str | None, message: str | None) -> QueryRefusedError:
    """The refusal of a query the server would not even plan (a syntax error, an unknown procedure, ``USE`` of
    another graph): the gate cannot check it, so it does not run. One line: the code and the message's first."""
    first = (message or "").strip().splitlines()[0] if (message or "").strip() else "no message"
    return QueryRefusedError(f"the server refused to plan this query: {code or 'error'}: {first}")


class _Operator:
    """One plan operator, whatever shape the driver gave it."""

    def __init__(self, raw: Any) -> None:
        if isinstance(raw, Mapping):
            self.type_: str = str(raw.get("operatorType") or raw.get("operator_type") or "")
            args = raw.get("args", raw.get("arguments")) or {}
            self.children: list[Any] = list(raw.get("children") or [])
        else:  # a plan object (older drivers): operator_type, arguments, children
            self.type_ = str(getattr(raw, "operator_type", "") or "")
            args = getattr(raw, "arguments", None) or {}
            self.children = list(getattr(raw, "children", None) or [])
        self.args: Mapping[str, Any] = args if isinstance(args, Mapping) else {}
        self.name, _, self.database = self.type_.partition("@")

    def texts(self) -> Iterator[str]:
        """The operator's string arguments (``Details`` and the like), the whole-plan table excepted."""
        for key, value in self.args.items():
            if key not in _SKIPPED_ARGUMENTS and isinstance(value, str):
                yield value


def _operators(plan: Any) -> Iterator[_Operator]:
    """Every operator of the plan, depth first, the root first."""
    stack = [plan]
    while stack:
        operator = _Operator(stack.pop())
        yield operator
        stack.extend(reversed(operator.children))


def _operator_reason(op: _Operator, allowed_database: str) -> str | None:
    if "." in op.name:  # the system runtime names the operator after its procedure: "dbms.components@system"
        reason = procedure_reason(op.name)
        if reason is not None:
            return reason
    elif op.name == "AdministrationCommand" or op.args.get("planner") in ADMIN_PLANNERS \
            or op.args.get("runtime") in ADMIN_RUNTIMES:
        if op.args.get("runtime") == "SCHEMA":
            return f"{_words(op.name)} is not allowed here (a schema command)"
        return "administration commands (users, roles, databases, privileges) are not allowed here"
    if op.database and not _same_database(op.database, allowed_database):
        return _database_reason(op.database, allowed_database)
    if op.name.startswith(COMMAND_PREFIXES):
        return f"{_words(op.name)} is not allowed here"
    if op.name == "LoadCSV":
        return "LOAD CSV is not allowed here"
    if op.name in IN_TRANSACTIONS_OPERATORS:
        return "CALL { ... } IN TRANSACTIONS is not allowed here"
    if op.name == "ProcedureCall":
        found = _PROCEDURE_DETAILS.match(str(op.args.get("Details", "")))
        if found is None:
            return "a procedure call the gate cannot name is not allowed here"
        reason = procedure_reason(found.group(1))
        if reason is not None:
            return reason
    for text in op.texts():
        reason = _text_reason(text)
        if reason is not None:
            return reason
    return None


def _text_reason(text: str) -> str | None:
    """What an operator's argument text reveals: a procedure or LOAD CSV in a nested plan, a refused function."""
    if _LOAD_CSV.search(text):
        return "LOAD CSV is not allowed here"
    procedures = {m.group(1) for pattern in (_HIDDEN_CALL, _SIGNATURE) for m in pattern.finditer(text)}
    for name in sorted(procedures):
        reason = procedure_reason(name)
        if reason is not None:
            return reason
    for found in _DOTTED_CALL.finditer(text):
        if found.group(1) not in procedures:
            reason = function_reason(found.group(1))
            if reason is not None:
                return reason
    return None


def _same_database(name: str, allowed: str) -> bool:
    return name.casefold() == allowed.casefold()


def _database_reason(name: str, allowed: str) -> str:
    return f"queries on database {name!r} are not allowed here (only {allowed!r})"


def _words(operator: str) -> str:
    """``ShowTransactions`` -> ``SHOW TRANSACTIONS``."""
    return re.sub(r"(?<=[a-z])(?=[A-Z])", " ", operator).upper()
