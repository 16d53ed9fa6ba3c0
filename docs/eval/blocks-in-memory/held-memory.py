"""The memory a document's in-memory blocks hold (retrieval/document_blocks.py), measured with tracemalloc:
``python docs/eval/blocks-in-memory/held-memory.py PEPSICO_2021_10K.pdf`` (the managed server running)."""
import asyncio
import sys
import tracemalloc

from bookrag_neo4j.config import Settings
from bookrag_neo4j.db.client import Neo4jClient
from bookrag_neo4j.library.documents import find_document
from bookrag_neo4j.retrieval.document_blocks import document_blocks
from bookrag_neo4j.sdk import connection_info


async def main():
    async with Neo4jClient(connection_info(Settings())) as db:
        doc = await find_document(db, sys.argv[1])
        tracemalloc.start()
        b = await document_blocks(db, doc, max_chars=2000)
        cur, peak = tracemalloc.get_traced_memory()
        print(len(b.keys), 'blocks', round(cur/2**20,1), 'MiB held', round(peak/2**20,1), 'MiB peak',
              'vectors', round(b.vectors.nbytes/2**20,1), 'MiB')
asyncio.run(main())
