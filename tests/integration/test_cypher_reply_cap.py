"""The SDK's ``run_cypher`` bounds the bytes of its rows, not only their count: a 3 MB value, or 1,000 rows of
5 KB, is an error naming the cap (BOOKRAG_CYPHER_MAX_BYTES, 1,000,000 by default), or with ``truncate=True`` the
rows that fit, the next one's long values cut and marked, and ``rows.cut`` saying so; ``max_bytes=None`` lifts
the cap. MCP's read_cypher through stdio: tests/integration/test_mcp.py."""

from __future__ import annotations

import json

import pytest

from bookrag_neo4j.config import Settings
from bookrag_neo4j.db.client import Neo4jClient
from bookrag_neo4j.errors import UserQueryError
from bookrag_neo4j.sdk import BookRAG

BIG = "MATCH (p:CapProbe {doc_key: 'test-cap-probe'}) RETURN p.text AS text, size(p.text) AS n"
MANY = "MATCH (p:CapProbe {doc_key: 'test-cap-probe'}) UNWIND range(1, 1000) AS i RETURN i, left(p.text, 5000) AS part"


def json_bytes(rows: list) -> int:
    return len(json.dumps(rows, ensure_ascii=False, separators=(",", ":")).encode())


async def test_run_cypher_caps_the_bytes_of_its_rows(settings: Settings, db: Neo4jClient) -> None:
    await db.run("CREATE (:CapProbe {doc_key: 'test-cap-probe', text: $text})", {"text": "é" * 1_500_000})
    async with BookRAG(settings, use_llm=False) as rag:
        with pytest.raises(UserQueryError, match=r"passed 1,000,000 bytes \(as JSON\) at row 1; .*max_bytes "
                                                 r"\(BOOKRAG_CYPHER_MAX_BYTES\)"):
            await rag.arun_cypher(BIG)
        with pytest.raises(UserQueryError, match="at row 10[0-9]; "):  # 5,000 two-byte characters a row
            await rag.arun_cypher(MANY)

        (row,) = cut = await rag.arun_cypher(BIG, truncate=True)
        assert row["n"] == 1_500_000 and row["text"].endswith(" more characters]"), row["text"][-60:]
        assert 900_000 < json_bytes(cut) <= 1_000_000 and cut.cut_at == 1
        assert "1,000,000-byte cap (BOOKRAG_CYPHER_MAX_BYTES) at row 1" in cut.cut, cut.cut

        rows = await rag.arun_cypher(MANY, truncate=True, max_bytes=200_000)
        assert json_bytes(rows) <= 200_000 and [r["i"] for r in rows] == list(range(1, len(rows) + 1))
        assert rows.cut_at == len(rows) and len(rows[-1]["part"]) < 5000 and len(rows[0]["part"]) == 5000
        assert "rows 1–" in rows.cut and f"row {len(rows)} has its long values cut" in rows.cut, rows.cut

        whole = await rag.arun_cypher(BIG, max_bytes=None)
        assert len(whole[0]["text"]) == 1_500_000
        small = await rag.arun_cypher("UNWIND range(1, 3) AS i RETURN i")
        assert small == [{"i": 1}, {"i": 2}, {"i": 3}] and small.cut is None
    capped = BookRAG(settings.replace(cypher_max_bytes=50_000), use_llm=False)  # the setting is the default cap
    with pytest.raises(UserQueryError, match="passed 50,000 bytes"):
        capped.run_cypher(BIG)
