"""Which Neo4j the tests use."""

from __future__ import annotations

import os


def external() -> bool:
    """``NEO4J_URI`` is set: the tests use that server and never start or stop one."""
    return bool(os.environ.get("NEO4J_URI"))
