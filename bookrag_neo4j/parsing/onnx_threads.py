"""ONNX Runtime on one thread without spin-waiting, for the table finder's worker processes.

``import pymupdf`` (with ``pymupdf_layout`` installed) loads the region model and builds its ONNX sessions at
once, each with a thread per core that spin-waits between operators. The pool, not ONNX, spreads the work over
the cores, so each worker's sessions must run on one thread; and the options must change *before* PyMuPDF is
imported in the worker. This module imports no PyMuPDF, so the pool's initializer can live here: unpickling it
in a new worker does not load the model first. (Before 2026-11-25 the initializer lived in ``table_pool``,
whose import loads PyMuPDF: the workers' sessions kept two spinning threads, 0.38 CPU-s a layout page instead
of 0.28, the same regions. ``docs/eval/indexing.md``.)

    single_threaded_sessions()        # first thing in a worker
    import pymupdf                    # the region model's sessions now run on one thread
    assert set(session_threads()) == {1}
"""

from __future__ import annotations

import gc

import onnxruntime as ort


def single_threaded_sessions() -> None:
    """Make every ONNX session created from now on in this process single-threaded, without spinning."""
    base = ort.SessionOptions
    if getattr(base, "single_threaded", False):
        return

    def single_threaded() -> ort.SessionOptions:
        options = base()
        options.intra_op_num_threads = 1
        options.inter_op_num_threads = 1
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
        return options

    single_threaded.single_threaded = True  # type: ignore[attr-defined]
    ort.SessionOptions = single_threaded  # pymupdf.layout builds its sessions with ort.SessionOptions()


def session_threads() -> list[int]:
    """The intra-op threads of the ONNX sessions alive in this process once PyMuPDF's region model is loaded
    (0 means one per core)."""
    import pymupdf  # noqa: F401  (loads the region model where pymupdf_layout is installed)

    return sorted(s.get_session_options().intra_op_num_threads for s in gc.get_objects()
                  if isinstance(s, ort.InferenceSession))
