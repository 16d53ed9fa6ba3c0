"""bookrag-neo4j's own Neo4j plugin (``docker/plugin/``): built with Maven once per source version, and laid with
OpenGDS in a server instance's plugins folder.

    jar = ensure_plugin(settings)          # <cache_dir>/bookrag-plugin-<hash of its sources>.jar, built if missing
    lay_plugins(dist / "plugins", jar, instance / "plugins")   # the instance's plugins: GDS's jars and this one

The plugin's procedures (``bookrag.similarities``, ``bookrag.linkEntities``, ``bookrag.version``) score a
document's stored vectors inside the server (:mod:`bookrag_neo4j.db.vectors`). A server without it (Aura, one you do
not manage) runs the same scores in Cypher. Each instance gets a plugins folder of its own, so that a new build
never replaces a jar under another running instance.
"""

from __future__ import annotations

import hashlib
import logging
import shutil
import subprocess
import uuid
from pathlib import Path

from ..config import Settings
from ..db.vectors import PLUGIN_VERSION
from ..errors import ServerError
from ..resources import resource_dir

log = logging.getLogger(__name__)

JAR = f"bookrag-neo4j-plugin-{PLUGIN_VERSION}.jar"


def plugin_sources() -> Path:
    return resource_dir("docker") / "plugin"


def sources_hash() -> str:
    """A hash of the plugin's pom and Java sources: a changed source builds a new jar."""
    digest = hashlib.sha256()
    root = plugin_sources()
    for path in sorted([root / "pom.xml", *(root / "src").rglob("*.java")]):
        digest.update(path.relative_to(root).as_posix().encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()[:16]


def ensure_plugin(settings: Settings) -> Path:
    """The plugin's jar for the current sources, built with Maven (``mvn -B -q package``) when missing."""
    jar = settings.cache_dir / f"bookrag-plugin-{sources_hash()}.jar"
    if jar.is_file():
        return jar
    mvn = shutil.which("mvn")
    if not mvn:
        raise ServerError("Maven (mvn) is needed once to build bookrag-neo4j's Neo4j plugin (apt-get install maven)")
    build = settings.cache_dir / f".plugin-{uuid.uuid4().hex[:8]}"
    try:
        shutil.copytree(plugin_sources(), build, ignore=shutil.ignore_patterns("target"))
        log.info("building bookrag-neo4j's Neo4j plugin %s", PLUGIN_VERSION)
        proc = subprocess.run([mvn, "-B", "-q", "package"], cwd=build, capture_output=True, text=True, check=False)
        if proc.returncode != 0:
            tail = "\n".join((proc.stdout + proc.stderr).splitlines()[-30:])
            raise ServerError(f"Maven could not build bookrag-neo4j's Neo4j plugin (exit {proc.returncode}):\n{tail}")
        built = build / "target" / JAR
        partial = jar.with_suffix(f".{uuid.uuid4().hex[:8]}.part")
        shutil.copy(built, partial)
        partial.replace(jar)  # atomic: two processes building at once both end with a whole jar
    finally:
        shutil.rmtree(build, ignore_errors=True)
    return jar


def lay_plugins(gds_plugins: Path, jar: Path | None, folder: Path) -> Path:
    """``folder`` holding links to ``gds_plugins``' jars and a copy of ``jar`` (None: the plugin left out), and
    nothing else; the folder."""
    folder.mkdir(parents=True, exist_ok=True)
    for old in folder.iterdir():
        old.unlink()
    for gds in sorted(gds_plugins.glob("*.jar")):
        (folder / gds.name).symlink_to(gds)
    if jar is not None:
        shutil.copy(jar, folder / JAR)
    return folder
