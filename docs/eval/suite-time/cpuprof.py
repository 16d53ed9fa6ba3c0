"""Per-test CPU: this process, its waited-for children, and every Neo4j JVM on the machine."""
import os, time
import pytest

TICK = os.sysconf("SC_CLK_TCK")
OUT = open("/tmp/cpu-per-test.tsv", "a", buffering=1)


def neo4j_cpu() -> float:
    total = 0.0
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                if b"CommunityEntryPoint" not in f.read():
                    continue
            with open(f"/proc/{pid}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
            total += (int(fields[11]) + int(fields[12])) / TICK
        except OSError:
            pass
    return total


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item, nextitem):
    t = os.times(); n = neo4j_cpu(); w = time.monotonic()
    yield
    t2 = os.times(); n2 = neo4j_cpu()
    OUT.write(f"{item.nodeid}\t{time.monotonic()-w:.2f}\t{t2.user+t2.system-t.user-t.system:.2f}\t"
              f"{t2.children_user+t2.children_system-t.children_user-t.children_system:.2f}\t{max(0.0, n2-n):.2f}\n")
