"""One question's nearest passages and table rows, scored in the client and in the plugin (the tie order that changed).

    python docs/eval/plugin-60/units_tie.py QUESTION DOCUMENT
"""
import asyncio, json, sys
from bookrag_neo4j.sdk import BookRAG
from bookrag_neo4j.layout.vectors import nearest_units
async def main(q, name):
    rag = BookRAG.from_env(use_llm=False); g = await rag.aclient()
    doc = [d for d in await rag.adocuments() if d.name == name][0]
    (v,) = await rag.models.embedder.embed([q])
    for kind in ("passage", "row"):
        a = await nearest_units(g, doc, v, kind=kind, top=12, engine="cypher")
        b = await nearest_units(g, doc, v, kind=kind, top=12, engine="plugin")
        print(kind, [(x[0][-6:], f"{x[1]:.9f}") for x in a][:6]); print(kind, [(x[0][-6:], f"{x[1]:.9f}") for x in b][:6])
    await rag.aclose()
asyncio.run(main(sys.argv[1], sys.argv[2]))
