"""The text2Cypher schema read on the default instance's library: the full procedure against the sampled named
query, the time each takes and whether they list the same properties.

    python docs/eval/local-llm-49/schema_cost.py
"""

import asyncio
import time

from bookrag_neo4j.config import Settings
from bookrag_neo4j.db.client import Neo4jClient
from bookrag_neo4j.ops.superrag import HIDDEN_PROPERTIES, SCHEMA_LABELS, SCHEMA_SAMPLE
from bookrag_neo4j.server.manager import connection_info

FULL = """CALL db.schema.nodeTypeProperties() YIELD nodeLabels, propertyName
UNWIND nodeLabels AS label WITH label, propertyName WHERE label IN $labels AND propertyName IS NOT NULL
RETURN label, collect(DISTINCT propertyName) AS properties"""


async def main() -> None:
    async with Neo4jClient(connection_info(Settings())) as db:
        (nodes,) = await db.run("MATCH (n) RETURN count(n) AS n")
        began = time.perf_counter()
        full = {r["label"]: set(r["properties"]) - set(HIDDEN_PROPERTIES)
                for r in await db.run(FULL, {"labels": SCHEMA_LABELS})}
        middle = time.perf_counter()
        sampled = {r["label"]: set(r["properties"]) for r in await db.read(
            "superrag/schema_properties", labels=SCHEMA_LABELS, hidden=HIDDEN_PROPERTIES, sample=SCHEMA_SAMPLE)}
        end = time.perf_counter()
        print(f"{nodes['n']} nodes; full scan {middle - began:.2f} s, sample {end - middle:.2f} s; "
              f"same properties: {full == sampled}")


asyncio.run(main())
