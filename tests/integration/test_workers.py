"""Parallel indexing that is safe, against the real server: leases (exactly one of many concurrent claimers wins,
expiry, takeover, a lost lease stops the work), two worker processes indexing four documents once each with a
sequential run's counts, a worker killed with SIGKILL mid-document taken over with a clean run's counts, a
deadlock retried by the driver, and the writes documents share (keywords, stems, SAME_AS) under contention.

The documents are small PDFs made here with PyMuPDF, indexed LLM-free. The two-worker test builds the tree, the
embeddings and the knowledge graph, not the layout layer and content graph (a layout build costs seconds of GDS KNN
a document on 2 cores; their shared writes, keywords and stems, are raced directly in the contention test); the
killed worker's document gets every layer.
"""

from __future__ import annotations

import asyncio
import logging
import os
import random
import signal
import subprocess
import time
import uuid
from pathlib import Path

import pymupdf
import pytest
from neo4j import AsyncGraphDatabase

from bookrag_neo4j.config import Settings
from bookrag_neo4j.db.client import ConnectionInfo, Neo4jClient
from bookrag_neo4j.errors import LeaseLostError
from bookrag_neo4j.index.leases import LeaseManager, worker_id
from bookrag_neo4j.index.pipeline import Indexer
from bookrag_neo4j.index.workers import IndexOptions, WorkerEvent, aindex_many
from bookrag_neo4j.keys import file_key
from bookrag_neo4j.library.catalogue import delete_document
from bookrag_neo4j.library.documents import GraphStatus, TreeStatus, get_document

from ..helpers.cli import BOOKRAG
from ..helpers.timeouts import LONG_TEST

STAGES = {"knowledge_graph": True, "layout": False}  # tree + embeddings + knowledge graph
OPTIONS = IndexOptions(use_llm=False, **STAGES)
PEOPLE = ["Ada Lovelace", "Alan Turing", "Grace Hopper", "Edsger Dijkstra", "Barbara Liskov", "Donald Knuth"]
PLACES = ["London", "Paris", "Cambridge", "Amsterdam", "Boston", "Stanford"]
ORGS = ["Acme Corporation", "Globex Inc.", "Initech", "Umbrella Group", "Stark Industries"]


def make_pdf(path: Path, seed: int, pages: int) -> Path:
    """A small PDF of numbered chapters with people, places and companies in them (different for each seed)."""
    rnd = random.Random(seed)
    doc = pymupdf.open()
    for number in range(1, pages + 1):
        page = doc.new_page()
        page.insert_text((72, 72), f"{number} Chapter {seed}.{number}: the {rnd.choice(['ledger', 'index'])}",
                         fontsize=18)
        for line in range(6):
            text = (f"In {1990 + rnd.randint(0, 30)}, {rnd.choice(PEOPLE)} met the board of {rnd.choice(ORGS)} in "
                    f"{rnd.choice(PLACES)} to discuss revenue of {rnd.randint(2, 90)} million dollars.")
            page.insert_textbox(pymupdf.Rect(72, 110 + 70 * line, 540, 170 + 70 * line), text, fontsize=11)
    doc.save(path)
    doc.close()
    return path


def fast(settings: Settings, ttl: float = 30.0) -> Settings:
    return settings.replace(llm_provider="none", index_lease_seconds=ttl)


async def forget(db: Neo4jClient, keys: list[str]) -> None:
    for key in keys:
        await delete_document(db, key)
    await db.run("MATCH (l:IndexLease) WHERE l.key IN $keys DELETE l", {"keys": keys})


