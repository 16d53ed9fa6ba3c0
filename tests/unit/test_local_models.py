"""Packaged local LLMs: parts joined in order, the SHA-256 checked before anything may load the file. (The real
offline model: ``tests/integration/test_local_models.py``.)"""

from __future__ import annotations

import hashlib
import sys

import pytest

from bookrag_neo4j.errors import LocalModelError
from bookrag_neo4j.llm import local_models
from bookrag_neo4j.llm.local_models import LocalModelSpec, ensure_local_model


@pytest.fixture
def fake_parts(tmp_path, monkeypatch: pytest.MonkeyPatch) -> list[bytes]:
    chunks = [b"GGUF-part-one|", b"part-two|", b"part-three"]
    for i, chunk in enumerate(chunks, start=1):
        pkg = tmp_path / "site" / f"fakemodel_part{i}"
        (pkg / "data").mkdir(parents=True)
        (pkg / "__init__.py").write_text("raise RuntimeError('never imported')\n")
        (pkg / "data" / f"part{i:02d}.bin").write_bytes(chunk)
    monkeypatch.syspath_prepend(str(tmp_path / "site"))
    return chunks


def spec(sha: str) -> LocalModelSpec:
    return LocalModelSpec("fake", "fakemodel-part", 3, "1.0", sha, "fake.gguf")


def test_parts_are_joined_and_verified(fake_parts, tmp_path, monkeypatch: pytest.MonkeyPatch) -> None:
    whole = b"".join(fake_parts)
    monkeypatch.setitem(local_models.LOCAL_MODELS, "fake", spec(hashlib.sha256(whole).hexdigest()))
    path = ensure_local_model("fake", tmp_path / "cache")
    assert path.read_bytes() == whole
    assert all(not name.startswith("fakemodel") for name in sys.modules)  # found, never imported
    mtime = path.stat().st_mtime_ns
    assert ensure_local_model("fake", tmp_path / "cache") == path and path.stat().st_mtime_ns == mtime


def test_checksum_mismatch_refuses_the_file(fake_parts, tmp_path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(local_models.LOCAL_MODELS, "fake", spec("0" * 64))
    with pytest.raises(LocalModelError, match="SHA-256"):
        ensure_local_model("fake", tmp_path / "cache")
    assert list((tmp_path / "cache" / "models").iterdir()) == []


def test_missing_packages_say_how_to_install(tmp_path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(local_models.LOCAL_MODELS, "fake", spec("0" * 64))
    with pytest.raises(LocalModelError, match="make local-model"):
        ensure_local_model("fake", tmp_path / "cache")
