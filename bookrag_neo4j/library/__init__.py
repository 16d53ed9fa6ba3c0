"""The library: the documents indexed in one Neo4j database as typed models, their lookup, deletion, statistics
and tables of contents. It reads and deletes what the index pipeline (``index/``) and the graph stage (``kg/``)
write, so both can use it; it imports neither."""
