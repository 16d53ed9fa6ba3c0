"""From ``bookrag bench scale``'s measured rows to a library of any size: straight-line fits, a table and a plot.

    projection = project(read_run(Path("scale-out")).rows, documents=10_000, deadline_hours=24)
    print(projection_table(projection))          # store, memory, projection budget, latency, workers; plot_scale()

Each figure is fitted as ``a + b·x`` (least squares) over the measured sizes, ``x`` the library's pages
(``basis="pages"``, the default, as documents differ in length) or documents; a fit that does not grow (slope ≤ 0: noise
around a constant) is projected flat at its largest value; each fit's R² is printed. The heap is not extrapolated (a
snapshot holds young garbage and does not follow the library): the projected GDS projection is added to the heap
measured last. Workers: projected pages over one indexing process's pages/s, against a deadline. The measured curves
support a straight line (docs/eval/scale-50/); faster growth shows as residuals in the measured rows.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from .scale_run import ScaleRow, ScaleRun

Basis = Literal["pages", "documents"]


@dataclass(frozen=True)
class Fit:
    """``intercept + slope·x``."""

    intercept: float
    slope: float

    def at(self, x: float) -> float:
        return self.intercept + self.slope * x


@dataclass(frozen=True)
class ProjectedMetric:
    name: str
    unit: Literal["bytes", "ms", "count"]
    measured: float | None  # at the largest measured size
    per_document: float  # the fit's slope, per document of the measured mean length
    projected: float
    r2: float | None  # how well the line fits the measured points (None: fewer than 3, or all equal)
    flat: bool  # the fit does not grow (slope <= 0): projected at the largest measured value instead


@dataclass(frozen=True)
class ScaleProjection:
    documents: int
    pages: int
    pages_per_document: float
    measured_documents: int
    basis: Basis
    metrics: list[ProjectedMetric]
    pages_per_s_per_worker: float | None
    deadline_hours: float
    single_worker_hours: float | None
    workers: int | None


def fit_line(xs: Sequence[float], ys: Sequence[float]) -> Fit:
    """Least-squares line through the points; one point (or one distinct x) gives the line through the origin."""
    if not xs or len(xs) != len(ys):
        raise ValueError("fit_line needs as many x as y values, at least one")
    n = len(xs)
    mean_x, mean_y = sum(xs) / n, sum(ys) / n
    spread = sum((x - mean_x) ** 2 for x in xs)
    if spread == 0:
        return Fit(0.0, mean_y / mean_x if mean_x else 0.0)
    slope = sum((x - mean_x) * (y - mean_y) for x, y in zip(xs, ys, strict=True)) / spread
    return Fit(mean_y - slope * mean_x, slope)


def r_squared(fit: Fit, xs: Sequence[float], ys: Sequence[float]) -> float | None:
    """The share of the points' variance the line explains; ``None`` for fewer than 3 points or equal values."""
    mean_y = sum(ys) / len(ys)
    total = sum((y - mean_y) ** 2 for y in ys)
    if len(ys) < 3 or total == 0:
        return None
    return 1 - sum((y - fit.at(x)) ** 2 for x, y in zip(xs, ys, strict=True)) / total


def _metrics() -> list[tuple[str, Literal["bytes", "ms", "count"], Callable[[ScaleRow], float | None]]]:
    return [
        ("store on disk", "bytes", lambda r: r.store_bytes),
        ("heap in use", "bytes", lambda r: r.heap_used_bytes),
        ("heap old generation", "bytes", lambda r: r.old_gen_used_bytes),
        ("GDS projection (measured)", "bytes", lambda r: r.projection.size_bytes if r.projection else None),
        ("GDS projection (estimate)", "bytes", lambda r: r.projection.estimate_bytes if r.projection else None),
        ("entities", "count", lambda r: r.entities),
        ("nodes", "count", lambda r: r.nodes),
        ("relationships", "count", lambda r: r.relationships),
        ("retrieval p50", "ms", lambda r: r.latency.p50_ms if r.latency else None),
        ("retrieval p95", "ms", lambda r: r.latency.p95_ms if r.latency else None),
        ("retrieval p50 with models", "ms", lambda r: r.latency.with_models_p50_ms if r.latency else None),
    ]


