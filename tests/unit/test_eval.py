"""Evaluation without a server: the baselines' chunks. (``bookrag eval`` on a real mini benchmark:
``tests/integration/test_eval.py``; the metrics: ``test_metrics.py``.)"""

from __future__ import annotations

from bookrag_neo4j.retrieval.chunks import chunk_blocks


def test_chunks_are_about_500_tokens_and_keep_their_pages() -> None:
    blocks = [{"text": "w " * 300, "page_start": 1, "page_end": 1}, {"text": "x " * 300, "page_start": 2,
                                                                      "page_end": 3}]
    chunks = chunk_blocks(blocks, words=380)
    assert [len(t.split()) for t, _ in chunks] == [380, 220] and [p for _, p in chunks] == [[1, 2, 3], [2, 3]]
