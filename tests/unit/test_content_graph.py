"""G²-Reader's content graph without a database: window edges, the Lite update against a hand computation, KNN
links within K, the offline node attributes and the readout's budget."""

from __future__ import annotations

import numpy as np
import pytest

from bookrag_neo4j.content.evolve import lite_evolution, lite_step, nearest, window_pairs
from bookrag_neo4j.content.nodes import ContentNode, offline_attributes, offline_summary
from bookrag_neo4j.retrieval.g2.readout import fill, probe_sizes


def test_window_pairs_are_exactly_those_within_w() -> None:
    for n, w in ((1, 2), (2, 2), (7, 2), (7, 3), (5, 1)):
        pairs = window_pairs(n, w)
        assert pairs == sorted({(i, j) for i in range(n) for j in range(n) if 1 <= j - i <= w})
        assert len(pairs) == sum(max(0, n - d) for d in range(1, w + 1))


def _unit(v: list[float]) -> np.ndarray:
    a = np.asarray(v, dtype=float)
    return a / np.linalg.norm(a)


def test_a_lite_update_matches_a_hand_computation_on_four_nodes() -> None:
    h = np.array([_unit([1, 0, 0]), _unit([1, 1, 0]), _unit([0, 1, 0]), _unit([0, 0, 1])])
    updated, neighbours, similarity = lite_step(h, k=2, alpha=0.5)
    # by hand: node 0's two nearest are 1 (cos 0.7071) and 2 (cos 0) before 3 (cos 0, later in reading order)
    assert neighbours.tolist() == [[1, 2], [0, 2], [1, 0], [0, 1]]
    s01, s02 = similarity[0]  # to its neighbours 1 and 2
    assert np.isclose(s01, 1 / np.sqrt(2)) and np.isclose(s02, 0)
    # h0' = 0.5 h0 + 0.5 (s01 h1 + s02 h2) / (s01 + s02) = 0.5 [1,0,0] + 0.5 h1, then unit length
    expected = 0.5 * h[0] + 0.5 * h[1]
    assert np.allclose(updated[0], expected / np.linalg.norm(expected))
    # node 3 is orthogonal to all: no positive weight, it keeps its vector
    assert np.allclose(updated[3], h[3])


def test_knn_links_stay_within_k_and_the_run_is_deterministic() -> None:
    rng = np.random.default_rng(7)
    h = rng.normal(size=(30, 8))
    first = lite_evolution(h, rounds=3, k=5, alpha=0.5)
    again = lite_evolution(h, rounds=3, k=5, alpha=0.5)
    assert first.links == again.links and np.allclose(first.vectors, again.vectors)
    out = {}
    for i, j in first.links:
        assert i != j
        out[i] = out.get(i, 0) + 1
    assert set(out) == set(range(30)) and max(out.values()) == 5
    assert all(1 <= link.t <= 3 for link in first.links.values())
    assert np.allclose(np.linalg.norm(first.vectors, axis=1), 1)
    # no rounds: no links, vectors unchanged (up to length)
    none = lite_evolution(h, rounds=0, k=5, alpha=0.5)
    assert not none.links and np.allclose(none.vectors, h / np.linalg.norm(h, axis=1, keepdims=True))


def test_nearest_never_picks_the_node_itself() -> None:
    neighbours, scores = nearest(np.eye(3), 5)
    assert neighbours.tolist() == [[1, 2], [0, 2], [0, 1]] and not scores.any()


@pytest.mark.parametrize("chunk", [1, 7, 1024])
def test_nearest_in_chunks_equals_a_stable_sort_of_the_whole_matrix(chunk: int) -> None:
    rng = np.random.default_rng(3)
    v = rng.integers(-3, 4, size=(40, 4)).astype(float)  # small integers: exact dot products, many true ties
    v[5] = v[9] = v[20]  # identical rows too
    similarity = v @ v.T
    np.fill_diagonal(similarity, -np.inf)
    expected = np.argsort(-similarity, axis=1, kind="stable")[:, :6]
    neighbours, scores = nearest(v, 6, chunk=chunk)
    assert neighbours.tolist() == expected.tolist()
    assert np.array_equal(scores, np.take_along_axis(similarity, expected, axis=1))


def test_offline_attributes() -> None:
    nodes = [ContentNode(key="p1", kind="passage", text="Net sales grew 8%. Costs fell.", section_path="Results"),
             ContentNode(key="t1", kind="table", text="Year | Sales\n2021 | 10", caption="Table 2: Net sales by year",
                         section_path="Results", before="The table below shows sales.", after="Sales rose."),
             ContentNode(key="i1", kind="image", text="", section_path="Intro", before="Revenue trend chart.")]
    attrs = offline_attributes(nodes, keywords=4)
    assert attrs[0].summary == "Results > Net sales grew 8%."
    assert attrs[1].summary == "Results > Table 2: Net sales by year"
    assert attrs[2].summary == offline_summary(nodes[2]) == "Intro > Revenue trend chart."
    assert all(len(a.keywords) <= 4 for a in attrs) and "sales" in " ".join(attrs[1].keywords)
    assert attrs[1].embed_text.startswith("Results > Table 2") and "keywords:" in attrs[1].embed_text
    assert nodes[1].content.startswith("The table below shows sales.\nTable 2")


def test_the_readout_fills_to_k_and_never_beyond() -> None:
    hits = [("a", ["b", "c"]), ("d", ["a", "e"]), ("f", [])]
    assert fill(hits, 4) == ["a", "d", "b", "c"]  # the nodes of hit a, then d; shown hits first
    assert fill(hits, 10) == ["a", "d", "f", "b", "c", "e"]
    assert fill(hits, 1) == ["a"]
    assert fill([("a", ["d"]), ("b", []), ("d", ["x"])], 10) == ["a", "b", "d", "x"]  # d joined with a, shown as a hit
    assert probe_sizes(5) == (5, 3) and probe_sizes(10) == (10, 6)
