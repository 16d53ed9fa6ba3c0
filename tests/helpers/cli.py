"""The real ``bookrag`` console script, run as a subprocess against the test server."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from bookrag_neo4j.config import Settings

from .timeouts import HANG

BOOKRAG = str(Path(sys.executable).parent / "bookrag")


def run_cli(settings: Settings, *args: str, timeout: float = HANG, **extra_env: str) -> subprocess.CompletedProcess[str]:
    """``bookrag *args`` on the test server, offline (no LLM, no VLM); ``extra_env`` adds variables. ``timeout``
    only catches a hang: a slow machine is no failure (``bookrag demo`` indexes R-intro, minutes on 2 busy cores)."""
    return subprocess.run([BOOKRAG, *args], env=cli_env(settings, **extra_env), capture_output=True, text=True,
                          timeout=timeout, check=False)


def cli_env(settings: Settings, **extra_env: str) -> dict[str, str]:
    """The environment of a ``bookrag`` (or Python) subprocess on the test server, offline."""
    return {
        **os.environ,
        "BOOKRAG_NEO4J_INSTANCE": settings.neo4j.instance,
        "BOOKRAG_NEO4J_BOLT_PORT": str(settings.neo4j.bolt_port),
        "BOOKRAG_NEO4J_HTTP_PORT": str(settings.neo4j.http_port),
        "BOOKRAG_NEO4J_RUNTIME": settings.neo4j.runtime,
        "BOOKRAG_NEO4J_JVM_OPTIONS": settings.neo4j.jvm_options,
        "BOOKRAG_LLM_PROVIDER": "none",
        "BOOKRAG_VLM_PROVIDER": "none",
        **extra_env,
    }
