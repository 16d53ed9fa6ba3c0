"""The operator library: small typed operators registered by name, the plans that compose them, and their executor.

    from bookrag_neo4j.ops.executor import execute          # importing it registers every operator
    from bookrag_neo4j.ops.operator_registry import OPERATORS
    sorted(OPERATORS)                                        # ['BM25', 'Count', 'Decompose', 'Embed', ...]

One module per family: :mod:`.query` (Embed, Extract, Decompose), :mod:`.select` (Filter_*, Select_*), :mod:`.reason`
(Fetch, the reasoners, Skyline_Ranker, Top_K), :mod:`.search` (Vector_Search, Lexical_Search, BM25, Fuse, Rerank,
Expand, ...), :mod:`.superrag`, :mod:`.g2` (G²-Reader's), :mod:`.evidence` (Fetch_Evidence, Count, Merge), :mod:`.synth`
(Map, Reduce); the values they pass in :mod:`.values`; helpers of one family beside it (:mod:`.skyline`,
:mod:`.g2_agent`). This package imports nothing itself, so that the result models
can import :mod:`bookrag_neo4j.retrieval.plan` without loading the operators.
"""
