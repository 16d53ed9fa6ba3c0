"""The managed server's defence in depth beside the read-only gate (``docs/reliability.md``): a
memory limit and a timeout on every transaction, procedures limited to the built-ins and GDS, HTTP CORS for the
server's own origin only, and LOAD CSV kept off the file system and off loopback and private addresses. The
local runtime writes :func:`hardening` into ``neo4j.conf``; ``docker/compose.yml`` sets the same through the
environment.

    hardening(Settings())   # "db.memory.transaction.max=1536m\ndb.transaction.timeout=15m\n..."
    quarter("6g")           # "1536m": the default per-transaction limit for a 6g heap
"""

from __future__ import annotations

from ..config import Settings

# Addresses LOAD CSV may never fetch from (server-side request forgery): loopback, private, link-local (cloud
# metadata), carrier-grade NAT, "this network", and their IPv6 counterparts.
PRIVATE_RANGES = ("127.0.0.0/8", "10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "169.254.0.0/16", "100.64.0.0/10",
                  "0.0.0.0/8", "::1/128", "fc00::/7", "fe80::/10")


def hardening(s: Settings) -> str:
    """The defence-in-depth settings as ``neo4j.conf`` lines."""
    return "\n".join([
        f"db.memory.transaction.max={s.neo4j.transaction_memory or quarter(s.neo4j.heap)}",
        f"db.transaction.timeout={s.neo4j.transaction_timeout}",
        "dbms.security.procedures.allowlist=gds.*,bookrag.*",
        f"dbms.security.http_access_control_allow_origin=http://localhost:{s.neo4j.http_port}",
        "dbms.security.allow_csv_import_from_file_urls=false",
        f"internal.dbms.cypher_ip_blocklist={','.join(PRIVATE_RANGES)}",
    ]) + "\n"


def quarter(size: str) -> str:
    """A quarter of a JVM memory size, in MiB (``6g`` -> ``1536m``; a bare number is bytes, as Neo4j reads it)."""
    text = size.strip().lower()
    scale = {"k": 2 ** 10, "m": 2 ** 20, "g": 2 ** 30, "t": 2 ** 40}.get(text[-1:], 1)
    number = text[:-1] if scale > 1 else text
    return f"{max(1, int(float(number) * scale / 4 / 2 ** 20))}m"
