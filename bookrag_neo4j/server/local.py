"""A local Neo4j Community server with OpenGDS and Neo4j Browser, assembled from Maven Central (no Docker).

``docker/local/pom.xml`` pins the versions and resolves the jars; this module runs Maven once (into the
cache directory), writes the instance's ``neo4j.conf``, sets the initial password with ``neo4j-admin``, and
starts ``org.neo4j.server.CommunityEntryPoint`` on a plain ``java`` command line with the JVM flags that
``bin/neo4j`` uses. Everything listens on loopback only.

Layout::

    <cache_dir>/neo4j-5.26.30-gds-2.13.9/{lib,plugins}     jars (shared by all instances)
    <cache_dir>/bookrag-plugin-<hash>.jar                  this project's plugin (server/plugin.py)
    <data_dir>/neo4j/<instance>/plugins                     GDS's jars (links) and the plugin
    <data_dir>/neo4j/<instance>/{conf,data,logs,run,import}  one server instance
    <data_dir>/neo4j/<instance>/password                   generated password (0600)
"""

from __future__ import annotations

import logging
import os
import re
import shlex
import shutil
import signal
import socket
import subprocess
import time
import uuid
import xml.etree.ElementTree as ET
from functools import cache
from pathlib import Path

from ..config import Settings
from ..db.client import ServerVersions
from ..errors import ServerError, ServerStartError
from ..resources import resource_dir
from .hardening import hardening
from .password import managed_connection, new_password, read_password, store_password
from .plugin import ensure_plugin, lay_plugins
from .ready import wait_until_ready

log = logging.getLogger(__name__)

ENTRY_POINT = "org.neo4j.server.CommunityEntryPoint"
ADMIN_TOOL = "org.neo4j.cli.AdminTool"

# The JVM flags of bin/neo4j (server.jvm.additional defaults of Neo4j 5.26), less -XX:+AlwaysPreTouch, which
# would touch the whole heap at start-up on a developer machine, and less -XX:+ExitOnOutOfMemoryError: a query
# whose values outgrow the heap (the transaction memory limit does not track an expression's values) would take
# the server down; without the flag Neo4j fails that query with Neo.TransientError.General.OutOfMemoryError and
# answers the next one.
JVM_FLAGS = (
    "-XX:+UseG1GC",
    "-XX:-OmitStackTraceInFastThrow",
    "-XX:+UnlockExperimentalVMOptions",
    "-XX:+TrustFinalNonStaticFields",
    "-XX:+DisableExplicitGC",
    "-Djdk.nio.maxCachedBufferSize=1024",
    "-Dio.netty.tryReflectionSetAccessible=true",
    "-Djdk.tls.ephemeralDHKeySize=2048",
    "-Djdk.tls.rejectClientInitiatedRenegotiation=true",
    "-XX:FlightRecorderOptions=stackdepth=256",
    "-XX:+UnlockDiagnosticVMOptions",
    "-XX:+DebugNonSafepoints",
    "--add-opens=java.base/java.nio=ALL-UNNAMED",
    "--add-opens=java.base/java.io=ALL-UNNAMED",
    "--add-opens=java.base/sun.nio.ch=ALL-UNNAMED",
    "--enable-native-access=ALL-UNNAMED",
    "-Dlog4j2.disable.jmx=true",
    "-Dfile.encoding=UTF-8",
)
SUPPORTED_JAVA = (17, 21)


@cache
def pinned_versions() -> dict[str, str]:
    """The versions pinned in ``docker/local/pom.xml``: ``neo4j``, ``gds``, ``browser``."""
    root = ET.parse(resource_dir("docker") / "local" / "pom.xml").getroot()
    ns = {"m": "http://maven.apache.org/POM/4.0.0"}
    props = root.find("m:properties", ns)
    assert props is not None
    return {key: props.findtext(f"m:{key}.version", namespaces=ns) or "" for key in ("neo4j", "gds", "browser")}


def find_java() -> str:
    """The ``java`` to run (``$JAVA_HOME/bin/java`` first), checked to be a version Neo4j 5.26 runs on."""
    java_home = os.environ.get("JAVA_HOME")
    java = str(Path(java_home) / "bin" / "java") if java_home else shutil.which("java")
    if not java or not Path(java).exists():
        raise ServerError("Java 17 or 21 is needed to run the local Neo4j server (apt-get install openjdk-17-jre-headless)")
    out = subprocess.run([java, "-version"], capture_output=True, text=True, check=False).stderr
    match = re.search(r'version "(\d+)(?:\.(\d+))?', out)
    major = int(match.group(1)) if match else 0
    if major == 1 and match and match.group(2):
        major = int(match.group(2))
    if major < SUPPORTED_JAVA[0]:
        raise ServerError(f"Neo4j 5.26 needs Java 17 or 21, found {out.splitlines()[0] if out else 'unknown'} at {java}")
    if major not in SUPPORTED_JAVA:
        log.warning("Neo4j 5.26 supports Java 17 and 21; trying Java %d", major)
    return java


