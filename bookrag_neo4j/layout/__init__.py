"""SuperRAG's layout layer on the BookIndex: pages with their furniture, a table of contents, passages, table
rows, references to tables and figures, keywords with stems, and ``SIMILAR`` edges from GDS KNN
(:mod:`bookrag_neo4j.layout.build`)."""
