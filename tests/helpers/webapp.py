"""The web app (``bookrag serve``) served for a test: uvicorn on a free loopback port, in a thread, configured as
``bookrag serve`` configures it (:func:`bookrag_neo4j.web.serving.server_config`: its header and body deadlines).

    with serving(create_app(settings, use_llm=False)) as base:    # "http://127.0.0.1:PORT"
        httpx.get(base + "/healthz")
        job = wait_for_job(base, job_id)                          # its JSON, once done or failed
    await add_document(db, "test-web-x", path="/tmp/x.pdf")   # a bare Document node for the library
"""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

import httpx
import uvicorn

from bookrag_neo4j.web.serving import server_config


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextmanager
def serving(app, timeout: float = 30.0) -> Iterator[str]:  # noqa: ANN001 - an ASGI app
    port = free_port()
    server = uvicorn.Server(server_config(app, host="127.0.0.1", port=port))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + timeout
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            raise RuntimeError("the web app did not start")
        time.sleep(0.05)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout)


def wait_for_job(base: str, job_id: str, timeout: float = 600.0, headers: dict[str, str] | None = None) -> dict:
    """The indexing job ``job_id`` of the app at ``base`` as ``/api/jobs/<id>`` gives it, once it is done or
    failed."""
    deadline = time.monotonic() + timeout
    while (job := httpx.get(f"{base}/api/jobs/{job_id}", headers=headers).json())["state"] in ("queued", "running"):
        if time.monotonic() > deadline:
            raise TimeoutError(f"indexing job {job_id} still {job['state']} after {timeout:.0f} s")
        time.sleep(0.5)
    return job


async def add_document(db, key: str, **properties) -> None:  # noqa: ANN001 - a Neo4jClient
    """A bare Document node (no tree): enough for the library table, a delete and the page images."""
    await db.run("CREATE (d:Document {key: $key}) SET d += $properties",
                    {"key": key, "properties": {"name": f"{key}.pdf", "status": "complete", **properties}})
