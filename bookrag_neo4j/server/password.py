"""The managed server's password (generated once, kept in a file only its owner can read, mode 0600), and how
clients connect to the managed server."""

from __future__ import annotations

import os
import secrets

from ..config import Settings
from ..db.client import ConnectionInfo
from ..errors import ConfigurationError


def read_password(settings: Settings) -> str | None:
    """The stored password of the managed server, or ``None`` before its first start."""
    path = settings.password_file
    return path.read_text(encoding="utf-8").strip() if path.is_file() else None


def new_password(settings: Settings) -> str:
    """``NEO4J_PASSWORD`` when set (Neo4j requires 8+ characters), else a random one."""
    if settings.neo4j.password is not None:
        return settings.neo4j.password.get_secret_value()
    # A leading "-" would make neo4j-admin read the password as an option (1 in 32 of token_urlsafe's).
    return "b" + secrets.token_urlsafe(18)


def store_password(settings: Settings, password: str) -> None:
    """Write the password file with mode 0600 (created that way, never world-readable for a moment)."""
    path = settings.password_file
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        handle.write(password + "\n")
    os.replace(tmp, path)


def managed_connection(settings: Settings) -> ConnectionInfo:
    """Bolt on localhost with the stored password (or ``NEO4J_PASSWORD`` before the first start)."""
    password = read_password(settings)
    if password is None and settings.neo4j.password is not None:
        password = settings.neo4j.password.get_secret_value()
    if password is None:
        raise ConfigurationError(
            "no Neo4j to connect to: run `bookrag neo4j start`, or set NEO4J_URI (and NEO4J_PASSWORD) for your own server"
        )
    return ConnectionInfo(f"bolt://localhost:{settings.neo4j.bolt_port}", "neo4j", password, settings.neo4j.database)
