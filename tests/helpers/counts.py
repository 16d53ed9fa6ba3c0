"""What a fault must not change: the database's node and relationship counts (from Neo4j's count store, so
cheap), by label and by type when asked."""

from __future__ import annotations

from bookrag_neo4j.db.client import Neo4jClient


async def database_counts(db: Neo4jClient, *, detailed: bool = False) -> dict[str, int]:
    """``{"nodes": n, "relationships": m}``; ``detailed`` adds one entry a label (``:Entity``) and a
    relationship type (``-[:MENTIONS]->``). Test code only: the labels come from the database itself."""
    (row,) = await db.run("MATCH (n) WITH count(n) AS nodes OPTIONAL MATCH ()-[r]->() RETURN nodes, count(r) AS rels")
    counts = {"nodes": row["nodes"], "relationships": row["rels"]}
    if detailed:
        for (label,) in [(r["label"],) for r in await db.run("CALL db.labels() YIELD label RETURN label")]:
            (found,) = await db.run(f"MATCH (n:`{label}`) RETURN count(n) AS n")
            counts[f":{label}"] = found["n"]
        for r in await db.run("CALL db.relationshipTypes() YIELD relationshipType AS t RETURN t"):
            (found,) = await db.run(f"MATCH ()-[r:`{r['t']}`]->() RETURN count(r) AS n")
            counts[f"-[:{r['t']}]->"] = found["n"]
    return {k: v for k, v in counts.items() if v}
