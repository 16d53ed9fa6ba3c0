"""Locate the top-level resource folders (``cypher/``, ``prompts/``, ``docker/``).

In a source checkout (editable install) they sit next to the package; in a wheel they are shipped inside it as
``bookrag_neo4j/_resources/<name>`` (see ``pyproject.toml``).
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

from .errors import ConfigurationError

_PACKAGE_DIR = Path(__file__).resolve().parent


@cache
def resource_dir(name: str) -> Path:
    """Return the directory of resource ``name`` (``"cypher"``, ``"prompts"`` or ``"docker"``)."""
    for candidate in (_PACKAGE_DIR / "_resources" / name, _PACKAGE_DIR.parent / name):
        if candidate.is_dir():
            return candidate
    raise ConfigurationError(f"resource folder {name!r} not found next to the bookrag_neo4j package")
