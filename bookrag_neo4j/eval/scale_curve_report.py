"""The report of a ``bookrag bench scale --clone`` run: ``report.md`` (a row per size and how the library was
built) and ``scale.png`` (question latency, cold and warm, of one document and of the library; memory of the
client and of the server), both against documents.

    (out / "report.md").write_text(curve_markdown(run))
    plot_curve(run, out / "scale.png")
"""

from __future__ import annotations

from pathlib import Path

from .scale_projection import human
from .scale_run import Cold, CurveRun

MIB = 2**20


def _cold(c: Cold | None) -> str:
    return "n/a" if c is None else f"{c.median_s:,.2f} s, {c.max_rss_kb * 1024 / MIB:,.0f} MiB"


def curve_markdown(run: CurveRun) -> str:
    """``report.md``: how the library was built, then a row per measured size."""
    c = run.config
    names = ", ".join(run.source_names) or f"{len(c.sources)} documents"
    lines = [f"# bench scale --clone: {len(c.questions)} questions x {c.repeat}, method {c.method}, "
             f"{'LLM' if c.llm else 'LLM-free'}", "",
             f"The library was built by **cloning** the {len(c.sources)} indexed document(s) ({names}) in Cypher "
             "(`cypher/bench/`), round-robin: each clone is a complete copy of one document's subgraph (tree, pages, "
             "entities and their relations, layout layer, content graph, links to the shared keywords) under new "
             "keys, a document of its own to the query path. No PDF was indexed to grow it: the figures are those of "
             "the query path, not of ingest. `bookrag bench scale --drop-clones` removes the clones.", "",
             "| documents | clones | pages | cold, one document | cold, library | warm one document p50 / p95 | "
             "warm library p50 / p95 | client RSS (warm) | heap used | old gen | page cache (configured) | "
             "GDS projections | nodes | relationships |",
             "|" + "---|" * 14]
    for r in run.rows:
        wd, wl = r.warm_document, r.warm_library
        cells = [r.documents, r.clones, f"{r.pages:,}", _cold(r.cold_document), _cold(r.cold_library),
                 f"{human(wd.p50_ms, 'ms')} / {human(wd.p95_ms, 'ms')}" if wd else "n/a",
                 f"{human(wl.p50_ms, 'ms')} / {human(wl.p95_ms, 'ms')}" if wl else "n/a",
                 human(r.client_rss_bytes, "bytes"), human(r.heap_used_bytes, "bytes"),
                 human(r.old_gen_used_bytes, "bytes"), human(r.pagecache_bytes, "bytes"),
                 f"{r.gds_projections} ({human(r.gds_projection_bytes, 'bytes')})", f"{r.nodes:,}",
                 f"{r.relationships:,}"]
        lines.append("| " + " | ".join(str(cell) for cell in cells) + " |")
    lines += ["",
              "- cold: each question asked by a new `bookrag retrieve QUESTION --json` process (`--doc` the first "
              "indexed document for one document); the median wall time and the largest resident set "
              "(`ru_maxrss`, as `/usr/bin/time -f \"%e s %M KB\"` prints it).",
              "- warm: `bench_query` in the bench's process, one warm-up then the repeats, without model inference "
              "(the models' time taken as nil); the client RSS is that process's after the warm questions.",
              "- heap: JMX java.lang:type=Memory, used at the moment of measuring (young garbage included), and the "
              "old generation's use; page cache: the configured size (Neo4j 5 Community does not expose its use); "
              "GDS projections: the document projections in the catalog and the heap they hold."]
    return "\n".join(lines) + "\n"


def plot_curve(run: CurveRun, path: Path) -> Path:
    """Two panels against documents: question latency (cold: a new process, wall time; warm: p50, p95 dotted),
    of one document and of the library; memory in MiB (client max RSS cold, client RSS warm, heap, page cache,
    GDS projections)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = run.rows
    docs = [r.documents for r in rows]

    def series(ax: object, values: list[float | None], label: str, style: str = "o-", color: str | None = None,
               ) -> None:
        points = [(d, v) for d, v in zip(docs, values, strict=True) if v is not None]
        if points:
            ax.plot([d for d, _ in points], [v for _, v in points], style, label=label,  # type: ignore[attr-defined]
                    color=color)

    fig, (latency, memory) = plt.subplots(1, 2, figsize=(12, 5))
    for scope, cold, warm, colour in (("one document", "cold_document", "warm_document", "tab:blue"),
                                      ("library", "cold_library", "warm_library", "tab:orange")):
        series(latency, [getattr(r, cold).median_s * 1000 if getattr(r, cold) else None for r in rows],
               f"cold (new process), {scope}", "s--", colour)
        series(latency, [getattr(r, warm).p50_ms if getattr(r, warm) else None for r in rows], f"warm p50, {scope}",
               "o-", colour)
        series(latency, [getattr(r, warm).p95_ms if getattr(r, warm) else None for r in rows], f"warm p95, {scope}",
               "o:", colour)
    latency.set(title="Question latency", ylabel="ms", yscale="log")
    series(memory, [r.cold_document.max_rss_kb * 1024 / MIB if r.cold_document else None for r in rows],
           "client max RSS, cold, one document", "s-")
    series(memory, [r.cold_library.max_rss_kb * 1024 / MIB if r.cold_library else None for r in rows],
           "client max RSS, cold, library", "s-")
    series(memory, [r.client_rss_bytes / MIB if r.client_rss_bytes else None for r in rows], "client RSS, warm")
    series(memory, [r.heap_used_bytes / MIB if r.heap_used_bytes else None for r in rows], "Neo4j heap used")
    series(memory, [r.old_gen_used_bytes / MIB if r.old_gen_used_bytes else None for r in rows],
           "Neo4j heap: old generation")
    series(memory, [r.pagecache_bytes / MIB if r.pagecache_bytes else None for r in rows],
           "Neo4j page cache (configured)", "--")
    series(memory, [r.gds_projection_bytes / MIB for r in rows], "GDS document projections", "x-")
    memory.set(title="Memory", ylabel="MiB")
    memory.set_ylim(bottom=0)
    for ax in (latency, memory):
        ax.set_xlabel("documents (indexed + clones)")
        if docs and min(docs) > 0 and max(docs) / min(docs) >= 20:
            ax.set_xscale("log")
        ax.grid(alpha=0.3)
        if ax.get_legend_handles_labels()[0]:
            ax.legend(fontsize=7)
    fig.suptitle(f"bookrag bench scale --clone: {docs[-1] if docs else 0} documents "
                 f"({len(run.config.sources)} indexed, the rest clones)")
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path
