"""The web app of ``bookrag serve``: the library, uploads indexed in the background, tables of contents, and
answers whose citations show their pages with the evidence boxed.

    from bookrag_neo4j.web import create_app
    from bookrag_neo4j.web.serving import server_config
    import uvicorn
    uvicorn.Server(server_config(create_app(use_llm=False), host="127.0.0.1", port=8000)).run()  # as bookrag serve

Needs the ``web`` extra (``pip install 'bookrag-neo4j[web]'``: FastAPI, uvicorn, Jinja2, python-multipart).
"""

from .app import create_app

__all__ = ["create_app"]
