"""bfloat16 against float32 products in the offline embedder: the vectors and the dense retrieval they give.

For each held-out dev PDF (``holdout.txt``) already indexed in the default instance, it embeds every content block,
every entity name and the benchmark's questions on that PDF twice, with ``precision="float32"`` and
``"bfloat16"``, and reports the cosine between the two vectors of each text, the CPU seconds of each, and for each
question the overlap of the top 10 blocks by cosine and the page recall of the first 5 distinct pages of that
ranking (gold pages are read here, in an eval script, never in product code).

    .venv/bin/python docs/eval/ingest-19/bf16-check.py > docs/eval/ingest-19/bf16-check.log
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import numpy as np

from bookrag_neo4j.config import Settings
from bookrag_neo4j.llm.embedder import SentenceTransformerEmbedder

HERE = Path(__file__).parent
BENCHMARKS = HERE.parents[2] / ".." / "shared" / "benchmarks"


def rows(session, query: str, **params) -> list[dict]:
    return [dict(r) for r in session.run(query, **params)]


def main() -> None:
    from neo4j import GraphDatabase

    settings = Settings()  # the default managed instance, started with `bookrag neo4j start`
    password = (Path.home() / ".local/share/bookrag-neo4j/neo4j/default/password").read_text().strip()
    driver = GraphDatabase.driver("bolt://localhost:7687", auth=("neo4j", password))
    questions = [json.loads(line) for bench in ("mmlongbench", "financebench")
                 for line in (BENCHMARKS / bench / "questions.jsonl").read_text().splitlines() if line.strip()]
    encoders = {p: SentenceTransformerEmbedder(batch_size=settings.embedding_batch_size, precision=p)
                for p in ("float32", "bfloat16")}
    for encoder in encoders.values():
        encoder.embed_sync(["warm up"])
    cosines: dict[str, list[float]] = {"blocks": [], "names": [], "questions": []}
    cpu = {p: 0.0 for p in encoders}
    overlap, recall = [], {p: [] for p in encoders}
    with driver.session() as session:
        for pdf in (HERE / "holdout.txt").read_text().split():
            name = Path(pdf).name
            docs = rows(session, "MATCH (d:Document {name: $name}) RETURN d.key AS key", name=name)
            if not docs:
                print(f"{name}: not indexed, skipped")
                continue
            key = docs[0]["key"]
            blocks = rows(session, "MATCH (n:TreeNode {doc_key: $k}) WHERE n.kind <> 'section' AND n.text <> '' "
                                   "RETURN n.text AS text, n.page_start AS first, n.page_end AS last "
                                   "ORDER BY n.order", k=key)
            names = [r["name"] for r in rows(session, "MATCH (e:Entity {doc_key: $k}) RETURN e.name AS name", k=key)]
            asked = [q for q in questions if q["doc"] == name and q.get("evidence_pages")]
            texts = {"blocks": [b["text"][:2000] for b in blocks], "names": names,
                     "questions": [q["question"] for q in asked]}
            vectors: dict[str, dict[str, np.ndarray]] = {}
            for p, encoder in encoders.items():
                began = time.process_time()
                vectors[p] = {kind: np.asarray(encoder.embed_sync(t) if t else np.zeros((0, 384))) for kind, t in
                              texts.items()}
                cpu[p] += time.process_time() - began
            for kind in texts:
                cosines[kind] += list((vectors["float32"][kind] * vectors["bfloat16"][kind]).sum(axis=1))
            for i, q in enumerate(asked):
                tops = {}
                for p in encoders:
                    order = np.argsort(-(vectors[p]["blocks"] @ vectors[p]["questions"][i]), kind="stable")
                    tops[p] = set(order[:10].tolist())
                    pages: list[int] = []
                    for b in order:
                        for page in range(blocks[b]["first"], blocks[b]["last"] + 1):
                            if page not in pages and len(pages) < 5:
                                pages.append(page)
                        if len(pages) >= 5:
                            break
                    gold = set(q["evidence_pages"])
                    recall[p].append(len(gold & set(pages)) / len(gold))
                overlap.append(len(tops["float32"] & tops["bfloat16"]) / 10)
            print(f"{name}: {len(blocks)} blocks, {len(names)} names, {len(asked)} questions", flush=True)
    driver.close()
    for kind, values in cosines.items():
        v = np.asarray(values)
        print(f"cosine float32 vs bfloat16, {kind}: n={len(v)} min={v.min():.6f} p1={np.percentile(v, 1):.6f} "
              f"mean={v.mean():.6f}")
    print(f"CPU seconds: float32 {cpu['float32']:.1f}, bfloat16 {cpu['bfloat16']:.1f} "
          f"({cpu['float32'] / cpu['bfloat16']:.2f}x)")
    print(f"questions: {len(overlap)}; top-10 blocks shared: mean {np.mean(overlap):.3f}, "
          f"identical sets {np.mean([o == 1.0 for o in overlap]):.3f}")
    for p in encoders:
        print(f"dense page recall within 5 pages, {p}: {np.mean(recall[p]):.4f}")


if __name__ == "__main__":
    main()