def distribution_dir(settings: Settings) -> Path:
    v = pinned_versions()
    return settings.cache_dir / f"neo4j-{v['neo4j']}-gds-{v['gds']}-browser-{v['browser']}"


def ensure_distribution(settings: Settings) -> Path:
    """Assemble ``lib/`` and ``plugins/`` with Maven unless already done; return the distribution folder."""
    dist = distribution_dir(settings)
    if (dist / ".complete").is_file():
        return dist
    mvn = shutil.which("mvn")
    if not mvn:
        raise ServerError("Maven (mvn) is needed once to assemble the local Neo4j server (apt-get install maven)")
    build = settings.cache_dir / f".build-{uuid.uuid4().hex[:8]}"
    build.mkdir(parents=True)
    try:
        shutil.copy(resource_dir("docker") / "local" / "pom.xml", build / "pom.xml")
        log.info("assembling Neo4j %s + GDS %s from Maven Central into %s", *list(pinned_versions().values())[:2], dist)
        proc = subprocess.run([mvn, "-B", "-q", "package"], cwd=build, capture_output=True, text=True, check=False)
        if proc.returncode != 0:
            tail = "\n".join((proc.stdout + proc.stderr).splitlines()[-30:])
            raise ServerError(f"Maven could not assemble the Neo4j server (exit {proc.returncode}):\n{tail}")
        target = build / "target"
        for stray in target.iterdir():
            if stray.name not in ("lib", "plugins"):
                shutil.rmtree(stray) if stray.is_dir() else stray.unlink()
        (target / ".complete").write_text(" ".join(f"{k}={v}" for k, v in pinned_versions().items()) + "\n")
        try:
            target.rename(dist)
        except OSError:  # another process finished first
            if not (dist / ".complete").is_file():
                raise
    finally:
        shutil.rmtree(build, ignore_errors=True)
    return dist


def port_in_use(port: int, *, grace: float = 0.0) -> bool:
    """Whether something listens on the loopback ``port``, still after ``grace`` seconds of waiting for it to
    go (a killed server's threads may hold its sockets a moment after its main thread is gone)."""
    deadline = time.monotonic() + grace
    while True:
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
            sock.settimeout(0.5)
            if sock.connect_ex(("127.0.0.1", port)) != 0:
                return False
        if time.monotonic() >= deadline:
            return True
        time.sleep(0.25)


