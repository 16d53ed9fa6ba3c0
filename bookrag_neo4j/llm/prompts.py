"""Prompts are files in ``prompts/``: ``## system`` / ``## user`` sections with ``$variables``.

    prompt = render_prompt("query_classify", question="How many tables are there?")
    prompt.name, prompt.version     # 'query_classify', first 12 hex digits of the file's SHA-256
    prompt.messages                 # [{'role': 'system', ...}, {'role': 'user', ...}]

Variables use ``string.Template`` syntax (``$question`` or ``${question}``), so JSON braces in a prompt need no
escaping; a missing variable is an error. The version (content hash) enters the response-cache key.
"""

from __future__ import annotations

import hashlib
import re
import string
from dataclasses import dataclass, field
from functools import cache
from typing import Any, cast

from ..errors import ConfigurationError
from ..resources import resource_dir
from .messages import Message, Messages, Role

_SECTION = re.compile(r"^## (system|user|assistant)\s*$", re.MULTILINE)


@dataclass(frozen=True)
class RenderedPrompt:
    """A prompt with its variables filled in, ready for ``ChatModel.complete``."""

    name: str
    version: str
    messages: Messages = field(hash=False)


@dataclass(frozen=True)
class PromptTemplate:
    name: str
    version: str
    sections: tuple[tuple[str, string.Template], ...]

    @property
    def variables(self) -> set[str]:
        names: set[str] = set()
        for _, template in self.sections:
            for match in template.pattern.finditer(template.template):
                names.update(g for g in (match.group("named"), match.group("braced")) if g)
        return names

    def render(self, **variables: Any) -> RenderedPrompt:
        missing = self.variables - variables.keys()
        if missing:
            raise ConfigurationError(f"prompt {self.name!r} needs variables {sorted(missing)}")
        messages = [
            Message(role=cast(Role, role),
                    content=template.substitute({k: str(v) for k, v in variables.items()}).strip())
            for role, template in self.sections
        ]
        return RenderedPrompt(self.name, self.version, messages)


@cache
def load_prompt(name: str) -> PromptTemplate:
    """Read ``prompts/<name>.md``."""
    path = resource_dir("prompts") / f"{name}.md"
    if not re.fullmatch(r"[a-z0-9_]+", name) or not path.is_file():
        raise ConfigurationError(f"no prompt named {name!r} in {resource_dir('prompts')}")
    text = path.read_text(encoding="utf-8")
    parts = _SECTION.split(text)
    sections = tuple((role, string.Template(body.strip())) for role, body in zip(parts[1::2], parts[2::2], strict=True))
    if not sections or sections[-1][0] != "user":
        raise ConfigurationError(f"prompt {name!r} must have '## system'/'## user' sections ending with user")
    version = hashlib.sha256(text.encode("utf-8")).hexdigest()[:12]
    return PromptTemplate(name, version, sections)


def render_prompt(name: str, **variables: Any) -> RenderedPrompt:
    """Load and render a prompt in one step."""
    return load_prompt(name).render(**variables)
