"""A real BI client path: the Neo4j JDBC driver, from a small JVM program (``docker/jdbc/BiQuery.java``, run
by Java 17 as a single source file), runs the BI queries of ``cypher/bi/`` with named parameters and a SQL
``SELECT`` (SQL translation) against the test server. Marked ``bi``; ``make test`` fetches the driver
(``make jdbc``) and runs it."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from bookrag_neo4j.db.client import ConnectionInfo
from bookrag_neo4j.index.pipeline import Indexer
from bookrag_neo4j.llm import Models
from bookrag_neo4j.resources import resource_dir

from ..helpers.pdfs import FOOTLOCKER, need
from ..helpers.timeouts import LONG_TEST

pytestmark = [pytest.mark.bi, pytest.mark.timeout(LONG_TEST)]  # indexes a real 8-K unless it is

JDBC_DIR = Path.home() / ".cache" / "bookrag-neo4j" / "jdbc"
PROGRAM = Path(__file__).resolve().parents[2] / "docker" / "jdbc" / "BiQuery.java"


def driver_jar() -> Path:
    jars = sorted(JDBC_DIR.glob("neo4j-jdbc-full-bundle-*.jar")) or sorted(JDBC_DIR.glob("neo4j-jdbc-bundle-*.jar"))
    if not jars or not shutil.which("java"):
        pytest.fail(f"the Neo4j JDBC driver (in {JDBC_DIR}) or java is missing: `make jdbc` fetches the driver")
    return jars[-1]


def jdbc_url(conn: ConnectionInfo, sql: bool = False) -> str:
    scheme, rest = conn.uri.split("://", 1)
    url = f"jdbc:{scheme.replace('bolt', 'neo4j')}://{rest.rstrip('/')}/{conn.database}"
    return url + "?enableSQLTranslation=true" if sql else url


def bi_query(conn: ConnectionInfo, *args: str, sql: bool = False) -> subprocess.CompletedProcess:
    env = {**os.environ, "NEO4J_USERNAME": conn.username, "NEO4J_PASSWORD": conn.password}
    return subprocess.run(["java", "-cp", str(driver_jar()), str(PROGRAM), jdbc_url(conn, sql), *args],
                          capture_output=True, text=True, env=env, timeout=600)  # compiles, starts a JVM: a hang only


def table(result: subprocess.CompletedProcess) -> list[dict[str, str]]:
    assert result.returncode == 0, result.stderr
    header, *lines = result.stdout.rstrip("\n").split("\n")
    return [dict(zip(header.split("\t"), line.split("\t"), strict=True)) for line in lines]


@pytest.fixture
async def footlocker(db, settings) -> str:
    await Indexer(db, settings, Models.from_settings(settings), use_llm=False).index(need(FOOTLOCKER))
    return FOOTLOCKER.name


async def test_jdbc_runs_the_bi_queries_with_named_parameters(db, conn, footlocker) -> None:
    bi = resource_dir("cypher") / "bi"
    expected = await db.run_user_query((bi / "sections.cypher").read_text(), {"doc": footlocker})
    rows = table(bi_query(conn, str(bi / "sections.cypher"), f"doc={footlocker}"))
    assert rows and list(rows[0]) == list(expected[0])  # the documented columns, in order
    assert [(r["section"], r["level"], r["page_start"]) for r in rows] == \
        [(e["section"], str(e["level"]), str(e["page_start"])) for e in expected]
    documents = {r["document"]: r for r in table(bi_query(conn, str(bi / "documents.cypher"), "doc="))}  # '': all
    library = {r["document"]: r for r in await db.run_user_query((bi / "documents.cypher").read_text(),
                                                                     {"doc": None})}
    assert documents.keys() == library.keys()
    assert documents[footlocker]["pages"] == str(library[footlocker]["pages"])
    assert int(documents[footlocker]["sections"]) == len(expected)


async def test_jdbc_connections_of_bi_users_are_read_only(db, conn, tmp_path: Path) -> None:
    write = tmp_path / "write.cypher"
    write.write_text("CREATE (x:Intruder) RETURN x")
    result = bi_query(conn, str(write))
    assert result.returncode == 1 and "Writing in read access mode not allowed" in result.stderr
    assert await db.run_user_query("MATCH (x:Intruder) RETURN count(x) AS n") == [{"n": 0}]


async def test_jdbc_sql_select_over_document(db, conn, footlocker) -> None:
    result = bi_query(conn, "--sql", "SELECT name FROM Document", sql=True)
    if "full-bundle" not in driver_jar().name:
        assert result.returncode == 1 and "No translators available" in result.stderr
        pytest.skip("SQL translation needs org.neo4j:neo4j-jdbc-full-bundle (or neo4j-jdbc-translator-impl), which "
                    "the Maven registry this machine reaches does not serve; the plain bundle runs Cypher only")
    names = {r["name"] for r in table(result)}
    assert footlocker in names
    assert names == {r["name"] for r in await db.run_user_query("MATCH (d:Document) RETURN d.name AS name")}