async def doc_counts(db: Neo4jClient, key: str) -> dict[str, int]:
    """A document's nodes by label and its outgoing relationships by type."""
    nodes = await db.run("MATCH (n) WHERE n.doc_key = $key OR (n:Document AND n.key = $key) UNWIND labels(n) AS "
                            "label RETURN label, count(*) AS n", {"key": key})
    rels = await db.run("MATCH (n)-[r]->() WHERE n.doc_key = $key OR (n:Document AND n.key = $key) "
                           "RETURN type(r) AS label, count(*) AS n", {"key": key})
    return {f"{kind}:{r['label']}": r["n"] for kind, rows in (("node", nodes), ("rel", rels)) for r in rows}


async def test_of_many_concurrent_claims_exactly_one_wins(conn: ConnectionInfo, db: Neo4jClient, schema) -> None:
    key = f"test-lease-{uuid.uuid4().hex[:8]}"
    clients = [Neo4jClient(conn) for _ in range(8)]
    try:
        managers = [LeaseManager(c, ttl=30) for c in clients]
        claims = await asyncio.gather(*(m.claim(key, name="race.pdf") for m in managers))
        winners = [m for m, c in zip(managers, claims, strict=True) if c.claimed]
        assert len(winners) == 1 and all(c.owner == winners[0].owner for c in claims)
        assert not any(c.takeover for c in claims)
        (row,) = await db.run("MATCH (l:IndexLease {key: $key}) RETURN count(l) AS n, l.name AS name", {"key": key})
        assert row == {"n": 1, "name": "race.pdf"}
        losers = [m for m in managers if m is not winners[0]]
        assert not await losers[0].renew(claims[0]) and not await losers[0].release(claims[0])
        assert (await winners[0].claim(key)).claimed  # claiming again what it holds
        assert await winners[0].renew(claims[0]) and await winners[0].release(claims[0])
        assert (await losers[0].claim(key)).claimed  # free again
        await db.run("MATCH (l:IndexLease {key: $key}) SET l.owner = 'dead:1:abc', l.expires = datetime() - "
                        "duration('PT1S')", {"key": key})
        claims = await asyncio.gather(*(m.claim(key) for m in managers))  # all race for a dead worker's lease
        assert sum(c.claimed for c in claims) == 1 and sum(c.takeover for c in claims) == 1
        assert len({c.owner for c in claims}) == 1 and {c.previous for c in claims if c.claimed} == {"dead:1:abc"}
    finally:
        for c in clients:
            await c.close()
        await db.run("MATCH (l:IndexLease {key: $key}) DELETE l", {"key": key})


async def test_a_claim_that_waited_on_a_release_claims_the_lease_anew(conn: ConnectionInfo, db: Neo4jClient,
                                                                      schema) -> None:
    """A claim that queued behind a release's lock finds the lease deleted when it gets the lock: it must claim
    a new one, not return a claim without an expiry (the soak test's four clients once met this)."""
    key = f"test-lease-{uuid.uuid4().hex[:8]}"
    holder, claimer = LeaseManager(db, ttl=30, owner="holder:1:a"), LeaseManager(db, ttl=30, owner="claimer:1:b")
    assert (await holder.claim(key)).claimed
    async with AsyncGraphDatabase.driver(conn.uri, auth=(conn.username, conn.password)) as driver:
        async with driver.session(database=conn.database) as session:
            tx = await session.begin_transaction()  # the release, its lock held until it commits
            await tx.run("MATCH (l:IndexLease {key: $key}) SET l.checked_at = datetime() DELETE l", key=key)
            waiting = asyncio.create_task(claimer.claim(key))
            await asyncio.sleep(1.0)  # the claim is queued on the lease's lock
            await tx.commit()
            claim = await asyncio.wait_for(waiting, 30)
    try:
        assert claim.claimed and claim.owner == "claimer:1:b" and claim.expires is not None
        (row,) = await db.run("MATCH (l:IndexLease {key: $key}) RETURN count(l) AS n, l.owner AS owner",
                                 {"key": key})
        assert row == {"n": 1, "owner": "claimer:1:b"}
    finally:
        await db.run("MATCH (l:IndexLease {key: $key}) DELETE l", {"key": key})


