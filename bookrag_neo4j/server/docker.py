"""Neo4j 5.26 + GDS in Docker (``docker/compose.yml``), for machines with a Docker engine."""

from __future__ import annotations

import logging
import os
import shutil
import subprocess
from pathlib import Path

from ..config import Settings
from ..db.client import ServerVersions
from ..errors import ServerError
from ..resources import resource_dir
from .hardening import PRIVATE_RANGES, quarter
from .password import managed_connection, new_password, read_password, store_password
from .plugin import JAR, ensure_plugin
from .ready import wait_until_ready

log = logging.getLogger(__name__)


def docker_engine_available() -> bool:
    """True when a ``docker`` client is installed and its engine answers (``docker info``)."""
    docker = shutil.which("docker")
    if not docker:
        return False
    try:
        proc = subprocess.run(
            [docker, "info", "--format", "{{.ServerVersion}}"], capture_output=True, text=True, timeout=15, check=False
        )
    except (OSError, subprocess.TimeoutExpired):
        return False
    return proc.returncode == 0 and bool(proc.stdout.strip())


class DockerServer:
    """The compose project ``bookrag-<instance>``; data in its named volume, password in the instance folder."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings

    def _compose(self, *args: str, timeout: float = 600) -> subprocess.CompletedProcess[str]:
        docker = shutil.which("docker") or "docker"
        s = self.settings
        env = {
            **os.environ,
            "BOOKRAG_NEO4J_INSTANCE": s.neo4j.instance,
            "BOOKRAG_NEO4J_BOLT_PORT": str(s.neo4j.bolt_port),
            "BOOKRAG_NEO4J_HTTP_PORT": str(s.neo4j.http_port),
            "BOOKRAG_NEO4J_HEAP": s.neo4j.heap,
            "BOOKRAG_NEO4J_PAGECACHE": s.neo4j.pagecache,
            "BOOKRAG_NEO4J_PASSWORD": read_password(s) or "",
            "BOOKRAG_NEO4J_TRANSACTION_MEMORY": s.neo4j.transaction_memory or quarter(s.neo4j.heap),
            "BOOKRAG_NEO4J_TRANSACTION_TIMEOUT": s.neo4j.transaction_timeout,
            "BOOKRAG_NEO4J_IP_BLOCKLIST": ",".join(PRIVATE_RANGES),
            "BOOKRAG_NEO4J_PLUGINS_DIR": str(self.plugins_dir),
        }
        compose_file = resource_dir("docker") / "compose.yml"
        command = [docker, "compose", "-f", str(compose_file), *args]
        return subprocess.run(command, env=env, capture_output=True, text=True, timeout=timeout, check=False)


    def is_running(self) -> bool:
        proc = self._compose("ps", "--status", "running", "--quiet", timeout=30)
        return proc.returncode == 0 and bool(proc.stdout.strip())

    def log_tail(self, lines: int = 40) -> str:
        proc = self._compose("logs", "--no-color", "--tail", str(lines), "neo4j", timeout=30)
        return proc.stdout + proc.stderr

    @property
    def plugins_dir(self) -> Path:
        """The container's /plugins: the image adds GDS at start, this package its own plugin (server/plugin.py)."""
        return self.settings.instance_dir / "docker-plugins"

    def start(self) -> ServerVersions:
        if read_password(self.settings) is None:
            store_password(self.settings, new_password(self.settings))
        self.plugins_dir.mkdir(parents=True, exist_ok=True)
        (self.plugins_dir / JAR).unlink(missing_ok=True)
        if self.settings.neo4j.plugin:
            shutil.copy(ensure_plugin(self.settings), self.plugins_dir / JAR)
        proc = self._compose("up", "--detach")
        if proc.returncode != 0:
            raise ServerError(f"docker compose up failed:\n{proc.stderr.strip()}")
        return wait_until_ready(
            managed_connection(self.settings),
            timeout=self.settings.neo4j.start_timeout,
            alive=self.is_running,
            log_tail=self.log_tail,
        )

    def stop(self) -> bool:
        was_running = self.is_running()
        proc = self._compose("down")  # keeps the named data volume
        if proc.returncode != 0:
            raise ServerError(f"docker compose down failed:\n{proc.stderr.strip()}")
        return was_running
