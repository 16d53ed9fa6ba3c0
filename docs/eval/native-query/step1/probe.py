"""Where an exact scan's time goes in Neo4j: PepsiCo's blocks and entities, warm, 6 runs each (ms).

    python docs/eval/native-query/step1/probe.py   # the default instance's dev library
"""

import time
from pathlib import Path

import numpy as np
from neo4j import GraphDatabase

ROOT = Path(__file__).resolve().parents[4]
password = (Path.home() / ".local/share/bookrag-neo4j/neo4j/default/password").read_text().strip()
driver = GraphDatabase.driver("bolt://localhost:7687", auth=("neo4j", password))
doc = driver.execute_query("MATCH (d:Document) WHERE d.name STARTS WITH 'PEPSICO' RETURN d.key").records[0][0]
rng = np.random.default_rng(0)
vector = rng.standard_normal(384).astype(np.float32).tolist()
entities = [{"name": n, "vector": rng.standard_normal(384).astype(np.float32).tolist()}
            for n in ("pepsico", "tax rate", "2022")]
QUERIES = {
    "blocks: keys only": "MATCH (n:TreeNode {doc_key: $doc_key}) WHERE n.kind <> 'section' RETURN count(n.key) AS rows",
    "blocks: read embeddings": "MATCH (n:TreeNode {doc_key: $doc_key}) WHERE n.kind <> 'section' "
                               "RETURN sum(size(n.embedding)) AS rows",
    "blocks: cosines": "MATCH (n:TreeNode {doc_key: $doc_key}) WHERE n.kind <> 'section' "
                       "RETURN sum(vector.similarity.cosine(n.embedding, $vector)) AS rows",
    "blocks: block_similarities.cypher": (ROOT / "cypher/retrieval/block_similarities.cypher").read_text(),
    "entities: read embeddings": "MATCH (e:Entity {doc_key: $doc_key}) RETURN count(e.embedding) AS rows",
    "entities: one cosine": "MATCH (e:Entity {doc_key: $doc_key}) "
                            "RETURN sum(vector.similarity.cosine(e.embedding, $entities[0].vector)) AS rows",
    "entities: link_entities.cypher (3)": (ROOT / "cypher/retrieval/link_entities.cypher").read_text(),
}
for name, query in QUERIES.items():
    times = []
    for _ in range(6):
        began = time.perf_counter()
        driver.execute_query(query, doc_key=doc, vector=vector, entities=entities, threshold=0.875, top=3)
        times.append(round((time.perf_counter() - began) * 1000, 1))
    print(f"{name}: {times}")