async def test_a_lease_whose_process_is_gone_from_this_machine_is_taken_over_before_it_expires(
        db: Neo4jClient, schema) -> None:
    key = f"test-lease-{uuid.uuid4().hex[:8]}"
    machine = worker_id().rsplit(":", 2)[0]
    finished = subprocess.Popen(["true"])  # a process of this machine, gone (and reaped) after the wait
    assert finished.wait() == 0
    gone, alive = f"{machine}:{finished.pid}:abc", f"{machine}:{os.getpid()}:abc"
    elsewhere = f"another-host/1:{finished.pid}:abc"  # gone here says nothing about another machine
    claimer = LeaseManager(db, ttl=30)
    try:
        for owner, taken in ((alive, False), (elsewhere, False), (gone, True)):
            await db.run("MERGE (l:IndexLease {key: $key}) SET l.owner = $owner, l.expires = datetime() + "
                            "duration('PT1H')", {"key": key, "owner": owner})
            claim = await claimer.claim(key)
            assert (claim.claimed, claim.takeover) == (taken, taken), owner
            assert claim.owner == (claimer.owner if taken else owner)
        assert claim.previous == gone and claimer.takeovers == 1
    finally:
        await db.run("MATCH (l:IndexLease {key: $key}) DELETE l", {"key": key})


async def test_an_expired_lease_is_taken_over_and_a_lost_lease_stops_the_work(db: Neo4jClient, schema) -> None:
    key = f"test-lease-{uuid.uuid4().hex[:8]}"
    try:
        dead, alive = LeaseManager(db, ttl=0.3), LeaseManager(db, ttl=0.6)
        first = await dead.claim(key)
        assert first.claimed and not (await alive.claim(key)).claimed  # held, not expired
        await asyncio.sleep(0.5)  # `dead` never renews
        taken = await alive.claim(key)
        assert taken.claimed and taken.takeover and taken.previous == dead.owner and alive.takeovers == 1
        assert await alive.hold(taken, asyncio.sleep(1.0, "done")) == "done"
        (row,) = await db.run("MATCH (l:IndexLease {key: $key}) RETURN l.expires AS expires", {"key": key})
        assert row["expires"].to_native() > taken.expires  # renewed while the work ran past the 0.6 s
        stopped = asyncio.Event()

        async def work() -> None:
            try:
                await asyncio.sleep(30)
            except asyncio.CancelledError:
                stopped.set()
                raise

        async def steal() -> None:
            await asyncio.sleep(0.1)
            await db.run("MATCH (l:IndexLease {key: $key}) SET l.owner = 'another:1:abc'", {"key": key})

        began = time.perf_counter()
        with pytest.raises(LeaseLostError, match="lost the indexing lease"):
            await asyncio.gather(alive.hold(taken, work()), steal())
        assert stopped.is_set() and time.perf_counter() - began < 5  # at the next renewal, not after the work
    finally:
        await db.run("MATCH (l:IndexLease {key: $key}) DELETE l", {"key": key})


@pytest.mark.timeout(LONG_TEST)
async def test_two_workers_index_four_documents_once_with_a_sequential_runs_counts(
        db: Neo4jClient, settings: Settings, offline_models, schema, tmp_path: Path) -> None:
    pdfs = [make_pdf(tmp_path / f"workers-{i}.pdf", seed=i, pages=3) for i in range(4)]
    keys = [file_key(p) for p in pdfs]
    await forget(db, keys)
    try:
        indexer = Indexer(db, fast(settings), offline_models, use_llm=False)
        for pdf in pdfs:
            await indexer.index(pdf, **STAGES)
        sequential = {key: await doc_counts(db, key) for key in keys}
        assert all(c["node:Entity"] > 10 and c["rel:MENTIONED_IN"] > 10 for c in sequential.values())
        await forget(db, keys)
        events: list[WorkerEvent] = []
        summary = await aindex_many(fast(settings), pdfs, workers=2, options=OPTIONS, on_event=events.append)
        indexed = [e.outcome for e in events if e.outcome and e.outcome.status == "indexed"]
        assert sorted(o.doc_key for o in indexed) == sorted(keys)  # each document indexed once
        assert len({o.worker for o in indexed}) == 2  # by two workers (processes)
        assert (summary.indexed, summary.failed, summary.taken_over) == (4, 0, 0) and summary.pages == 12
        assert {key: await doc_counts(db, key) for key in keys} == sequential
        assert not await db.run("MATCH (l:IndexLease) WHERE l.key IN $keys RETURN l.key", {"keys": keys})
    finally:
        await forget(db, keys)


