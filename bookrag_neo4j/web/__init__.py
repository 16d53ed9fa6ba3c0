"""The web app of ``bookrag serve``: the library, uploads indexed in the background, tables of contents, and
answers whose citations show their pages with the evidence boxed.

    from bookrag_neo4j.web import create_app
    import uvicorn
    uvicorn.run(create_app(use_llm=False), host="127.0.0.1", port=8000)

Needs the ``web`` extra (``pip install 'bookrag-neo4j[web]'``: FastAPI, uvicorn, Jinja2, python-multipart).
"""

from .app import create_app

__all__ = ["create_app"]
