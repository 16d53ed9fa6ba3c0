"""``bookrag train headings``: retrain the heading classifier from any folders of bookmarked PDFs.

    bookrag train headings manuals=/usr/share/doc/r-doc-pdf papers=~/papers --out my-headings.json
    bookrag train headings --corpus bookrag_neo4j/tree/heading-corpus.txt --out heading-model.json
    BOOKRAG_HEADING_MODEL=my-headings.json bookrag index report.pdf
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from ..errors import DocumentError
from .common import console

train_app = typer.Typer(help="Train the models that ship with the package.", no_args_is_help=True)


def corpus_arguments(paths: list[str], corpus: Path | None) -> list[str]:
    """``[FAMILY=]PATH`` arguments, plus the lines of a corpus file (``#`` comments skipped)."""
    lines = [] if corpus is None else [line.strip() for line in corpus.read_text().splitlines()]
    found = [*paths, *(line for line in lines if line and not line.startswith("#"))]
    if not found:
        raise DocumentError("give PDFs or folders with outlines ([FAMILY=]PATH), or --corpus FILE")
    return found


@train_app.command("headings")
def train_headings(
    paths: Annotated[list[str] | None, typer.Argument(help="[FAMILY=]PATH: bookmarked PDFs or folders of them; the "
                                                           "family defaults to the folder's name.")] = None,
    corpus: Annotated[Path | None, typer.Option(help="A file of FAMILY=PATH lines (the shipped model's: "
                                                     "bookrag_neo4j/tree/heading-corpus.txt).")] = None,
    out: Annotated[Path, typer.Option(help="Where to write the model (JSON).")] = Path("heading-model.json"),
    region_pages: Annotated[int, typer.Option(help="Pages a document read by the region model, so that the "
                                                   "classifier learns its classes (0: none).")] = 12,
    stages: Annotated[int, typer.Option(help="Boosting stages of each model.")] = 100,
    folds: Annotated[int, typer.Option(help="Cross-validation folds over the documents that choose the decision "
                                            "threshold (below 2: 0.5).")] = 5,
) -> None:
    """Train the heading classifier from PDFs whose bookmarks mark their headings; use it with
    BOOKRAG_HEADING_MODEL=OUT."""
    from ..tree.training import corpus_paths, fit, labelled

    found = corpus_paths(corpus_arguments(paths or [], corpus))
    docs = []
    with console.status("Reading the corpus...") as status:
        for n, (path, family) in enumerate(found, 1):
            status.update(f"Reading {path.name} ({n}/{len(found)})")
            if (doc := labelled(path, family, region_pages=region_pages)) is not None:
                docs.append(doc)
        status.update("Training...")
        model = fit(docs, stages=stages, folds=folds, progress=console.print)
    model.training.update({"region_pages": region_pages, "corpus": str(corpus) if corpus else None})
    model.save(out)
    console.print(f"{len(docs)} of {len(found)} PDFs taught the model ({model.training['headings']} headings); "
                  f"threshold {model.threshold:.2f}; written to {out}")