async def test_the_sdk_indexes_a_pdf_under_its_lease_waiting_while_another_worker_holds_it(
        db: Neo4jClient, settings: Settings, offline_models, schema, tmp_path: Path) -> None:
    """Every door indexes through the SDK, under the file's lease: a PDF another process is indexing is waited for,
    then indexed (here: no one indexed it meanwhile), and the lease released."""
    from bookrag_neo4j.sdk import BookRAG

    pdf = make_pdf(tmp_path / "leased.pdf", seed=7, pages=1)
    key = file_key(pdf)
    await forget(db, [key])
    other = LeaseManager(db, ttl=30.0, owner="another-machine:1:abc")
    claim = await other.claim(key, name=pdf.name)
    assert claim.claimed
    rag = BookRAG(fast(settings), models=offline_models, use_llm=False)
    try:
        indexing = asyncio.create_task(rag.aindex(pdf, knowledge_graph=False, layout=False))
        await asyncio.sleep(2.0)
        assert not indexing.done() and await get_document(db, key) is None  # waiting, nothing written
        assert await other.release(claim)
        report = await asyncio.wait_for(indexing, 300)
        assert report.status == "indexed" and report.doc_key == key
        assert not await db.run("MATCH (l:IndexLease {key: $key}) RETURN l", {"key": key})  # released after
    finally:
        await rag.aclose()
        await forget(db, [key])


def test_a_misspelt_index_option_is_an_error() -> None:
    from pydantic import ValidationError

    with pytest.raises(ValidationError, match="knowlege_graph"):
        IndexOptions(knowlege_graph=False)  # type: ignore[call-arg]


async def _wait_mid_document(db: Neo4jClient, key: str, proc: subprocess.Popen[bytes]) -> str:
    """Poll until the worker holds the lease and the document is half done: its tree being written (preferred)
    or its graph not built yet; that state."""
    deadline = time.monotonic() + 600
    while time.monotonic() < deadline and proc.poll() is None:
        rows = await db.run("OPTIONAL MATCH (l:IndexLease {key: $key}) OPTIONAL MATCH (d:Document {key: $key}) "
                               "RETURN l IS NOT NULL AS leased, d.status AS tree, d.graph_status AS graph", {"key": key})
        state = rows[0]
        if state["leased"] and state["tree"] == TreeStatus.WRITING:
            return "writing the tree"
        if state["leased"] and state["tree"] == TreeStatus.COMPLETE and state["graph"] != GraphStatus.COMPLETE:
            return "building the graph"
        await asyncio.sleep(0.02)
    pytest.fail(f"the worker ended (code {proc.poll()}) before it was caught mid-document")


