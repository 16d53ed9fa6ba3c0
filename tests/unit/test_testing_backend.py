"""Which Neo4j the tests use (``bookrag_neo4j.testing``): every combination of ``BOOKRAG_TEST_NEO4J``,
``NEO4J_URI``, a Docker engine answering and testcontainers installed; the probes asked only when they matter;
the container's image and settings read from ``docker/compose.yml``; the managed test instance's settings."""

from __future__ import annotations

import pytest

from bookrag_neo4j import testing
from bookrag_neo4j.errors import ConfigurationError, ServerError
from bookrag_neo4j.server.docker import docker_engine_available
from bookrag_neo4j.testing import (
    compose_service,
    container_environment,
    managed_settings,
    neo4j_for_tests,
    select_backend,
    selected_backend,
)

DOCKER_DOWN = "needs a Docker engine"
NO_TESTCONTAINERS = "needs the testcontainers package"
NO_URI = "needs NEO4J_URI"

# (BOOKRAG_TEST_NEO4J, NEO4J_URI set, Docker answers, testcontainers installed) -> backend, or the error's words
TABLE = [
    ("auto", False, False, False, "managed"),
    ("auto", False, False, True, "managed"),
    ("auto", False, True, False, "managed"),
    ("auto", False, True, True, "testcontainers"),
    ("auto", True, False, False, "external"),
    ("auto", True, False, True, "external"),
    ("auto", True, True, False, "external"),
    ("auto", True, True, True, "external"),
    ("testcontainers", False, False, False, DOCKER_DOWN),
    ("testcontainers", False, False, True, DOCKER_DOWN),
    ("testcontainers", False, True, False, NO_TESTCONTAINERS),
    ("testcontainers", False, True, True, "testcontainers"),
    ("testcontainers", True, False, False, DOCKER_DOWN),
    ("testcontainers", True, False, True, DOCKER_DOWN),
    ("testcontainers", True, True, False, NO_TESTCONTAINERS),
    ("testcontainers", True, True, True, "testcontainers"),
    ("managed", False, False, False, "managed"),
    ("managed", False, False, True, "managed"),
    ("managed", False, True, False, "managed"),
    ("managed", False, True, True, "managed"),
    ("managed", True, False, False, "managed"),
    ("managed", True, False, True, "managed"),
    ("managed", True, True, False, "managed"),
    ("managed", True, True, True, "managed"),
    ("external", False, False, False, NO_URI),
    ("external", False, False, True, NO_URI),
    ("external", False, True, False, NO_URI),
    ("external", False, True, True, NO_URI),
    ("external", True, False, False, "external"),
    ("external", True, False, True, "external"),
    ("external", True, True, False, "external"),
    ("external", True, True, True, "external"),
]


@pytest.mark.parametrize(("requested", "uri_set", "docker", "installed", "expected"), TABLE)
def test_every_combination(requested: str, uri_set: bool, docker: bool, installed: bool, expected: str) -> None:
    def choose() -> str:
        return select_backend(requested, uri_set=uri_set, docker_answers=lambda: docker,
                              testcontainers_installed=lambda: installed)

    if expected in ("managed", "external", "testcontainers"):
        assert choose() == expected
    else:
        with pytest.raises(ConfigurationError, match=expected):
            choose()


def test_the_table_covers_every_combination() -> None:
    assert len({row[:4] for row in TABLE}) == len(TABLE) == len(testing.CHOICES) * 2 * 2 * 2


@pytest.mark.parametrize("requested", [None, "", "  Auto ", "AUTO"])
def test_unset_or_any_case_is_auto(requested: str | None) -> None:
    assert select_backend(requested, uri_set=False, docker_answers=lambda: True,
                          testcontainers_installed=lambda: True) == "testcontainers"
    assert select_backend(requested, uri_set=False, docker_answers=lambda: False,
                          testcontainers_installed=lambda: True) == "managed"


def test_an_unknown_choice_names_the_valid_ones() -> None:
    with pytest.raises(ConfigurationError, match="BOOKRAG_TEST_NEO4J='docker': choose one of auto, testcontainers"):
        select_backend("docker", uri_set=False, docker_answers=lambda: True, testcontainers_installed=lambda: True)


def never() -> bool:
    raise AssertionError("probed although the answer does not depend on it")


