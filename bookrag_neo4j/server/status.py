"""What ``bookrag neo4j status --json`` reports."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel

Mode = Literal["external", "docker", "local"]


class ServerStatus(BaseModel):
    """State of the Neo4j server bookrag-neo4j uses, and how clients connect to it."""

    running: bool
    mode: Mode
    uri: str
    username: str
    password_file: str | None = None
    database: str = "neo4j"
    neo4j_version: str | None = None
    gds_version: str | None = None
    browser_url: str | None = None
    pid: int | None = None
    home: str | None = None
    heap: str | None = None
    pagecache: str | None = None
    detail: str | None = None
