"""The operator library: small typed operators registered by name, the plans that compose them, and the
executor that runs a plan.

    from bookrag_neo4j.ops.executor import execute          # importing it registers every operator
    from bookrag_neo4j.retrieval.plan import Plan, PlanStep
    from bookrag_neo4j.ops.registry import OPERATORS
    sorted(OPERATORS)                                        # ['BM25', 'Count', 'Decompose', 'Embed', ...]

One module per family: :mod:`.query` (Embed, Extract, Decompose), :mod:`.select` (Filter_Range, Filter_Modal,
Select_by_Entity, Select_by_Section, Select_All), :mod:`.reason` (Fetch, Graph_Reasoning, Text_Reasoning,
Skyline_Ranker, Top_K), :mod:`.search` (Vector_Search, Lexical_Search, BM25, Fuse, Rerank, Expand, TOC_Select,
Graph_Rank, Guarded_Read), :mod:`.superrag` (TOC_Search, Expand_Tables, Merge_Pages, Text2Cypher, Concat),
:mod:`.g2` (G²-Reader's), :mod:`.evidence` (Fetch_Evidence, Count, Merge), :mod:`.synth` (Map, Reduce). The values
they pass are in :mod:`.values`. This package imports nothing itself, so that the result models can import
:mod:`bookrag_neo4j.retrieval.plan` without loading the operators.
"""
