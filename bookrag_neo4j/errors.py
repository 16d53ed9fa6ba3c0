"""The package's exception hierarchy: every error bookrag-neo4j raises on purpose is a ``BookRAGError``.

Catch ``BookRAGError`` to handle all of them, or a subclass for one concern::

    try:
        rag.index("report.pdf")
    except Neo4jUnavailableError as exc:
        print("start Neo4j first:", exc)
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pydantic import ValidationError


class BookRAGError(Exception):
    """Base class of every error raised by bookrag-neo4j."""


class ConfigurationError(BookRAGError):
    """Settings are missing or contradict each other."""


class ServerError(BookRAGError):
    """The managed Neo4j server could not be assembled, started, stopped or inspected."""


class ServerStartError(ServerError):
    """The server did not come up; the message carries the tail of its log."""


class Neo4jUnavailableError(BookRAGError):
    """Neo4j cannot be reached (not started, wrong URI or credentials, restarted mid-run)."""


class SchemaError(BookRAGError):
    """The database schema cannot be applied, or does not match the configuration or what the code reads (a named
    query's columns)."""


class QueryNotFoundError(BookRAGError, KeyError):
    """A named Cypher query does not exist in ``cypher/``."""


class ModelError(BookRAGError):
    """A model (LLM, VLM, embedder, reranker) failed or is not configured."""


class ModelNotConfiguredError(ModelError):
    """The operation needs a model that is not configured (or its extra is not installed)."""


class ModelUnavailableError(ModelError):
    """The model service did not answer successfully after all retries."""


class EndpointDownError(ModelUnavailableError):
    """The model's endpoint cannot be reached at all (connection refused, name not resolved): not retried, and
    the model answers every later call at once with this error for a while (``ChatModel.DOWN_SECONDS``)."""


class TransientModelError(ModelError):
    """A failure worth retrying (429, 5xx, timeout, connection reset); ``retry_after`` in seconds if known."""

    def __init__(self, message: str, retry_after: float | None = None) -> None:
        super().__init__(message)
        self.retry_after = retry_after


class ModelOutputError(ModelError):
    """The model's reply could not be parsed into the expected structure, even after repair and one re-ask."""

    def __init__(self, message: str, *, prompt: str, raw: str) -> None:
        super().__init__(f"{message} (prompt {prompt!r})")
        self.prompt = prompt
        self.raw = raw


class LocalModelError(ModelError):
    """A local model file is missing or fails its checksum."""


class DocumentError(BookRAGError):
    """A document cannot be indexed: corrupt, encrypted, empty, image-only (no text layer), unsupported."""


class CardError(DocumentError, ValueError):
    """A document card edit names a field a card does not have."""


class LayerMissingError(DocumentError):
    """A method reads a layer (the layout layer, the content graph) that a document lacks, and nothing builds it."""


class DocumentNotFoundError(DocumentError):
    """No indexed document has that key or file name."""


class NothingFoundError(BookRAGError, LookupError):
    """What a command was asked to show matches nothing in the index (``bookrag browse --entity`` a name no entity
    of the document has)."""


class QuestionError(BookRAGError, ValueError):
    """A question that cannot be asked: empty (or only spaces), or longer than ``BOOKRAG_MAX_QUESTION_CHARS``."""


class LeaseLostError(BookRAGError):
    """A worker lost a document's indexing lease while indexing it (its renewal came too late, or another worker
    took the document over): it stopped writing that document."""


class UserQueryError(BookRAGError):
    """User-supplied Cypher (``run_cypher``) failed: a missing parameter, a timeout, more rows than ``max_rows``."""


class QueryRefusedError(UserQueryError):
    """User-supplied Cypher the read-only gate refuses before it runs (``bookrag_neo4j.db.gate``): a write, a
    procedure outside the allow-list, ``LOAD CSV``, a command, another database, or a query the server will not
    plan (a syntax error included); the message names the reason."""


class PlanError(BookRAGError):
    """A plan cannot run: an unknown operator or method, invalid parameters, a cycle, a missing input."""


class StepError(PlanError):
    """A step of a plan raised: the run ended there. ``step`` and ``operator`` name it; ``__cause__`` is the
    original error."""

    def __init__(self, step: str, operator: str, cause: BaseException) -> None:
        super().__init__(f"step {step!r} ({operator}) failed: {type(cause).__name__}: {cause}")
        self.step = step
        self.operator = operator


class ScaleRunError(BookRAGError):
    """A ``bookrag bench scale`` run folder that does not fit the command: recorded with other options or other
    documents first, or not a run file at all."""


def reason(exc: BaseException) -> str:
    """Why, in one line: a ``BookRAGError`` as it reads, any other error with its type (a bug, a server error)."""
    return str(exc) if isinstance(exc, BookRAGError) else f"{type(exc).__name__}: {exc}"


def validation_line(exc: ValidationError, *, whole: str = "input", show_input: bool = False, most: int = 10) -> str:
    """A pydantic validation error as one line, ``field: what it should be`` per error (pydantic's own text spans
    lines and links its documentation): for a CLI message, an MCP tool error, or an LLM's re-ask. ``whole`` names
    an error of the whole value; ``show_input`` adds each wrong value (never a whole object)."""
    return "; ".join(
        f"{'.'.join(str(part) for part in error['loc']) or whole}: {error['msg']}"
        + (f" (got {error['input']!r})" if show_input and not isinstance(error.get("input"), dict | list) else "")
        for error in exc.errors()[:most])