@pytest.mark.parametrize(("requested", "uri_set", "expected"), [
    ("auto", True, "external"), ("managed", False, "managed"), ("managed", True, "managed"), ("external", True, "external"),
])
def test_docker_is_probed_only_when_it_matters(requested: str, uri_set: bool, expected: str) -> None:
    assert select_backend(requested, uri_set=uri_set, docker_answers=never, testcontainers_installed=never) == expected


def test_testcontainers_installed_is_asked_only_when_docker_answers() -> None:
    assert select_backend("auto", uri_set=False, docker_answers=lambda: False, testcontainers_installed=never) == "managed"
    with pytest.raises(ConfigurationError, match=DOCKER_DOWN):
        select_backend("testcontainers", uri_set=False, docker_answers=lambda: False, testcontainers_installed=never)


def test_selected_backend_reads_the_environment() -> None:
    assert selected_backend({"BOOKRAG_TEST_NEO4J": "managed", "NEO4J_URI": "bolt://elsewhere:7687"}) == "managed"
    assert selected_backend({"NEO4J_URI": "bolt://elsewhere:7687"}) == "external"
    with pytest.raises(ConfigurationError, match=NO_URI):
        selected_backend({"BOOKRAG_TEST_NEO4J": "external", "NEO4J_URI": ""})


def test_forcing_testcontainers_follows_the_real_probes() -> None:
    forced = {"BOOKRAG_TEST_NEO4J": "testcontainers"}
    if docker_engine_available() and testing.has_testcontainers():
        assert selected_backend(forced) == "testcontainers"
    else:
        with pytest.raises(ConfigurationError, match=DOCKER_DOWN if not docker_engine_available() else NO_TESTCONTAINERS):
            selected_backend(forced)


def test_the_container_runs_what_the_docker_runtime_runs() -> None:
    service = compose_service()
    assert service.image.startswith("neo4j:5.26") and service.image.endswith("-community")
    assert service.environment["NEO4J_PLUGINS"] == '["graph-data-science"]'
    assert service.environment["NEO4J_dbms_security_procedures_unrestricted"] == "gds.*,bookrag.*"
    assert "NEO4J_AUTH" not in service.environment  # "${...}" values are the runtime's, not the container's
    assert not any("${" in value for value in service.environment.values())
    small = managed_settings({"BOOKRAG_TEST_HEAP": "1g", "BOOKRAG_TEST_PAGECACHE": "256m"})
    assert container_environment(small) == {**service.environment, "NEO4J_server_memory_heap_max__size": "1g",
                                            "NEO4J_server_memory_pagecache_size": "256m"}


def test_forcing_a_container_without_docker_is_a_clear_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(testing, "docker_engine_available", lambda: False)
    with pytest.raises(ServerError, match="needs a Docker engine and none answers"), neo4j_for_tests("testcontainers"):
        pass


def test_managed_settings(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NEO4J_URI", "bolt://elsewhere:7687")
    default = managed_settings({})
    assert (default.neo4j.uri, default.neo4j.instance, default.neo4j.bolt_port, default.neo4j.http_port) == (
        None, "test", 17687, 17474)
    assert (default.neo4j.heap, default.neo4j.pagecache, default.neo4j.runtime) == ("2g", "1g", "local")
    assert default.neo4j.jvm_options == ""
    flags = managed_settings({"BOOKRAG_TEST_JVM_OPTIONS": "-XX:TieredStopAtLevel=1"}).neo4j.jvm_options
    assert flags == "-XX:TieredStopAtLevel=1"
    mine = managed_settings({"BOOKRAG_TEST_INSTANCE": "t-x", "BOOKRAG_TEST_BOLT_PORT": "17001",
                             "BOOKRAG_TEST_HTTP_PORT": "17002", "BOOKRAG_TEST_HEAP": "1g",
                             "BOOKRAG_TEST_PAGECACHE": "512m", "BOOKRAG_TEST_RUNTIME": "docker"})
    assert (mine.neo4j.instance, mine.neo4j.bolt_port, mine.neo4j.http_port, mine.neo4j.heap, mine.neo4j.pagecache,
            mine.neo4j.runtime) == ("t-x", 17001, 17002, "1g", "512m", "docker")
