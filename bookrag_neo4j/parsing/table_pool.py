"""PyMuPDF's table finder on a pool of worker processes, one page a task.

    find = table_finder(path, content_hash, doc, pages=[3, 7, 8], mode="regions", workers=2)
    tables_on_page_7 = find(7).tables   # waits for that page only; the others keep running

The layout table finder costs about 0.35 CPU-seconds a candidate page, nearly all of a PDF's parse time. In one
process its ONNX models spread each page over every core with spinning threads (about 1.6 cores busy for one
core's worth of work); here each worker runs ONNX on one thread without spinning (:mod:`.onnx_threads`) and the
workers take pages side by side (``docs/eval/indexing.md``). The pool is
started on first use and kept for the process's life (a worker loads the models once, ~1 s); ``workers`` 1, or a
document with fewer than ``MIN_POOL_PAGES`` candidate pages, runs in-process. A worker that dies (out of memory,
killed) costs nothing: its pages are found again in-process and the pool is started anew next time.
"""

from __future__ import annotations

import hashlib
import logging
import multiprocessing
import os
import sys
import threading
from collections.abc import Callable, Collection, Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from contextlib import contextmanager
from pathlib import Path

import pymupdf

from ..errors import DocumentError
from .onnx_threads import single_threaded_sessions
from .tables import PageTables, TableMode, find_on_page

log = logging.getLogger(__name__)

MIN_POOL_PAGES = 8  # fewer candidate pages than this: in-process (a worker takes ~1 s to load the models)
MAX_WORKERS = 8

_pool: ProcessPoolExecutor | None = None
_pool_workers = 0
_pool_lock = threading.Lock()
_worker_doc: tuple[tuple[str, str], pymupdf.Document] | None = None  # in a worker: the PDF it has open


def pool_size(workers: int) -> int:
    """The table-finder processes ``workers`` asks for: itself, or for 0 one per core the process may use, at most
    ``MAX_WORKERS`` (the single place where "0 = one per core" is decided)."""
    if workers > 0:
        return workers
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    return max(1, min(cores, MAX_WORKERS))


def worker_document(path: str, content_hash: str) -> pymupdf.Document:
    """In a worker: the PDF being parsed, opened once and kept open for the document's next pages."""
    global _worker_doc
    if _worker_doc is None or _worker_doc[0] != (path, content_hash):
        data = Path(path).read_bytes()
        if hashlib.sha256(data).hexdigest() != content_hash:
            raise DocumentError(f"{Path(path).name} changed while it was being parsed")
        if _worker_doc is not None:
            _worker_doc[1].close()
        _worker_doc = ((path, content_hash), pymupdf.open(stream=data, filetype="pdf"))
    return _worker_doc[1]


def _worker_tables(path: str, content_hash: str, number: int, mode: TableMode) -> PageTables:
    """In a worker: the tables (and layout regions) of one page."""
    return find_on_page(worker_document(path, content_hash)[number - 1], number, mode)


def get_pool(workers: int) -> ProcessPoolExecutor:
    global _pool, _pool_workers
    with _pool_lock:
        if _pool is None or _pool_workers != workers:
            if _pool is not None:
                _pool.shutdown(wait=False, cancel_futures=True)
            # spawn: parsing runs in a thread of an asyncio program, and forking a threaded process is unsafe
            _pool = ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("spawn"),
                                        initializer=single_threaded_sessions)
            _pool_workers = workers
        return _pool


def drop_pool() -> None:
    global _pool
    with _pool_lock:
        if _pool is not None:
            _pool.shutdown(wait=False, cancel_futures=True)
            _pool = None


@contextmanager
def main_module_hidden() -> Iterator[None]:
    """While workers start: hide the calling script from ``spawn``, which would import it again in each worker
    (a script without an ``if __name__ == "__main__":`` guard would index again there). The workers need
    nothing from it: their code lives in this module."""
    main = sys.modules.get("__main__")
    if main is None:
        yield
        return
    saved = (getattr(main, "__spec__", None), main.__dict__.pop("__file__", None))
    main.__spec__ = None
    try:
        yield
    finally:
        main.__spec__ = saved[0]
        if saved[1] is not None:
            main.__file__ = saved[1]


def table_finder(path: Path, content_hash: str, doc: pymupdf.Document, pages: list[int], mode: TableMode,
                 workers: int, lines_only: Collection[int] = ()) -> Callable[[int], PageTables]:
    """Start finding the tables of ``pages`` (1-based) and return ``find(page)``, which waits for one page's
    tables (and, in layout mode, the region model's regions).

    ``doc`` is the open document, used in-process (``workers`` 1, few pages, or a worker lost); ``workers`` 0 is
    one per core (:func:`pool_size`). The pages in ``lines_only`` are read in ``lines`` mode (no region model)."""
    workers = pool_size(workers)

    def page_mode(number: int) -> TableMode:
        return "lines" if mode == "regions" and number in lines_only else mode

    if workers <= 1 or len(pages) < MIN_POOL_PAGES:
        return lambda number: find_on_page(doc[number - 1], number, page_mode(number))
    pool = get_pool(min(workers, MAX_WORKERS))
    with main_module_hidden():  # a submit starts a worker when none is idle
        futures: dict[int, Future[PageTables]] = {
            n: pool.submit(_worker_tables, str(path.absolute()), content_hash, n, page_mode(n)) for n in pages}

    def find(number: int) -> PageTables:
        try:
            return futures[number].result()
        except BrokenProcessPool:
            log.warning("a table-finder worker died; page %d is parsed in-process", number)
            drop_pool()
            return find_on_page(doc[number - 1], number, page_mode(number))

    return find
