"""What every chat provider is sent: messages in OpenAI's shape (a role and text, or text and image parts), and the
JSON schema a reply must follow.

    messages: Messages = [{"role": "user", "content": "Say OK."}]
    with_image(messages[-1], "page-3.png")  # content: [{"type": "text", ...}, {"type": "image_url", ...}]
"""

from __future__ import annotations

import base64
import mimetypes
from pathlib import Path
from typing import Literal, TypedDict

from pydantic import JsonValue

Role = Literal["system", "user", "assistant"]


class TextPart(TypedDict):
    type: Literal["text"]
    text: str


class ImageURL(TypedDict):
    url: str  # a data URL: data:image/png;base64,...


class ImagePart(TypedDict):
    type: Literal["image_url"]
    image_url: ImageURL


class Message(TypedDict):
    role: Role
    content: str | list[TextPart | ImagePart]


Messages = list[Message]
JsonSchema = dict[str, JsonValue]  # a reply's schema, as pydantic's model_json_schema() writes it


def image_part(path: str | Path) -> ImagePart:
    """An image content part (a base64 data URL) for a local image file."""
    path = Path(path)
    mime = mimetypes.guess_type(path.name)[0] or "image/png"
    data = base64.b64encode(path.read_bytes()).decode("ascii")
    return {"type": "image_url", "image_url": {"url": f"data:{mime};base64,{data}"}}


def with_image(message: Message, path: str | Path) -> Message:
    """``message`` with the image at ``path`` after its text (for a vision model)."""
    text = message["content"]
    parts: list[TextPart | ImagePart] = [{"type": "text", "text": text}] if isinstance(text, str) else list(text)
    return {"role": message["role"], "content": [*parts, image_part(path)]}
