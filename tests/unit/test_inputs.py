"""Bounded input without a server: questions are refused when empty or too long, a client of a server that is
down fails within seconds with a hint, and the CLI prints any error as one line. (Against the real server, with
counts that prove nothing was written: ``tests/integration/test_faults.py``.)"""

from __future__ import annotations

import socket
import time

import pytest

from bookrag_neo4j.cli import one_line
from bookrag_neo4j.errors import Neo4jUnavailableError, QuestionError
from bookrag_neo4j.graph.client import ConnectionInfo, GraphClient
from bookrag_neo4j.methods.retriever import checked_question


@pytest.mark.parametrize("question", ["", " ", "\n\t  \n"])
def test_an_empty_question_is_refused(question: str) -> None:
    with pytest.raises(QuestionError, match="the question is empty"):
        checked_question(question, 4000)


def test_a_question_over_the_limit_is_refused_and_one_at_it_passes() -> None:
    assert checked_question("  " + "q" * 4000 + "\n", 4000) == "q" * 4000
    with pytest.raises(QuestionError, match="4,001 characters; the limit is 4,000"):
        checked_question("q" * 4001, 4000)


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]  # nothing listens once the socket closes


async def test_a_server_that_is_down_fails_the_first_call_at_once_with_a_hint() -> None:
    conn = ConnectionInfo(f"bolt://127.0.0.1:{_closed_port()}", "neo4j", "password1")
    began = time.perf_counter()
    async with GraphClient(conn) as graph:  # the default retry time (30 s) must not apply to the first contact
        with pytest.raises(Neo4jUnavailableError, match=r"not reachable .*bookrag neo4j start.*NEO4J_URI"):
            await graph.read("server/versions")
    assert time.perf_counter() - began < 5.0


def test_an_error_prints_as_one_line() -> None:
    assert one_line(QuestionError("the question\n  is empty")) == "the question is empty"
    line = one_line(UnicodeEncodeError("utf-8", "\udcff", 0, 1, "surrogates not allowed"))
    assert line.startswith("UnicodeEncodeError: ") and "--debug" in line and "\n" not in line
