"""A byte budget for the rows of Cypher a user wrote: ``max_rows`` bounds rows, not bytes, and one row can hold a
100 MB value. The rows stream from the server and are measured as the JSON they become (compact, UTF-8); the
reading stops at the first row over the budget, so what is returned stays bounded and the rest is never pulled.
That row is cut to fit what is left (its long strings, byte arrays, lists and maps shortened, each cut marked
``… [N more characters]``) and the rows say so in one line (:attr:`UserRows.cut`); without ``truncate`` passing the
budget is a :class:`~bookrag_neo4j.errors.UserQueryError` instead, as passing ``max_rows`` is.

    rows = await read_within(result, max_rows=100, max_bytes=1_000_000, truncate=True)   # an AsyncResult
    rows.cut      # None when whole, else what was cut and where
"""

from __future__ import annotations

import itertools
import json
from typing import Any

from ..errors import UserQueryError

BUDGET_SETTING = "BOOKRAG_CYPHER_MAX_BYTES"
VECTOR_MIN = 64  # a list of at least this many floats is an embedding (page numbers and scores are shorter, or ints)
FETCH_SIZE = 100  # records a pull asks the server for: the most read past the budget before the reading stops


class UserRows(list[dict[str, Any]]):
    """The rows of a user's query, as dicts; ``cut`` is None when they are whole, else one line saying how the
    byte budget cut them, and ``cut_at`` the 1-based row where the budget ran out (that row is shortened, or left
    out when not even its shortened form fits; every later row is left out, unread)."""

    cut: str | None = None
    cut_at: int | None = None


def without_vectors(value: Any) -> Any:
    """``value`` with every embedding (a list of at least ``VECTOR_MIN`` floats), at any depth, replaced by a short
    note: a node returned whole would otherwise carry 384 floats per vector property, 8 KB of JSON that no agent or
    reader can use."""
    if isinstance(value, list):
        if len(value) >= VECTOR_MIN and all(isinstance(v, float) for v in value):
            return f"<vector of {len(value)} floats, left out>"
        return [without_vectors(v) for v in value]
    if isinstance(value, dict):
        return {k: without_vectors(v) for k, v in value.items()}
    return value


def json_size(value: Any) -> int:
    """The bytes of ``value`` as compact UTF-8 JSON (values JSON lacks, such as dates, as their strings)."""
    text = json.dumps(value, default=str, ensure_ascii=False, separators=(",", ":"))
    return len(text.encode("utf-8", "replace"))


def least_size(value: Any, over: int) -> int:
    """A lower bound of :func:`json_size`, in time linear in the number of values, not in their length (a
    character is a byte at least); it stops counting once past ``over``. Spares the JSON of a huge value just to
    learn that it does not fit."""
    if isinstance(value, str | bytes | bytearray):
        return len(value) + 2
    if isinstance(value, list | tuple | dict):
        total = 1  # "[" and "]", less the comma the first item does not have
        for item in value.values() if isinstance(value, dict) else value:
            total += least_size(item, over - total) + 1
            if total > over:
                break
        return max(total, 2)
    return 1


def shortened(value: Any, limit: int) -> Any:
    """``value`` with every string and byte array over ``limit`` characters (bytes), list over ``limit`` items
    and map over ``limit`` keys cut to ``limit`` and marked with how much was left out; the rest unchanged."""
    if isinstance(value, str):
        return value if len(value) <= limit else f"{value[:limit]}… [{len(value) - limit:,} more characters]"
    if isinstance(value, bytes | bytearray):
        return value if len(value) <= limit else f"{bytes(value[:limit])!s}… [{len(value) - limit:,} more bytes]"
    if isinstance(value, list | tuple):
        items = [shortened(item, limit) for item in itertools.islice(value, limit)]
        return items + [f"… [{len(value) - limit:,} more items]"] if len(value) > limit else items
    if isinstance(value, dict):
        kept = {key: shortened(item, limit) for key, item in itertools.islice(value.items(), limit)}
        if len(value) > limit:
            kept["…"] = f"[{len(value) - limit:,} more keys]"
        return kept
    return value


def fitted(row: dict[str, Any], room: int) -> dict[str, Any] | None:
    """``row`` shortened (:func:`shortened`) as little as needed for its JSON to take at most ``room`` bytes, or
    None when not even its shortest form fits. A binary search on the limit: each try costs the JSON of the row
    shortened, never more than the row itself."""
    best, low, high = None, 0, room
    while low <= high:
        limit = (low + high) // 2
        candidate = shortened(row, limit)
        if json_size(candidate) <= room:
            best, low = candidate, limit + 1
        else:
            high = limit - 1
    return best


async def read_within(result: Any, *, max_rows: int | None, max_bytes: int, truncate: bool,
                      vectors: bool = True) -> UserRows:
    """The records of ``result`` (an ``AsyncResult``) as :class:`UserRows`, at most ``max_rows`` of them (``None``:
    any number) and at most ``max_bytes`` bytes of JSON in all (the list's brackets and commas counted). Past
    either cap: with ``truncate`` the rows so far (the row that passed the byte budget cut to fit, see
    :attr:`UserRows.cut`), else :class:`~bookrag_neo4j.errors.UserQueryError`. Stops reading at once either way.
    ``vectors=False``: embeddings replaced first (:func:`without_vectors`), so they take none of the budget."""
    rows, used = UserRows(), 2  # "[]"
    async for record in result:
        if max_rows is not None and len(rows) == max_rows:  # one past the cap: only without truncate
            raise UserQueryError(f"the query returned more than {max_rows} rows; add LIMIT (or pass a larger "
                                 "max_rows)")
        row = record.data() if vectors else without_vectors(record.data())
        comma = 1 if rows else 0
        room = max_bytes - used - comma
        size = room + 1 if least_size(row, room) > room else json_size(row)
        if size > room:
            at = len(rows) + 1
            if not truncate:
                raise UserQueryError(
                    f"the query's rows passed {max_bytes:,} bytes (as JSON) at row {at}; return fewer or shorter "
                    f"values, add LIMIT, or pass a larger max_bytes ({BUDGET_SETTING})")
            short = fitted(row, room)
            if short is not None:
                rows.append(short)
            rows.cut, rows.cut_at = _cut_note(max_bytes, at, short is not None), at
            break
        rows.append(row)
        used += size + comma
        if truncate and max_rows is not None and len(rows) == max_rows:
            break
    return rows


def _cut_note(max_bytes: int, at: int, shortened_row: bool) -> str:
    whole = "no row is whole" if at == 1 else f"rows 1–{at - 1} are whole" if at > 2 else "row 1 is whole"
    row = (f"row {at} has its long values cut to fit (marked '… [N more characters]')" if shortened_row
           else f"row {at} did not fit and is left out")
    return (f"the reply reached its {max_bytes:,}-byte cap ({BUDGET_SETTING}) at row {at}: {whole}, {row}, and "
            "any later rows are left out; return fewer or shorter values (e.g. left(s, 1000), size(list)) or "
            "add LIMIT")
