"""Agent-based retrieval: the planner, Cypher selectors, reasoners, Skyline ranker and synthesizers."""
