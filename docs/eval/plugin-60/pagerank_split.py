"""Graph_Reasoning on GDS, split: the whole query, PageRank alone (gds.pageRank.stats: preProcessingMillis,
computeMillis), the stream alone, its rows turned into nodes, and the two look-ups; median of 15 each.

    BOOKRAG_PPR_ENGINE=gds python docs/eval/plugin-60/pagerank_split.py [QUESTION [DOCUMENT]]
"""
import asyncio, sys
from pagerank_common import question_params, timed

Q = sys.argv[1] if len(sys.argv) > 1 else "What was PepsiCo's net revenue in 2021?"
DOC = sys.argv[2] if len(sys.argv) > 2 else "PEPSICO_2021_10K.pdf"

async def main():
    rag, g, doc, p = await question_params(Q, DOC)
    print("sources", len(p["source_keys"]), "node_keys", len(p["node_keys"]), "docs", p["documents"])
    name = p["documents"][0]["graph_name"]
    t = lambda label, fn: timed(label, fn, n=15)
    await t("node_pagerank (whole step)", lambda: g.read_rows("gds/node_pagerank", **p))
    common = dict(dampingFactor=p["damping"], maxIterations=p["max_iterations"], tolerance=p["tolerance"],
                  relationshipWeightProperty="weight", concurrency=1, logProgress=False)
    q_stats = """MATCH (s:Entity) WHERE s.key IN $source_keys AND s.doc_key = $doc
    WITH collect(s) AS sources
    CALL gds.pageRank.stats($name, {sourceNodes: sources, dampingFactor: $cfg.dampingFactor, maxIterations: $cfg.maxIterations, tolerance: $cfg.tolerance, relationshipWeightProperty: 'weight', concurrency: 1, logProgress: false}) YIELD preProcessingMillis, computeMillis, ranIterations, didConverge
    RETURN preProcessingMillis, computeMillis, ranIterations, didConverge"""
    args = dict(source_keys=p["source_keys"], doc=p["documents"][0]["doc_key"], name=name, cfg=common)
    s = await t("stats (PageRank alone)", lambda: g.run(q_stats, args, read=True))
    print(s)
    q_stream = q_stats.replace("gds.pageRank.stats", "gds.pageRank.stream").replace(
        "YIELD preProcessingMillis, computeMillis, ranIterations, didConverge\n    RETURN preProcessingMillis, computeMillis, ranIterations, didConverge",
        "YIELD nodeId, score RETURN count(*) AS n")
    print(await t("stream, count rows", lambda: g.run(q_stream, args, read=True)))
    q_node = q_stream.replace("RETURN count(*) AS n", "WITH gds.util.asNode(nodeId) AS e, score RETURN count(e) AS n")
    print(await t("stream + asNode", lambda: g.run(q_node, args, read=True)))
    q_src = "MATCH (s:Entity) WHERE s.key IN $source_keys AND s.doc_key = $doc RETURN count(s) AS n"
    print(await t("sources match", lambda: g.run(q_src, args, read=True)))
    q_link = '''MATCH (n:TreeNode)<-[:MENTIONED_IN]-(e) WHERE n.key IN $node_keys AND n.doc_key = $doc
  WITH e, collect(n) AS nodes ORDER BY e WITH collect(e) AS linked, collect(nodes) AS nodes_of RETURN size(linked) AS n'''
    print(await t("linked match", lambda: g.run(q_link, dict(args, node_keys=p["node_keys"]), read=True)))
    await rag.aclose()
asyncio.run(main())
