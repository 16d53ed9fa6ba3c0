"""Time limits of the tests. They exist to catch a hang, never to judge a machine's speed: a fresh clone on a
busy 2-core machine must pass. pyproject's per-test ``timeout`` (600 s) covers most tests; a test that indexes
or parses a real document, or runs the real local LLM, raises it with ``pytest.mark.timeout(LONG_TEST)``."""

from __future__ import annotations

# One subprocess or wait that should take seconds to minutes (``bookrag demo`` indexing R-intro included).
HANG = 1800

# The per-test limit (pytest-timeout: setup, call and teardown) of those long tests; above HANG, so that a hung
# subprocess is reported as such.
LONG_TEST = 2400

# Playwright waits in Neo4j Browser (milliseconds).
BROWSER_WAIT_MS = 120_000