def project(rows: Sequence[ScaleRow], *, documents: int, deadline_hours: float = 24.0,
            basis: Basis = "pages") -> ScaleProjection:
    """Each measured figure fitted over ``rows`` and read at ``documents``; the indexing workers needed to
    index that many documents within ``deadline_hours``."""
    if not rows:
        raise ValueError("no measured rows to project from")
    if documents <= 0 or deadline_hours <= 0:
        raise ValueError("documents and deadline_hours must be positive")
    last = max(rows, key=lambda r: r.documents)
    pages_per_document = last.pages / last.documents
    pages = documents * pages_per_document
    target = pages if basis == "pages" else documents
    per_doc_unit = pages_per_document if basis == "pages" else 1.0
    metrics = []
    for name, unit, value in _metrics():
        raw = [(r.pages if basis == "pages" else r.documents, value(r)) for r in rows]
        points = [(x, float(y)) for x, y in raw if y is not None and x > 0]
        if not points:
            continue
        xs, ys = [x for x, _ in points], [y for _, y in points]
        fit = fit_line(xs, ys)
        measured = value(last)
        flat = fit.slope <= 0
        metrics.append(ProjectedMetric(name=name, unit=unit, measured=None if measured is None else float(measured),
                                       per_document=fit.slope * per_doc_unit,
                                       projected=max(ys) if flat else fit.at(target), r2=r_squared(fit, xs, ys),
                                       flat=flat))
    rate = last.cumulative_pages_per_s
    hours = pages / rate / 3600 if rate else None
    return ScaleProjection(
        documents=documents, pages=round(pages), pages_per_document=round(pages_per_document, 1),
        measured_documents=last.documents, basis=basis, metrics=metrics, pages_per_s_per_worker=rate,
        deadline_hours=deadline_hours, single_worker_hours=round(hours, 1) if hours is not None else None,
        workers=math.ceil(hours / deadline_hours) if hours is not None else None)


