"""``bookrag eval`` reports: per-question JSONL, a summary JSON, a Markdown table (with "does each part help?":
:mod:`bookrag_neo4j.eval.parts`) and PNG plots.

    paths = write_report(Path("eval-out"), rows, summary)   # {"questions": ..., "summary": ..., ...}

Plots (matplotlib, the ``eval`` extra): page recall by method, page recall by evidence source, and cost
(seconds a question) against page recall.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from .parts import parts_section
from .scored import EvalRow
from .summary import EvalSummary

log = logging.getLogger(__name__)

COLUMNS = (("recall", "page recall"), ("recall@5", "recall@5"), ("recall@10", "recall@10"), ("units", "units"),
           ("pages", "pages"), ("recall@5p", "recall, 5 pages"),
           ("recall@10p", "recall, 10 pages"),
           ("seconds", "s/question"), ("tokens", "tokens"), ("llm_calls", "LLM calls"), ("score", "QA score"),
           ("em", "EM"), ("f1", "F1"), ("inclusion", "inclusion"), ("judge", "judge"))


def markdown_table(summary: EvalSummary) -> str:
    """One row per method with the means that were measured."""
    methods = summary.methods
    shown = [(k, title) for k, title in COLUMNS if any(m.measure(k) is not None for m in methods.values())]
    lines = ["| method | questions | " + " | ".join(t for _, t in shown) + " |",
             "|---|---|" + "---|" * len(shown)]
    for name, m in methods.items():
        cells = [_cell(m.measure(k)) for k, _ in shown]
        lines.append(f"| {name} | {m.n} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def errors_section(summary: EvalSummary) -> str:
    """The reasons some rows are misses (a document that failed or is not indexed, a method that failed), with
    their documents; empty for a complete run."""
    if not summary.errors:
        return ""
    lines = ["", "## Counted as misses", "", "| reason | documents | rows |", "|---|---|---|"]
    for reason, entry in summary.errors.items():
        cell = " ".join(reason.split()).replace("|", "\\|")
        lines.append(f"| {cell} | {', '.join(entry.documents)} | {entry.rows} |")
    return "\n".join(lines) + "\n"


def own_document_section(summary: EvalSummary) -> str:
    """In a library-wide run: how often each method's evidence shows the question's own document first, within
    3 and within 5 documents, over all questions and by half; empty otherwise."""
    ranked = {name: m.own_document for name, m in summary.methods.items() if m.own_document}
    if not ranked:
        return ""
    groups = list(dict.fromkeys(g for shares in ranked.values() for g in shares))
    lines = ["", "## The question's own document, asked of the whole library",
             "", "Share of questions whose own document comes first / within 3 / within 5 of the evidence's "
             "documents.", "", "| method | " + " | ".join(groups) + " |", "|---|" + "---|" * len(groups)]
    for name, shares in ranked.items():
        cells = [" / ".join(f"{v:.3f}" for v in shares[g].values()) if g in shares else "—" for g in groups]
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def report_body(summary: EvalSummary) -> str:
    """The methods' table, the own document's rank in a library-wide run, whether each part helps, and what was
    counted as a miss (report.md and the console)."""
    return (markdown_table(summary) + own_document_section(summary) + parts_section(summary.parts)
            + errors_section(summary))


def _cell(value: float | None) -> str:
    if value is None:
        return "—"
    if isinstance(value, float) and value < 1000:  # recalls, seconds, 10.7 pages: three decimals
        return f"{value:.3f}"
    return f"{value:,.0f}"  # counts and large means (tokens)


def write_report(out: Path, rows: Sequence[EvalRow], summary: EvalSummary) -> dict[str, Path]:
    """Write ``questions.jsonl``, ``summary.json``, ``report.md`` and the plots into ``out``."""
    out.mkdir(parents=True, exist_ok=True)
    paths = {"questions": out / "questions.jsonl", "summary": out / "summary.json", "markdown": out / "report.md"}
    paths["questions"].write_text("".join(json.dumps(r.record(), ensure_ascii=False) + "\n" for r in rows))
    paths["summary"].write_text(json.dumps(summary.record(), indent=2) + "\n")
    paths["markdown"].write_text(f"# Evaluation: {summary.questions} questions\n\n" + report_body(summary))
    try:
        paths |= _plots(out, summary)
    except ImportError:
        log.warning("no plots: matplotlib is missing (pip install 'bookrag-neo4j[eval]')")
    return paths


def _plots(out: Path, summary: EvalSummary) -> dict[str, Path]:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    methods = summary.methods
    names = list(methods)
    paths = {"plot_recall": bar_chart(out / "recall_by_method.png", names, [methods[n].recall or 0.0 for n in names],
                                      title="Page recall by method", ylabel="page recall", ylim=1.0)}

    sources = sorted({s for n in names for s in methods[n].recall_by["sources"]})
    fig, ax = plt.subplots(figsize=(max(6, 1.4 * len(sources)), 3.5))
    width = 0.8 / max(1, len(names))
    for i, name in enumerate(names):
        by = methods[name].recall_by["sources"]
        ax.bar([x + i * width for x in range(len(sources))], [by.get(s, 0.0) for s in sources], width, label=name)
    ax.set_xticks([x + width * (len(names) - 1) / 2 for x in range(len(sources))], sources)
    ax.set_ylabel("page recall")
    ax.set_ylim(0, 1)
    ax.set_title("Page recall by evidence source")
    ax.legend(fontsize=7)
    paths["plot_sources"] = _save(fig, out / "recall_by_source.png")

    fig, ax = plt.subplots(figsize=(5, 3.5))
    for name in names:
        ax.scatter(methods[name].seconds, methods[name].recall, label=name)
        ax.annotate(name, (methods[name].seconds or 0.0, methods[name].recall or 0.0), fontsize=7)
    ax.set_xlabel("seconds a question")
    ax.set_ylabel("page recall")
    ax.set_title("Cost against quality")
    paths["plot_cost"] = _save(fig, out / "cost_vs_recall.png")
    return paths


def bar_chart(path: Path, labels: Sequence[str], values: Sequence[float], *, title: str, ylabel: str,
              ylim: float | None = None) -> Path:
    """One bar per label, written as a PNG (``bookrag eval`` and ``bookrag bench ... --plot``)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(max(5, 1.1 * len(labels)), 3.5))
    ax.bar([str(label) for label in labels], values, color="#4C72B0")
    ax.set_ylabel(ylabel)
    if ylim is not None:
        ax.set_ylim(0, ylim)
    ax.set_title(title)
    ax.tick_params(axis="x", rotation=30)
    return _save(fig, path)


def _save(fig: Any, path: Path) -> Path:
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    import matplotlib.pyplot as plt

    plt.close(fig)
    return path
