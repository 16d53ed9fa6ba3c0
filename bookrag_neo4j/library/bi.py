"""The BI queries (``cypher/bi/``): flat, read-only tables of the library for spreadsheets and BI tools, each
with the columns its ``// Columns:`` header documents.

    table = await bi_table(db, "sections", doc="R-intro.pdf")
    table.columns, table.rows[0], table.records()[0]["section_path"]
"""

from __future__ import annotations

from pydantic import BaseModel

from ..db.client import Neo4jClient
from ..db.queries import documented_columns
from ..errors import QueryNotFoundError
from ..resources import resource_dir

Scalar = str | int | float | bool | None


class BiTable(BaseModel):
    """A BI query's table: its documented ``columns`` and its ``rows``, each a list of scalars in column order."""

    name: str
    columns: list[str]
    rows: list[list[Scalar]]

    def records(self) -> list[dict[str, Scalar]]:
        """The rows as dicts by column (for ``csv.DictWriter`` or ``pandas.DataFrame``)."""
        return [dict(zip(self.columns, row, strict=True)) for row in self.rows]


def bi_queries() -> list[str]:
    """The names of the BI queries."""
    return sorted(p.stem for p in (resource_dir("cypher") / "bi").glob("*.cypher"))


async def bi_table(db: Neo4jClient, name: str, *, doc: str | None = None, limit: int = 20) -> BiTable:
    """The table of BI query ``name``: one document's rows (by file name) or the library's; QueryNotFoundError for
    a name that is not a BI query."""
    if name not in (names := bi_queries()):
        raise QueryNotFoundError(f"{name!r} is not a BI query: {', '.join(names)}")
    columns = documented_columns(f"bi/{name}")
    rows = await db.read(f"bi/{name}", doc=doc, limit=limit)
    return BiTable(name=name, columns=columns, rows=[[row[c] for c in columns] for row in rows])
