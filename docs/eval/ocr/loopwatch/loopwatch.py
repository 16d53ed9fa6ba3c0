"""Index one PDF with the event loop watched: a thread samples the loop's stack whenever it has not ticked for
1 s, and prints where (the innermost bookrag_neo4j frames) and for how long."""
import asyncio
import collections
import logging
import sys
import threading
import time
import traceback
from pathlib import Path

logging.basicConfig(level=logging.WARNING, format="%(message)s")
from bookrag_neo4j.config import Settings
from bookrag_neo4j.sdk import BookRAG

last = [time.monotonic()]
blocked = collections.Counter()

async def ticker():
    while True:
        last[0] = time.monotonic()
        await asyncio.sleep(0.05)

def watch(main_id):
    while True:
        time.sleep(0.25)
        if time.monotonic() - last[0] > 1.0:
            frames = [f for f in traceback.extract_stack(sys._current_frames()[main_id]) if "bookrag_neo4j" in f.filename]
            where = " < ".join(f"{Path(f.filename).stem}.{f.name}:{f.lineno}" for f in frames[::-1][:3])
            blocked[where] += 0.25

async def main():
    threading.Thread(target=watch, args=(threading.get_ident(),), daemon=True).start()
    tick = asyncio.create_task(ticker())
    rag = BookRAG(Settings(), use_llm=False)
    began = time.perf_counter()
    report = await rag.aindex(Path(sys.argv[1]), force=True)
    print(f"indexed {report.name} in {time.perf_counter() - began:.1f}s; loop held (s, sampled):")
    for where, seconds in blocked.most_common(8):
        print(f"  {seconds:5.2f}  {where}")

asyncio.run(main())