@pytest.mark.timeout(LONG_TEST)
async def test_a_worker_killed_mid_document_is_taken_over_with_a_clean_runs_counts(
        db: Neo4jClient, settings: Settings, offline_models, schema, tmp_path: Path) -> None:
    pdf = make_pdf(tmp_path / "workers-killed.pdf", seed=7, pages=30)
    key = file_key(pdf)
    await forget(db, [key])
    env = {**os.environ, "BOOKRAG_NEO4J_INSTANCE": settings.neo4j.instance, "BOOKRAG_NEO4J_RUNTIME": "local",
           "BOOKRAG_NEO4J_BOLT_PORT": str(settings.neo4j.bolt_port), "BOOKRAG_LLM_PROVIDER": "none",
           "BOOKRAG_NEO4J_HTTP_PORT": str(settings.neo4j.http_port), "BOOKRAG_INDEX_LEASE_SECONDS": "5"}
    log = (tmp_path / "worker.log").open("wb")
    proc = subprocess.Popen([BOOKRAG, "index", "--no-llm", "--stage", "all", str(pdf)], env=env, stdout=log,
                            stderr=subprocess.STDOUT)
    try:
        state = await _wait_mid_document(db, key, proc)
        proc.send_signal(signal.SIGKILL)
        assert proc.wait() == -signal.SIGKILL
        # as if it had run on another machine: its lease is then taken over only once expired (this machine's
        # would be at once: test_a_lease_whose_process_is_gone_from_this_machine_is_taken_over_before_it_expires)
        (lease,) = await db.run("MATCH (l:IndexLease {key: $key}) SET l.owner = 'another-host/1:' + l.owner "
                                   "RETURN l.owner AS owner", {"key": key})
        doc = await get_document(db, key)
        assert doc is not None and GraphStatus.COMPLETE != doc.graph, state
        events: list[WorkerEvent] = []
        summary = await aindex_many(fast(settings, ttl=3), [pdf], options=IndexOptions(use_llm=False),
                                    models=offline_models, on_event=events.append)
        assert [e.outcome.held_by for e in events if e.outcome and e.outcome.status == "leased"] == [lease["owner"]]
        assert [e.took_over_from for e in events if e.kind == "started"] == [lease["owner"]]
        assert (summary.indexed, summary.taken_over, summary.failed) == (1, 1, 0), summary
        taken_over = await doc_counts(db, key)
        doc = await get_document(db, key)
        assert doc is not None and doc.tree is TreeStatus.COMPLETE and doc.graph is GraphStatus.COMPLETE
        await forget(db, [key])
        await Indexer(db, fast(settings), offline_models, use_llm=False).index(pdf)  # a clean run
        assert taken_over == await doc_counts(db, key), state
    finally:
        if proc.poll() is None:
            proc.kill()
        log.close()
        await forget(db, [key])


async def test_a_deadlock_between_two_writes_is_retried_and_both_succeed(
        conn: ConnectionInfo, db: Neo4jClient, caplog: pytest.LogCaptureFixture) -> None:
    tag = f"test-deadlock-{uuid.uuid4().hex[:8]}"
    await db.run("UNWIND ['a', 'b', 'gate-a', 'gate-b'] AS name CREATE (:DeadlockProbe {key: $tag + name, "
                    "doc_key: $tag, n: 0})", {"tag": tag})
    # Lock `first`, wait at `gate`, then lock `second`: two such writes in opposite orders deadlock.
    crossing = ("MATCH (first:DeadlockProbe {key: $first}) SET first.n = first.n + 1 "
                "WITH first MATCH (gate:DeadlockProbe {key: $gate}) SET gate.n = gate.n + 1 "
                "WITH first MATCH (second:DeadlockProbe {key: $second}) SET second.n = second.n + 1 RETURN second.n AS n")
    caplog.set_level(logging.WARNING, logger="neo4j")
    driver = AsyncGraphDatabase.driver(conn.uri, auth=(conn.username, conn.password))
    one, two = Neo4jClient(conn), Neo4jClient(conn)
    try:
        async with driver.session(database=conn.database) as session:
            gates = await session.begin_transaction()  # holds both gates until the two writes hold their first node
            await gates.run("MATCH (g:DeadlockProbe) WHERE g.key IN $gates SET g.held = true",
                            {"gates": [tag + "gate-a", tag + "gate-b"]})
            writes = asyncio.gather(
                one.run(crossing, {"first": tag + "a", "gate": tag + "gate-a", "second": tag + "b"}),
                two.run(crossing, {"first": tag + "b", "gate": tag + "gate-b", "second": tag + "a"}))
            for _ in range(600):
                rows = await db.run("SHOW TRANSACTIONS YIELD currentQuery, status WHERE currentQuery CONTAINS "
                                       "'DeadlockProbe {key: $first}' AND status STARTS WITH 'Blocked' RETURN count(*) AS n")
                if rows[0]["n"] == 2:
                    break
                await asyncio.sleep(0.05)
            assert rows[0]["n"] == 2, "the two writes did not both wait at their gates"
            await gates.rollback()
            await asyncio.wait_for(writes, 60)
        rows = await db.run("MATCH (p:DeadlockProbe {doc_key: $tag}) RETURN p.key AS key, p.n AS n", {"tag": tag})
        assert {r["key"][len(tag):]: r["n"] for r in rows} == {"a": 2, "b": 2, "gate-a": 1, "gate-b": 1}
        retried = [r.getMessage() for r in caplog.records if "will be retried" in r.getMessage()]
        assert any("DeadlockDetected" in m for m in retried), retried
    finally:
        await driver.close()
        await one.close()
        await two.close()


