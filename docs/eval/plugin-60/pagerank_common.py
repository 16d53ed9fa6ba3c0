"""What the two PageRank scripts share: a real question's Graph_Reasoning parameters, and a median timer.

    rag, graph, doc, params = await question_params(QUESTION, DOCUMENT)   # the node_pagerank call's parameters
    result = await timed("label", lambda: ..., n=25)                      # prints p50 and min, returns a result
"""
import statistics
import time

from bookrag_neo4j.sdk import BookRAG


async def question_params(question, document):
    """Ask ``question`` of ``document`` once and return (rag, graph client, document, the parameters of its
    Graph_Reasoning read, either engine's), with the trace's engine printed."""
    rag = BookRAG.from_env(use_llm=False)
    db = await rag.aclient()
    captured = {}
    read_rows = db.read_rows

    async def spy(name, **params):
        if name.endswith("node_pagerank"):
            captured[name] = params
        return await read_rows(name, **params)

    db.read_rows = spy
    doc = [d for d in await rag.adocuments() if d.name == document][0]
    evidence = await rag.aretrieve(question, doc.key)
    db.read_rows = read_rows
    print("engines", [t.engine for t in evidence.trace if t.operator == "Graph_Reasoning"], list(captured))
    (params,) = captured.values()
    return rag, db, doc, params


async def timed(label, call, n):
    """``call()`` ``n`` times: prints the median and the minimum in ms, returns the last result."""
    times = []
    for _ in range(n):
        began = time.perf_counter()
        result = await call()
        times.append((time.perf_counter() - began) * 1000)
    print(f"{label:40s} p50 {statistics.median(times):7.1f} ms  min {min(times):6.1f}")
    return result
