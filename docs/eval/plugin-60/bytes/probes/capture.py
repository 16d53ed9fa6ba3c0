"""Captures every named query (and its parameters) of the bench questions on PepsiCo into calls.pkl."""
import asyncio, time, pickle
from bookrag_neo4j.cli.common import library
from bookrag_neo4j.db import client as dbc
QS = ["What was PepsiCo's net revenue in 2021?", "How many tables are in the report?",
      "Which is larger, the Frito-Lay North America or the Quaker Foods North America operating profit?",
      "What does the company say about climate change?"]
calls = []
orig = dbc.Neo4jClient._rows
async def _rows(self, name, params, routing):
    r = await orig(self, name, params, routing); calls.append((name, params, len(r) if isinstance(r, list) else -1)); return r
dbc.Neo4jClient._rows = _rows
rag = library(None, use_llm=False)
async def main():
    g = await rag.aclient(); doc = await rag.adocument("PEPSICO_2021_10K.pdf"); r = rag.retriever(g)
    for q in QS: await r.retrieve(q, [doc.key], method="bookrag")
    calls.clear()
    for q in QS: await r.retrieve(q, [doc.key], method="bookrag")
    pickle.dump(calls, open("calls.pkl", "wb"))
    for n, p, k in calls: print(n, k, {a: (len(b) if isinstance(b, list) else b) for a, b in p.items() if a != "vector"})
asyncio.run(main())
