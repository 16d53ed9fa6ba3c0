"""Probe user Cypher cases against the managed test server; print time and outcome."""
import asyncio
import sys
import time

from bookrag_neo4j.db.client import Neo4jClient
from bookrag_neo4j.server import connection_info
from bookrag_neo4j.testing import managed_settings


async def main(queries, gated):
    s = managed_settings()
    async with Neo4jClient(connection_info(s)) as g:
        for q in queries:
            t = time.monotonic()
            try:
                if gated:
                    rows = await g.run_user_query(q, timeout=float(sys.argv[2]) if len(sys.argv) > 2 else 30.0)
                else:
                    rows = await g.run(q)
                out = f"ok {str(rows)[:100]}"
            except Exception as e:
                out = f"{type(e).__name__}: {str(e)[:300]}"
            print(f"{time.monotonic()-t:6.1f}s {q[:90]!r} -> {out}", flush=True)
            t = time.monotonic()
            try:
                await g.run("RETURN 1 AS one")
                print(f"   alive ({time.monotonic()-t:.1f}s)", flush=True)
            except Exception as e:
                print(f"   DEAD {type(e).__name__}", flush=True); return

qs = [l for l in open(sys.argv[1]).read().split("\n") if l.strip()]
asyncio.run(main(qs, gated=True))
