"""bookrag-neo4j installed as a package: the wheel built from this tree, installed into a fresh virtual
environment without the source tree, runs ``bookrag --version``, ``bookrag neo4j init`` (a schema apply on the
test server) and ``bookrag doctor --json``, with ``cypher/``, ``prompts/`` and ``docker/`` found inside it.

The fresh environment gets its dependencies from this one's site-packages through a ``.pth`` file (written
after the wheel is installed, so pip sees no other bookrag-neo4j). A ``.pth`` line only adds a folder to
``sys.path``; the ``.pth`` files inside it, this environment's editable install among them, are not read. Every
command runs in a folder outside the repository."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
import sysconfig
from dataclasses import dataclass
from pathlib import Path

import pytest

import bookrag_neo4j
from bookrag_neo4j.db.client import ConnectionInfo

from ..helpers.timeouts import HANG

ROOT = Path(__file__).resolve().parents[2]
RESOURCES = {"cypher": "schema.cypher", "prompts": "doctor_ping.md", "docker": "compose.yml"}

pytestmark = pytest.mark.slow  # builds a wheel and a virtual environment: ~30 s on 2 busy cores


@dataclass(frozen=True)
class Installed:
    venv: Path
    site: Path  # the fresh environment's site-packages, where the wheel went
    work: Path  # the folder outside the repository the commands run in

    @property
    def bookrag(self) -> str:
        return str(self.venv / "bin" / "bookrag")

    @property
    def python(self) -> str:
        return str(self.venv / "bin" / "python")


def run(*command: str, cwd: Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    proc = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True, timeout=HANG, check=False)
    assert proc.returncode == 0, f"{' '.join(command)} exited {proc.returncode}:\n{proc.stdout}\n{proc.stderr}"
    return proc


def clean_env(**extra: str) -> dict[str, str]:
    """This process's environment without what points at the source tree or another server."""
    drop = ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV", "NEO4J_", "BOOKRAG_")
    return {**{k: v for k, v in os.environ.items() if not k.startswith(drop)},
            "BOOKRAG_LLM_PROVIDER": "none", "BOOKRAG_VLM_PROVIDER": "none", **extra}


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Installed:
    work = tmp_path_factory.mktemp("wheel")
    dist, venv = work / "dist", work / "venv"
    # hatchling from this environment when it has it (offline); else pip fetches it into an isolated build env
    isolation = ["--no-build-isolation"] if importlib.util.find_spec("hatchling") else []
    run(sys.executable, "-m", "pip", "wheel", "--no-deps", "--quiet", *isolation, "--wheel-dir", str(dist), str(ROOT),
        cwd=work, env=clean_env())
    (wheel,) = dist.glob("bookrag_neo4j-*.whl")
    run(sys.executable, "-m", "venv", "--without-pip", str(venv), cwd=work)
    python = str(venv / "bin" / "python")
    # this pip, run by the fresh interpreter: the console script's first line names that interpreter
    run(sys.executable, "-m", "pip", "--python", python, "install", "--no-deps", "--quiet", str(wheel), cwd=work,
        env=clean_env())
    site = Path(run(python, "-c", "import sysconfig; print(sysconfig.get_path('purelib'))", cwd=work).stdout.strip())
    ours = {sysconfig.get_path("purelib"), sysconfig.get_path("platlib")}
    (site / "_bookrag_wheel_test_deps.pth").write_text("\n".join(sorted(ours)) + "\n")
    return Installed(venv=venv, site=site, work=work)


def test_the_package_is_imported_from_the_wheel(installed: Installed) -> None:
    probe = (
        "import json, sys, importlib.metadata as md, bookrag_neo4j\n"
        "from bookrag_neo4j.resources import resource_dir\n"
        "from bookrag_neo4j.db.queries import load_query\n"
        "from bookrag_neo4j.llm.prompts import render_prompt\n"
        "from bookrag_neo4j.testing import compose_service\n"
        "print(json.dumps({'file': bookrag_neo4j.__file__, 'version': bookrag_neo4j.__version__,\n"
        "    'dist': md.version('bookrag-neo4j'), 'path': sys.path,\n"
        "    'dirs': {n: str(resource_dir(n)) for n in ('cypher', 'prompts', 'docker')},\n"
        "    'query': load_query('retrieval/evidence_graph'),\n"
        "    'prompt': render_prompt('doctor_ping').messages[-1]['content'], 'image': compose_service().image}))\n"
    )
    seen = json.loads(run(installed.python, "-c", probe, cwd=installed.work, env=clean_env()).stdout)
    package = installed.site / "bookrag_neo4j"
    assert Path(seen["file"]) == package / "__init__.py"
    assert str(ROOT) not in seen["path"] and str(installed.work) != str(ROOT)
    assert seen["version"] == seen["dist"] == bookrag_neo4j.__version__
    for name, marker in RESOURCES.items():
        folder = Path(seen["dirs"][name])
        assert folder == package / "_resources" / name, (name, folder)
        assert (folder / marker).is_file()
    assert "MATCH" in seen["query"] and seen["prompt"].strip()
    assert seen["image"].startswith("neo4j:5.26")  # the test plugin reads the wheel's docker/compose.yml


def test_version(installed: Installed) -> None:
    proc = run(installed.bookrag, "--version", cwd=installed.work, env=clean_env())
    assert proc.stdout.strip() == f"bookrag-neo4j {bookrag_neo4j.__version__}"


def test_schema_apply_and_doctor_on_the_test_server(installed: Installed, conn: ConnectionInfo, dimensions: int) -> None:
    env = clean_env(NEO4J_URI=conn.uri, NEO4J_USERNAME=conn.username, NEO4J_PASSWORD=conn.password,
                    NEO4J_DATABASE=conn.database)
    # the dimension given spares `init` loading the embedder; the doctor loads it
    init = run(installed.bookrag, "neo4j", "init", cwd=installed.work,
               env={**env, "BOOKRAG_EMBEDDING_DIMENSIONS": str(dimensions)})
    assert "Schema applied" in init.stderr and "ONLINE" in init.stderr  # the console writes to stderr
    report = json.loads(run(installed.bookrag, "doctor", "--json", cwd=installed.work, env=env).stdout)
    assert report["neo4j"]["ok"] and conn.uri in report["neo4j"]["detail"]
    assert report["gds"]["ok"] and report["vector_index"]["ok"]
    assert "dims, ONLINE" in report["vector_index"]["detail"]  # the schema `init` applied from the wheel's cypher/
    assert report["embedder"]["ok"] and f"{dimensions} dimensions" in report["embedder"]["detail"], report["embedder"]