async def test_writes_shared_between_documents_hold_under_contention(conn: ConnectionInfo, db: Neo4jClient,
                                                                     schema) -> None:
    from bookrag_neo4j.db.schema import apply_schema

    await apply_schema(db, dimensions=384, name="layout/schema")  # the :Keyword and :Stem constraints
    tag = f"test-shared-{uuid.uuid4().hex[:8]}"
    docs = [f"{tag}-a", f"{tag}-b"]
    words = [f"{tag}-w{i}" for i in range(120)]
    clients = [Neo4jClient(conn) for _ in range(6)]
    try:
        for doc in docs:
            await db.run("UNWIND range(0, 19) AS i CREATE (:Passage {key: $doc + '-p' + i, doc_key: $doc}) "
                            "CREATE (:Entity {key: $doc + '-e' + i, doc_key: $doc, name_key: $tag + '-n' + i})",
                            {"doc": doc, "tag": tag})

        def rows(doc: str, part: int, suffix: str = "") -> list[dict[str, str]]:
            return [{"passage": f"{doc}-p{i % 20}", "keyword": w + suffix, "stem": w + "-stem"}
                    for i, w in enumerate(words) if i % 3 == part]

        # Keywords and stems the two documents share, written at once (each row three times).
        await asyncio.gather(*(c.write("layout/write_keywords", rows=rows(docs[i % 2], i % 3))
                               for i, c in enumerate(clients)))
        await asyncio.gather(*(c.write("layout/write_keywords", rows=rows(docs[i % 2], (i + 1) % 3))
                               for i, c in enumerate(clients)))
        counts = ("MATCH (n) WHERE (n:Keyword OR n:Stem) AND n.key STARTS WITH $tag "
                  "RETURN count(n) AS nodes, count(DISTINCT n.key) AS keys, "
                  "COUNT { MATCH (:Keyword)-[r:HAS_STEM]->(s:Stem) WHERE s.key STARTS WITH $tag } AS stem_links, "
                  "COUNT { MATCH (p:Passage)-[r:HAS_KEYWORD]->() WHERE p.doc_key STARTS WITH $tag } AS keyword_links")
        (row,) = await db.run(counts, {"tag": tag})
        assert row == {"nodes": 240, "keys": 240, "stem_links": 120, "keyword_links": 2 * 120}
        # One document's rebuild deletes the keywords and stems only it uses while the other links to them.
        for trial in range(5):
            extra = f"-x{trial}"
            await clients[0].write("layout/write_keywords", rows=[{**r, "stem": r["keyword"] + "-stem"} for part in
                                                                  range(3) for r in rows(docs[0], part, extra)])
            await asyncio.gather(clients[0].write("layout/delete_keywords", doc_key=docs[0]), clients[1].write(
                "layout/write_keywords", rows=[{**r, "stem": r["keyword"] + "-stem"} for part in range(3)
                                               for r in rows(docs[1], part, extra)]))
            (row,) = await db.run("MATCH (p:Passage {doc_key: $doc})-[:HAS_KEYWORD]->(k)-[:HAS_STEM]->(s) "
                                     "WHERE k.key ENDS WITH $extra RETURN count(*) AS links, count(DISTINCT s) AS stems",
                                     {"doc": docs[1], "extra": extra})
            assert row == {"links": 120, "stems": 120}, trial
        (row,) = await db.run("MATCH (p:Passage {doc_key: $doc})-[:HAS_KEYWORD]->() RETURN count(*) AS n",
                                 {"doc": docs[0]})
        assert row["n"] == 0
        # SAME_AS between the documents, linked by both at once: one edge a pair.
        settled = await asyncio.gather(*(c.write("kg/link_same_as", doc_key=doc)
                                         for c, doc in zip(clients[:2], docs, strict=True)))
        assert [r[0]["linked"] for r in settled] == [20, 20]
        (row,) = await db.run("MATCH (a:Entity {doc_key: $a})-[r:SAME_AS]-(b:Entity {doc_key: $b}) "
                                 "RETURN count(r) AS edges, count(DISTINCT [a, b]) AS pairs", {"a": docs[0], "b": docs[1]})
        assert row == {"edges": 20, "pairs": 20}
    finally:
        for c in clients:
            await c.close()
        await db.run("MATCH (n) WHERE (n:Keyword OR n:Stem) AND n.key STARTS WITH $tag DETACH DELETE n", {"tag": tag})


