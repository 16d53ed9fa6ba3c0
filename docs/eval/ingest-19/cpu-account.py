"""CPU-seconds of the whole index of one PDF (cold process, LLM-free): this process, its table-finder workers, the Neo4j
server, and the machine as a whole, over the tree+graph wall time."""
import asyncio
import os
import sys
import tempfile
import time
from pathlib import Path

HZ = os.sysconf("SC_CLK_TCK")
def cpu(pid):
    try:
        s = open(f"/proc/{pid}/stat").read(); r = s[s.rindex(")") + 2:].split(); return (int(r[11]) + int(r[12])) / HZ
    except OSError: return 0.0
def machine():
    v = list(map(int, open("/proc/stat").readline().split()[1:])); return (sum(v) - v[3] - v[4]) / HZ
def java():
    return [p for p in os.listdir("/proc") if p.isdigit() and "java" in open(f"/proc/{p}/comm").read()]
from bookrag_neo4j.cli.common import library
from bookrag_neo4j.index.pipeline import Indexer
from bookrag_neo4j.keys import file_key
from bookrag_neo4j.library.catalogue import delete_document
from bookrag_neo4j.llm.factory import Models


async def main(path):
    rag = library(); db = await rag.aclient()
    with tempfile.TemporaryDirectory() as d:
        idx = Indexer(db, rag.settings.model_copy(update={"cache_dir": Path(d)}), Models.from_settings(rag.settings), use_llm=False)
        await delete_document(db, file_key(path))
        j = java(); j0 = sum(cpu(p) for p in j); m0 = machine(); s0 = cpu(os.getpid()); t0 = time.perf_counter()
        r = await idx.index(path, layout=False, content_graph=False)
        wall = time.perf_counter() - t0; m1 = machine(); s1 = cpu(os.getpid()); j1 = sum(cpu(p) for p in j)
        kids = [p for p in os.listdir("/proc") if p.isdigit() and open(f"/proc/{p}/stat").read().rsplit(")", 1)[1].split()[1] == str(os.getpid())]
        workers = sum(cpu(p) for p in kids)
        print(f"pages {r.pages}  wall {wall:.1f}s  {r.pages / wall:.2f} pages/s")
        print(f"CPU-s: this process {s1 - s0:.1f}, table-finder workers {workers:.1f}, Neo4j {j1 - j0:.1f}, machine {m1 - m0:.1f}"
              f" = {(m1 - m0) / wall:.2f} cores busy on average; at 2 cores fully busy: >= {(m1 - m0) / 2:.1f}s")
asyncio.run(main(Path(sys.argv[1])))
