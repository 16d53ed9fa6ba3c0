"""One settings object for the whole package, read from the environment (and a ``.env`` file), in groups.

Package settings use the ``BOOKRAG_`` prefix; the Neo4j connection honours the variables every Neo4j tool
uses (``NEO4J_URI``, ``NEO4J_USERNAME``, ``NEO4J_PASSWORD``, ``NEO4J_DATABASE``). A setting is read where it acts
(``settings.neo4j.bolt_port``, ``settings.bookrag.skyline_min``) and named, when given, by its variable without
the prefix::

    from bookrag_neo4j import Settings

    settings = Settings()                                  # environment + .env
    settings = Settings(neo4j_instance="test")             # or explicit values, by their variables' names
    fewer = settings.replace(skyline_min=5, g2_rounds=1)   # a copy with some changed

When ``NEO4J_URI`` is unset, bookrag-neo4j manages a server of its own (``bookrag neo4j start``). The environment
is read by one flat pydantic-settings model made from the groups: variables, aliases and JSON values behave as its
documentation says.
"""

from __future__ import annotations

import copy
import functools
import hashlib
import re
from pathlib import Path
from typing import Any

import platformdirs
from pydantic import BaseModel, Field, create_model
from pydantic.fields import FieldInfo
from pydantic_settings import BaseSettings, SettingsConfigDict

from .errors import ConfigurationError
from .setting_groups import (
    ENTITY_TYPES,
    BookRAGSettings,
    G2Settings,
    Group,
    IndexingSettings,
    KnowledgeGraphSettings,
    LayoutSettings,
    ModelSettings,
    Neo4jSettings,
    RetrievalSettings,
    ServeSettings,
)

APP_NAME = "bookrag-neo4j"
__all__ = ["APP_NAME", "ENTITY_TYPES", "Settings"]


class Settings(BaseModel):
    """All configuration of bookrag-neo4j, in groups. Every field can be set by an environment variable."""

    cache_dir: Path = Field(
        default_factory=lambda: Path(platformdirs.user_cache_dir(APP_NAME)),
        description="Assembled Neo4j server jars, model caches.")
    data_dir: Path = Field(
        default_factory=lambda: Path(platformdirs.user_data_dir(APP_NAME)),
        description="Databases of the managed servers, extracted images.")
    neo4j: Neo4jSettings = Field(default_factory=Neo4jSettings)
    models: ModelSettings = Field(default_factory=ModelSettings)
    indexing: IndexingSettings = Field(default_factory=IndexingSettings)
    kg: KnowledgeGraphSettings = Field(default_factory=KnowledgeGraphSettings)
    retrieval: RetrievalSettings = Field(default_factory=RetrievalSettings)
    bookrag: BookRAGSettings = Field(default_factory=BookRAGSettings)
    layout: LayoutSettings = Field(default_factory=LayoutSettings)
    g2: G2Settings = Field(default_factory=G2Settings)
    serve: ServeSettings = Field(default_factory=ServeSettings)

    def __init__(self, **values: Any) -> None:
        """Settings from the environment, ``.env`` and ``values`` (by flat name, or a whole group by its name)."""
        groups = {name: values.pop(name) for name in list(values) if name in _group_names()}
        read = _environment()(**values)
        nested: dict[str, Any] = {}
        for name in read.model_fields_set:
            group, field = _where(name)
            value = getattr(read, name)
            if group is None:
                nested[field] = value
            else:
                nested.setdefault(group, {})[field] = value
        super().__init__(**{**nested, **groups})

    def get(self, name: str) -> Any:
        """A setting by its flat name (its variable without ``BOOKRAG_``): ``settings.get("neo4j_bolt_port")``."""
        group, field = _where(name)
        return getattr(self if group is None else getattr(self, group), field)

    def given(self) -> set[str]:
        """The flat names of the settings given explicitly (by the environment, ``.env`` or an argument)."""
        found = {name for name in self.model_fields_set if name not in _group_names()}
        for group in _group_names():
            model: Group = getattr(self, group)
            found |= {model.env + field for field in model.model_fields_set}
        return found

    def replace(self, **changes: Any) -> Settings:
        """A copy with ``changes`` (by flat name) validated and in place; every group and every setting given is kept
        as it is (only a top-level setting never given is taken from the environment again)."""
        top = {name: getattr(self, name) for name in self.model_fields_set if name not in _group_names()}
        groups: dict[str, Group] = {name: getattr(self, name) for name in _group_names()}
        updates: dict[str, dict[str, Any]] = {}
        for name, value in changes.items():
            group, field = _where(name)
            if group is None:
                top[field] = value
            else:
                updates.setdefault(group, {})[field] = value
        for group, update in updates.items():
            model = groups[group]
            kept = {field: getattr(model, field) for field in model.model_fields_set}
            groups[group] = type(model).model_validate({**kept, **update})
        return type(self)(**top, **groups)

    @property
    def instance_dir(self) -> Path:
        """Home directory of the managed server instance (config, data, logs, password)."""
        return self.data_dir / "neo4j" / self.neo4j.instance

    def library_dir(self, kind: str) -> Path:
        """``data_dir/<kind>/<server>/<database>``: one folder a server and database (a managed instance by its
        name, a server of your own by a digest of ``NEO4J_URI``), so that a delete in one never touches another's."""
        if self.neo4j.uri:
            server = "server-" + hashlib.sha256(self.neo4j.uri.encode()).hexdigest()[:12]
        else:
            server = f"instance-{self.neo4j.instance}"
        return self.data_dir / kind / server / re.sub(r"[^\w.-]", "_", self.neo4j.database)

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
    def password_file(self) -> Path:
        """File (mode 0600) holding the generated password of the managed server."""
        return self.instance_dir / "password"


@functools.cache
def _group_names() -> frozenset[str]:
    return frozenset(name for name, field in Settings.model_fields.items()
                     if isinstance(field.annotation, type) and issubclass(field.annotation, Group))


@functools.cache
def flat_names() -> dict[str, tuple[str | None, str]]:
    """Every setting's flat name (its variable without ``BOOKRAG_``) -> (its group or None, its field)."""
    names: dict[str, tuple[str | None, str]] = {}
    for name, field in Settings.model_fields.items():
        if name in _group_names():
            group: type[Group] = field.annotation  # type: ignore[assignment]
            names |= {group.env + inner: (name, inner) for inner in group.model_fields}
        else:
            names[name] = (None, name)
    return names


def field_of(name: str) -> FieldInfo:
    """The declaration (type, default, description, aliases) of the setting called ``name`` (its flat name)."""
    group, field = _where(name)
    model = Settings if group is None else Settings.model_fields[group].annotation
    return model.model_fields[field]  # type: ignore[union-attr]


def _where(name: str) -> tuple[str | None, str]:
    try:
        return flat_names()[name]
    except KeyError:
        raise ConfigurationError(f"no setting is called {name!r} (docs/configuration.md lists them)") from None


@functools.cache
def _environment() -> type[BaseSettings]:
    """One flat pydantic-settings model of every setting, made from the groups: it reads the environment."""
    fields: dict[str, Any] = {}
    for name in flat_names():
        info = copy.copy(field_of(name))
        fields[name] = (info.annotation, info)
    return create_model("EnvironmentSettings", __base__=_Environment, **fields)


class _Environment(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="BOOKRAG_", env_file=".env", extra="ignore", populate_by_name=True)
