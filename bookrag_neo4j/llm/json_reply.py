"""Turn a model's text reply into a validated pydantic object: extract the JSON, repair it if broken."""

from __future__ import annotations

import json
import re
from typing import TypeVar

import json_repair
from pydantic import BaseModel, ValidationError

from ..errors import validation_line

T = TypeVar("T", bound=BaseModel)

_FENCE = re.compile(r"```(?:json)?\s*(.*?)```", re.DOTALL)


def extract_json(text: str) -> str:
    """The JSON part of a reply: the inside of a code fence, else from the first ``{``/``[`` on."""
    fenced = _FENCE.search(text)
    if fenced:
        return fenced.group(1).strip()
    starts = [i for i in (text.find("{"), text.find("[")) if i >= 0]
    return text[min(starts):].strip() if starts else text.strip()


def parse_reply(text: str, model: type[T]) -> T:
    """Validate the reply as ``model``; broken JSON is repaired (``json-repair``) before giving up.

    Raises ``pydantic.ValidationError`` (or ``ValueError``) with what is wrong, for the re-ask.
    """
    candidate = extract_json(text)
    try:
        return model.model_validate_json(candidate)
    except ValidationError as exc:
        if not _is_json_error(exc):
            raise
    repaired = json_repair.loads(candidate)
    if repaired in ("", None):
        raise ValueError("the reply contains no JSON object")
    return model.model_validate(repaired)


def _is_json_error(exc: ValidationError) -> bool:
    return any(err["type"] == "json_invalid" for err in exc.errors())


def schema_of(model: type[BaseModel]) -> dict:
    """The JSON schema sent to servers that support structured output."""
    return model.model_json_schema()


def describe_error(exc: Exception) -> str:
    """A short, model-readable description of why a reply was rejected."""
    if isinstance(exc, ValidationError):
        return validation_line(exc, whole="reply")
    if isinstance(exc, json.JSONDecodeError):
        return f"invalid JSON: {exc.msg}"
    return str(exc)
