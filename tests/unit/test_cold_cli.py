"""A new ``bookrag`` process imports what its command needs: ``--version`` and ``--help`` none of the pipeline;
the import hooks of :mod:`bookrag_neo4j.cli.lean_imports` keep PyTorch out of spaCy and pandas out of the Neo4j
driver, and leave both importable. Each check runs in a fresh interpreter (``sys.modules`` of its own)."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

HEAVY = ("neo4j", "numpy", "pandas", "pyarrow", "torch", "spacy", "thinc", "pymupdf", "scipy", "sklearn",
         "sentence_transformers", "graphdatascience", "httpx", "openai", "pydantic_settings")


def _fresh(code: str) -> dict:
    """Run ``code`` in a new interpreter; it prints one JSON line last."""
    out = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True, timeout=300,
                         check=False)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout.strip().splitlines()[-1])


def _cli(*args: str) -> dict:
    """``bookrag *args`` as the console script runs it, then which heavy modules it imported and what it printed."""
    return _fresh(f"""
        import contextlib, io, json, sys
        from bookrag_neo4j.cli import main
        sys.argv = ["bookrag", *{list(args)!r}]
        out = io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.suppress(SystemExit):
            main()
        print(json.dumps({{"loaded": [m for m in {HEAVY!r} if sys.modules.get(m) is not None],
                           "out": out.getvalue()}}))
    """)


def test_version_and_help_import_none_of_the_pipeline() -> None:
    version = _cli("--version")
    assert version["out"].startswith("bookrag-neo4j ") and version["loaded"] == []
    for args in (("--help",), ("retrieve", "--help"), ("neo4j", "--help"), ("models", "--help")):
        shown = _cli(*args)
        assert "Usage" in shown["out"] and shown["loaded"] == [], (args, shown["loaded"])


def test_spacy_loads_without_torch_and_torch_stays_importable() -> None:
    found = _fresh("""
        import json, sys
        from bookrag_neo4j.cli import lean_imports
        lean_imports.install(torch_for_spacy=False)
        lean_imports.install(torch_for_spacy=False)  # once
        from bookrag_neo4j.text.nlp import parse
        doc = parse("What was the effective tax rate of PepsiCo in 2022?")
        result = {"torch": "torch" in sys.modules, "has_torch": sys.modules["thinc.compat"].has_torch,
                  "entities": [e.text for e in doc.ents],
                  "hooks": sum(type(f).__name__ == "_Finder" for f in sys.meta_path)}
        import torch
        result["torch_after"] = torch.ones(2).sum().item()
        print(json.dumps(result))
    """)
    assert found == {"torch": False, "has_torch": False, "entities": ["PepsiCo", "2022"], "hooks": 1, "torch_after": 2.0}


def test_torch_imported_first_is_left_alone() -> None:
    found = _fresh("""
        import json, sys
        import torch
        from bookrag_neo4j.cli import lean_imports
        lean_imports.install(torch_for_spacy=False)
        import thinc.compat
        print(json.dumps({"has_torch": thinc.compat.has_torch}))
    """)
    assert found == {"has_torch": True}


def test_the_driver_loads_without_pandas_and_pandas_stays_importable() -> None:
    found = _fresh("""
        import json, sys
        from bookrag_neo4j.cli import lean_imports
        lean_imports.install(pandas_for_neo4j=False)
        import neo4j
        from neo4j import _optional_deps
        result = {"pandas": "pandas" in sys.modules, "pyarrow": "pyarrow" in sys.modules, "pd": _optional_deps.pd,
                  "np": _optional_deps.np is not None}
        import pandas
        result["frame"] = len(pandas.DataFrame({"a": [1, 2]}))
        print(json.dumps(result))
    """)
    assert found == {"pandas": False, "pyarrow": False, "pd": None, "np": True, "frame": 2}
