"""One settings object for the whole package, read from the environment (and a ``.env`` file).

Package settings use the ``BOOKRAG_`` prefix; the Neo4j connection honours the variables every Neo4j tool
uses (``NEO4J_URI``, ``NEO4J_USERNAME``, ``NEO4J_PASSWORD``, ``NEO4J_DATABASE``)::

    from bookrag_neo4j import Settings

    settings = Settings()                              # environment + .env
    settings = Settings(neo4j_instance="test")         # or explicit values

When ``NEO4J_URI`` is unset, bookrag-neo4j manages a server of its own (see ``bookrag neo4j start``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

import platformdirs
from pydantic import AliasChoices, Field, SecretStr
from pydantic_settings import BaseSettings, SettingsConfigDict

APP_NAME = "bookrag-neo4j"


class Settings(BaseSettings):
    """All configuration of bookrag-neo4j. Every field can be set by an environment variable."""

    model_config = SettingsConfigDict(
        env_prefix="BOOKRAG_", env_file=".env", extra="ignore", populate_by_name=True
    )

    # --- Neo4j connection (standard Neo4j variable names) ---
    neo4j_uri: str | None = Field(
        None,
        validation_alias=AliasChoices("NEO4J_URI", "BOOKRAG_NEO4J_URI"),
        description="Use this server instead of a managed one (Aura, a cluster, any Bolt URI).",
    )
    neo4j_username: str = Field("neo4j", validation_alias=AliasChoices("NEO4J_USERNAME", "BOOKRAG_NEO4J_USERNAME"))
    neo4j_password: SecretStr | None = Field(
        None,
        validation_alias=AliasChoices("NEO4J_PASSWORD", "BOOKRAG_NEO4J_PASSWORD"),
        description="Defaults to the generated password of the managed server.",
    )
    neo4j_database: str = Field("neo4j", validation_alias=AliasChoices("NEO4J_DATABASE", "BOOKRAG_NEO4J_DATABASE"))

    # --- The managed server (used when NEO4J_URI is unset) ---
    neo4j_runtime: Literal["auto", "docker", "local"] = Field(
        "auto", description="auto: Docker when an engine answers, else a local server assembled from Maven Central."
    )
    neo4j_instance: str = Field("default", pattern=r"^[A-Za-z0-9_-]+$", description="Name of the managed server.")
    neo4j_bolt_port: int = 7687
    neo4j_http_port: int = 7474
    neo4j_heap: str = Field("6g", description="JVM heap of the managed server (-Xmx).")
    neo4j_pagecache: str = Field("4g", description="Page cache of the managed server.")
    neo4j_start_timeout: float = Field(180.0, description="Seconds to wait for Bolt and GDS to answer.")

    # --- Where things live ---
    cache_dir: Path = Field(
        default_factory=lambda: Path(platformdirs.user_cache_dir(APP_NAME)),
        description="Assembled Neo4j server jars, model caches.",
    )
    data_dir: Path = Field(
        default_factory=lambda: Path(platformdirs.user_data_dir(APP_NAME)),
        description="Databases of the managed servers, extracted images.",
    )

    # --- Index ---
    embedding_dimensions: int = Field(384, gt=0, description="Dimension of the vector indexes (the embedder's).")

    @property
    def instance_dir(self) -> Path:
        """Home directory of the managed server instance (config, data, logs, password)."""
        return self.data_dir / "neo4j" / self.neo4j_instance

    @property
    def password_file(self) -> Path:
        """File (mode 0600) holding the generated password of the managed server."""
        return self.instance_dir / "password"