class LocalServer:
    """One managed server instance in ``settings.instance_dir``."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.home = settings.instance_dir
        self.pid_file = self.home / "run" / "bookrag-neo4j.pid"
        self.console_log = self.home / "logs" / "console.log"

    # --- state ---
    def pid(self) -> int | None:
        """PID of the running server, or ``None``; a stale pid file is removed."""
        try:
            pid = int(self.pid_file.read_text().strip())
        except (FileNotFoundError, ValueError):
            return None
        if self._alive(pid) and self._is_ours(pid):
            return pid
        log.info("removing stale pid file %s (pid %d is gone)", self.pid_file, pid)
        self.pid_file.unlink(missing_ok=True)
        return None

    def is_running(self) -> bool:
        return self.pid() is not None

    @staticmethod
    def _alive(pid: int) -> bool:
        try:
            os.waitpid(pid, os.WNOHANG)  # reap it if it is our own exited child
        except ChildProcessError:
            pass
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return False
        except PermissionError:
            return True
        try:  # a zombie (exited, not yet reaped by the process that started it, here or elsewhere) is gone
            return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
        except (OSError, IndexError):
            return True

    def _is_ours(self, pid: int) -> bool:
        cmdline = Path(f"/proc/{pid}/cmdline")
        if not cmdline.exists():  # not Linux: trust the pid file
            return True
        args = cmdline.read_bytes().split(b"\0")
        return ENTRY_POINT.encode() in args and f"--home-dir={self.home}".encode() in args

    def log_tail(self, lines: int = 40) -> str:
        if not self.console_log.is_file():
            return "(no log yet)"
        return "\n".join(self.console_log.read_text(errors="replace").splitlines()[-lines:])


    # --- lifecycle ---
    def start(self) -> ServerVersions:
        """Start the server (a no-op when it runs) and return once Bolt and GDS answer."""
        crashed = self.pid_file.exists()  # a pid file whose process is gone: its ports may take a moment to free
        pid = self.pid()
        if pid is not None:
            log.info("local Neo4j already running (pid %s)", pid)
            try:
                return wait_until_ready(managed_connection(self.settings), timeout=self.settings.neo4j.start_timeout,
                                        alive=lambda: self._alive(pid), log_tail=self.log_tail)
            except ServerStartError:
                if self._alive(pid):
                    raise
            # it was dying (a kill takes a moment to end a large JVM) or it crashed as we waited: start it again
            log.warning("Neo4j (pid %d) exited while we waited for it to answer; starting it again", pid)
            self.pid_file.unlink(missing_ok=True)
            crashed = True
        for port, name in ((self.settings.neo4j.bolt_port, "BOLT"), (self.settings.neo4j.http_port, "HTTP")):
            if port_in_use(port, grace=10.0 if crashed else 0.0):
                raise ServerStartError(
                    f"port {port} is already in use (another Neo4j?): stop that process or set BOOKRAG_NEO4J_{name}_PORT"
                )
        java = find_java()
        dist = ensure_distribution(self.settings)
        plugins = lay_plugins(dist / "plugins", ensure_plugin(self.settings) if self.settings.neo4j.plugin else None,
                              self.home / "plugins")
        self._write_home(plugins)
        self._ensure_initial_password(java, dist)
        command = [
            java,
            *JVM_FLAGS,
            *shlex.split(self.settings.neo4j.jvm_options),
            "-Xms512m",
            f"-Xmx{self.settings.neo4j.heap}",
            "-cp",
            os.pathsep.join(str(p) for p in (plugins / "*", self.home / "conf" / "*", dist / "lib" / "*")),
            ENTRY_POINT,
            f"--home-dir={self.home}",
            f"--config-dir={self.home / 'conf'}",
            "--console-mode",
        ]
        with open(self.console_log, "ab") as out:
            proc = subprocess.Popen(
                command,
                cwd=self.home,
                stdin=subprocess.DEVNULL,
                stdout=out,
                stderr=subprocess.STDOUT,
                env=self._env(dist),
                start_new_session=True,  # survives the CLI that started it
            )
        self.pid_file.write_text(f"{proc.pid}\n")
        log.info("started local Neo4j (pid %d), waiting for Bolt and GDS", proc.pid)
        try:
            return wait_until_ready(
                managed_connection(self.settings),
                timeout=self.settings.neo4j.start_timeout,
                alive=lambda: proc.poll() is None,
                log_tail=self.log_tail,
            )
        except BaseException:
            self.stop()
            raise

    def stop(self, timeout: float = 60.0) -> bool:
        """SIGTERM, wait up to ``timeout`` seconds, then SIGKILL. Returns whether a server was running."""
        pid = self.pid()
        if pid is None:
            return False
        os.kill(pid, signal.SIGTERM)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline and self._alive(pid):
            time.sleep(0.2)
        if self._alive(pid):
            log.warning("Neo4j (pid %d) did not stop within %.0fs; killing it", pid, timeout)
            os.kill(pid, signal.SIGKILL)
            while self._alive(pid):
                time.sleep(0.1)
        self.pid_file.unlink(missing_ok=True)
        return True

    # --- files ---
    def _env(self, dist: Path) -> dict[str, str]:
        return {**os.environ, "NEO4J_HOME": str(self.home), "NEO4J_CONF": str(self.home / "conf")}

    def _write_home(self, plugins: Path) -> None:
        for sub in ("conf", "data", "logs", "run", "import"):
            (self.home / sub).mkdir(parents=True, exist_ok=True)
        s = self.settings
        conf = f"""\
# Written by bookrag-neo4j at every start: change BOOKRAG_NEO4J_* settings instead of this file.
server.directories.data={self.home / 'data'}
server.directories.logs={self.home / 'logs'}
server.directories.run={self.home / 'run'}
server.directories.import={self.home / 'import'}
server.directories.plugins={plugins}
server.default_listen_address=127.0.0.1
server.default_advertised_address=localhost
server.bolt.listen_address=127.0.0.1:{s.neo4j.bolt_port}
server.bolt.advertised_address=localhost:{s.neo4j.bolt_port}
server.http.listen_address=127.0.0.1:{s.neo4j.http_port}
server.http.advertised_address=localhost:{s.neo4j.http_port}
server.https.enabled=false
dbms.security.auth_enabled=true
dbms.security.procedures.unrestricted=gds.*,bookrag.*
dbms.usage_report.enabled=false
server.memory.heap.initial_size=512m
server.memory.heap.max_size={s.neo4j.heap}
server.memory.pagecache.size={s.neo4j.pagecache}
db.tx_log.rotation.retention_policy=1G size
{hardening(s)}"""
        (self.home / "conf" / "neo4j.conf").write_text(conf, encoding="utf-8")

    def _ensure_initial_password(self, java: str, dist: Path) -> None:
        if read_password(self.settings) is not None:
            return
        if (self.home / "data" / "databases" / "system").exists():
            raise ServerError(
                f"the database in {self.home / 'data'} exists but its password file {self.settings.password_file} "
                "is gone: restore the file, or delete the instance folder to start from an empty database"
            )
        password = new_password(self.settings)
        proc = subprocess.run(
            [java, "-cp", str(dist / "lib" / "*"), ADMIN_TOOL, "dbms", "set-initial-password", "--", password],
            env=self._env(dist),
            capture_output=True,
            text=True,
            check=False,
        )
        if proc.returncode != 0:
            raise ServerError(f"neo4j-admin set-initial-password failed:\n{proc.stdout}{proc.stderr}".strip())
        store_password(self.settings, password)