HOLDER = """
import asyncio, sys, time
from bookrag_neo4j.config import Settings
from bookrag_neo4j.db.client import Neo4jClient
from bookrag_neo4j.index.leases import LeaseManager
from bookrag_neo4j.server import instance_settings
from bookrag_neo4j.server.manager import connection_info

async def main():
    async with Neo4jClient(connection_info(instance_settings(Settings()))) as db:
        leases = LeaseManager(db, ttl=float(sys.argv[2]))
        claim = await leases.claim(sys.argv[1])
        async def stage():  # CPU-bound work that never gives the event loop back
            print("holding" if claim.claimed else "refused", flush=True)
            time.sleep(600)
        await leases.hold(claim, stage())

asyncio.run(main())
"""


async def test_a_stage_that_blocks_the_event_loop_keeps_its_lease_until_its_process_dies(
        db: Neo4jClient, settings: Settings, schema) -> None:
    """The renewals run on a thread of their own: while a holder's stage blocks its event loop for many times the
    lease's time to live, no other worker takes the document; once the holder is killed, one does."""
    from ..helpers.cli import cli_env

    key, ttl = f"test-lease-{uuid.uuid4().hex[:8]}", 3.0  # renewals every ttl/3 even on two saturated cores
    holder = subprocess.Popen([str(Path(BOOKRAG).parent / "python"), "-c", HOLDER, key, str(ttl)],
                              env=cli_env(settings), stdout=subprocess.PIPE, text=True)
    claimer = LeaseManager(db, ttl=ttl)
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "holding"
        began = time.monotonic()
        while time.monotonic() - began < 3 * ttl:  # without renewals the lease would expire within ttl
            assert not (await claimer.claim(key)).claimed
            await asyncio.sleep(0.2)
        holder.send_signal(signal.SIGKILL)
        holder.wait(timeout=30)
        taken = await claimer.claim(key)
        assert taken.claimed and taken.takeover and taken.previous != claimer.owner
    finally:
        holder.kill()
        holder.wait(timeout=30)
        await db.run("MATCH (l:IndexLease {key: $key}) DELETE l", {"key": key})
