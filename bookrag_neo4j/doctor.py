"""``bookrag doctor``: what is configured and whether it works, each with a one-line reason when not.

    from bookrag_neo4j.doctor import run_doctor
    report = run_doctor(Settings())
    report["gds"].ok, report["gds"].detail
"""

from __future__ import annotations

import asyncio

from pydantic import BaseModel

from .config import Settings
from .errors import BookRAGError
from .graph.client import GraphClient
from .graph.schema import VECTOR_INDEXES
from .server.manager import connection_info

REQUIRED = ("neo4j", "gds", "vector_index")
MODELS = ("embedder", "reranker", "llm", "vlm")


class Check(BaseModel):
    """One line of the doctor's report."""

    ok: bool
    detail: str


async def _graph_checks(settings: Settings) -> dict[str, Check]:
    conn = connection_info(settings)
    async with GraphClient(conn) as graph:
        versions = await graph.versions()
        checks = {"neo4j": Check(ok=True, detail=f"Neo4j {versions.neo4j_version} {versions.edition} at {conn.uri}")}
        checks["gds"] = (
            Check(ok=True, detail=f"Graph Data Science {versions.gds_version}")
            if versions.gds_version
            else Check(ok=False, detail="the Graph Data Science plugin is not installed on this server")
        )
        (support,) = await graph.read("server/vector_support")
        if not support["supported"]:
            checks["vector_index"] = Check(ok=False, detail="this Neo4j has no vector indexes (needs 5.13 or later)")
        else:
            indexes = {i["name"]: i for i in await graph.read("schema/indexes")}
            missing = [name for name in VECTOR_INDEXES if name not in indexes]
            detail = (
                f"supported; schema not applied yet ({', '.join(missing)} missing): run `bookrag neo4j init`"
                if missing
                else "; ".join(f"{n}: {indexes[n]['dimensions']} dims, {indexes[n]['state']}" for n in VECTOR_INDEXES)
            )
            checks["vector_index"] = Check(ok=True, detail=detail)
    return checks


def run_doctor(settings: Settings) -> dict[str, Check]:
    """Check Neo4j, GDS, vector index support and the configured models."""
    try:
        checks = asyncio.run(_graph_checks(settings))
    except BookRAGError as exc:
        checks = {name: Check(ok=False, detail=str(exc)) for name in REQUIRED}
    for name in MODELS:
        checks[name] = Check(ok=False, detail="not configured: this version has no model layer yet")
    return checks