def human(value: float | None, unit: str) -> str:
    """A figure as the tables print it: bytes in KiB..TiB, ms, counts with separators; ``n/a`` for ``None``."""
    if value is None:
        return "n/a"
    if unit == "bytes":
        for name, size in (("TiB", 2**40), ("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
            if abs(value) >= size:
                return f"{value / size:,.1f} {name}"
        return f"{value:,.0f} B"
    if unit == "ms":
        return f"{value:,.1f} ms"
    return f"{value:,.0f}"


def projection_table(p: ScaleProjection) -> str:
    """The projection as Markdown: each figure measured, per document, projected; then memory and workers."""
    lines = [f"Projected to {p.documents:,} documents ({p.pages:,} pages at the measured {p.pages_per_document} pages "
             f"a document), fitted on {p.basis} over {p.measured_documents} measured documents:", "",
             f"| figure | at {p.measured_documents} documents | per document | at {p.documents:,} documents | fit R² |",
             "|---|---|---|---|---|"]
    lines += [f"| {m.name} | {human(m.measured, m.unit)} | {human(m.per_document, m.unit)} | "
              f"{human(m.projected, m.unit)}{' (flat)' if m.flat else ''} | "
              f"{'n/a' if m.r2 is None else f'{m.r2:.2f}'} |" for m in p.metrics]
    by_name = {m.name: m for m in p.metrics}
    store, heap = by_name.get("store on disk"), by_name.get("heap in use")
    gds = by_name.get("GDS projection (measured)")
    lines.append("")
    if store is not None:
        lines.append(f"- page cache to hold the whole store: {human(store.projected, 'bytes')}")
    if gds is not None:
        lines.append(f"- heap: one library-wide GDS projection takes {human(gds.projected, 'bytes')}, on top of the "
                     f"server's own use ({human(heap.measured if heap else None, 'bytes')} measured at "
                     f"{p.measured_documents} documents: a snapshot, not fitted: Neo4j keeps the store in the page "
                     "cache, not on the heap)")
    if p.workers is not None:
        lines.append(f"- indexing: {p.single_worker_hours:,} h for one worker at {p.pages_per_s_per_worker} pages/s; "
                     f"{p.workers} workers to finish within {p.deadline_hours:g} h")
    return "\n".join(lines) + "\n"


def markdown_rows(run: ScaleRun) -> str:
    """``report.md``: a row per measured size, then where the figures come from."""
    head = ("| documents | pages | store | tx logs | heap used | old gen | page cache (configured) | GDS projection | "
            "GDS estimate | pages/s (new) | pages/s (all) | p50 | p95 | p50 with models | nodes | relationships |")
    lines = [f"# bench scale: stages {run.config.stages}, {'LLM' if run.config.llm else 'LLM-free'}, "
             f"{len(run.config.questions)} questions x {run.config.repeat}, method {run.config.method}", "",
             head, "|" + "---|" * head.count(" | ") + "---|"]
    for r in run.rows:
        lat, proj = r.latency, r.projection
        cells = [r.documents, f"{r.pages:,}", human(r.store_bytes, "bytes"), human(r.tx_log_bytes, "bytes"),
                 human(r.heap_used_bytes, "bytes"), human(r.old_gen_used_bytes, "bytes"),
                 human(r.pagecache_bytes, "bytes"),
                 human(proj.size_bytes if proj else None, "bytes"), human(proj.estimate_bytes if proj else None, "bytes"),
                 r.ingest_pages_per_s if r.ingest_pages_per_s is not None else "n/a",
                 r.cumulative_pages_per_s if r.cumulative_pages_per_s is not None else "n/a",
                 human(lat.p50_ms if lat else None, "ms"), human(lat.p95_ms if lat else None, "ms"),
                 human(lat.with_models_p50_ms if lat else None, "ms"), f"{r.nodes:,}", f"{r.relationships:,}"]
        lines.append("| " + " | ".join(str(c) for c in cells) + " |")
    resumed = [r for r in run.rows if r.partial_documents or r.reused_documents]
    sources = sorted({r.store_source for r in run.rows})
    lines += ["", f"- store: {', '.join(sources) or 'n/a'}; page cache: the configured size (Neo4j 5 Community does "
              "not expose its use); heap: JMX java.lang:type=Memory, used at the moment of measuring (young garbage "
              "included), and the old generation's use (what survived young collections).",
              "- pages/s: documents indexed from nothing in the run that recorded the row; "
              + (", ".join(f"{r.documents} documents: {r.reused_documents} reused, {r.partial_documents} finished "
                           f"(run {r.run})" for r in resumed) if resumed else "no document was reused or resumed.")]
    failed = [o for r in run.rows for o in r.outcomes if o.outcome == "failed"]
    if failed:
        lines.append("- left out (failed): " + "; ".join(f"{o.name}: {o.error}" for o in failed))
    return "\n".join(lines) + "\n"


def plot_scale(rows: Sequence[ScaleRow], path: Path) -> Path:
    """One PNG, four panels against documents: store and transaction logs on disk; heap, GDS projection and
    page cache in memory; ingest pages/s; retrieval p50/p95."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    docs = [r.documents for r in rows]
    mib = 2**20

    def series(ax: object, values: list[float | None], label: str, scale: float = 1.0, style: str = "o-") -> None:
        points = [(d, v / scale) for d, v in zip(docs, values, strict=True) if v is not None]
        if points:
            ax.plot([d for d, _ in points], [v for _, v in points], style, label=label)  # type: ignore[attr-defined]

    fig, axes = plt.subplots(2, 2, figsize=(11, 7.5))
    disk, memory, ingest, latency = axes.flat
    series(disk, [r.store_bytes for r in rows], "store", mib)
    series(disk, [r.tx_log_bytes for r in rows], "transaction logs", mib)
    disk.set(title="On disk", ylabel="MiB")
    series(memory, [r.heap_used_bytes for r in rows], "heap in use", mib)
    series(memory, [r.old_gen_used_bytes for r in rows], "heap: old generation", mib)
    series(memory, [r.projection.size_bytes if r.projection else None for r in rows], "GDS projection", mib)
    series(memory, [r.projection.estimate_bytes if r.projection else None for r in rows], "GDS estimate", mib, "x--")
    series(memory, [r.pagecache_bytes for r in rows], "page cache (configured)", mib, "--")
    memory.set(title="Memory", ylabel="MiB")
    series(ingest, [r.ingest_pages_per_s for r in rows], "documents added since the previous size")
    series(ingest, [r.cumulative_pages_per_s for r in rows], "cumulative")
    ingest.set(title="Ingest", ylabel="pages/s")
    series(latency, [r.latency.p50_ms if r.latency else None for r in rows], "p50")
    series(latency, [r.latency.p95_ms if r.latency else None for r in rows], "p95")
    series(latency, [r.latency.with_models_p50_ms if r.latency else None for r in rows], "p50 with models", style="s--")
    latency.set(title="Retrieval", ylabel="ms")
    for ax in axes.flat:
        ax.set_xlabel("documents")
        ax.set_ylim(bottom=0)
        ax.grid(alpha=0.3)
        if ax.get_legend_handles_labels()[0]:
            ax.legend(fontsize=8)
    fig.suptitle(f"bookrag bench scale: {docs[-1] if docs else 0} documents, {rows[-1].pages if rows else 0:,} pages")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path
