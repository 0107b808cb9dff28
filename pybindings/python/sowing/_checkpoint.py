"""Checkpoints of ``sowing train`` read from Python, and written in the same layout by the Ray
trainer (``sowing.ray``), without torch: a run directory of ``iter-NNNNNN/`` folders, each with a
``meta.json`` (format, version, iteration, rules, network shape, the run's arguments, metrics,
and the size and FNV-1a hash of every file) and the weights as ``weights.safetensors``.

Reading checks what the Rust reader checks: the format and version, and every listed file's size
and hash, so a truncated or altered file is refused with a message that names it. A folder is
written under a temporary name and renamed into place, so a crash never leaves half of one.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import Any

FORMAT = "sowing-az-checkpoint"
VERSION = 1
META = "meta.json"
SAFETENSORS = "weights.safetensors"


class CheckpointError(ValueError):
    """A checkpoint that is missing, damaged, or does not fit."""


def fnv1a(path: Path) -> int:
    """The FNV-1a 64-bit hash of a file's contents, as ``meta.json`` records it."""
    h = 0xCBF29CE484222325
    prime = 0x100000001B3
    mask = (1 << 64) - 1
    for byte in path.read_bytes():
        h = ((h ^ byte) * prime) & mask
    return h


def digest(path: Path) -> dict[str, int]:
    return {"bytes": path.stat().st_size, "fnv1a": fnv1a(path)}


def iteration_dir(run: Path, iteration: int) -> Path:
    return Path(run) / f"iter-{iteration:06d}"


def newest(run: Path) -> Path | None:
    """The newest ``iter-NNNNNN`` folder with a ``meta.json`` in ``run``, if any."""
    run = Path(run)
    if not run.is_dir():
        return None
    best = None
    for entry in run.iterdir():
        name = entry.name
        if name.startswith("iter-") and name[5:].isdigit() and (entry / META).is_file():
            if best is None or int(name[5:]) > int(best.name[5:]):
                best = entry
    return best


def resolve(path: str | os.PathLike[str]) -> Path:
    """``path`` when it is a checkpoint folder, else the newest one of the run directory."""
    path = Path(path)
    if (path / META).is_file():
        return path
    if not path.is_dir():
        raise CheckpointError(f"no checkpoint at {path}: not a directory")
    found = newest(path)
    if found is None:
        raise CheckpointError(f"no checkpoint at {path}: it holds no iter-NNNNNN folder with a {META}")
    return found


def read_meta(folder: Path) -> dict[str, Any]:
    """The checked ``meta.json`` of checkpoint ``folder``; every file it lists is there with its
    recorded size and hash, and the safetensors weights are among them."""
    path = folder / META
    try:
        meta = json.loads(path.read_text())
    except json.JSONDecodeError as e:
        raise CheckpointError(f"checkpoint {path} is corrupt (not valid JSON: {e})") from None
    if not isinstance(meta, dict) or meta.get("format") != FORMAT:
        raise CheckpointError(f"checkpoint {path} is corrupt (it is not a {FORMAT} file)")
    if meta.get("version") != VERSION:
        raise CheckpointError(
            f"checkpoint {path} does not fit: format version {meta.get('version')!r}, "
            f"this package reads version {VERSION}"
        )
    for key in ("iteration", "rules", "net", "args", "files"):
        if key not in meta:
            raise CheckpointError(f"checkpoint {path} is corrupt (no {key!r} in it)")
    files = meta["files"]
    if SAFETENSORS not in files:
        raise CheckpointError(
            f"checkpoint {folder} has no {SAFETENSORS}: it was written before checkpoints "
            "carried safetensors weights; train it on with this version of sowing train to get one"
        )
    for name, want in files.items():
        file = folder / name
        if not file.is_file():
            if name == SAFETENSORS:
                raise CheckpointError(f"checkpoint {folder} is corrupt ({SAFETENSORS} is missing)")
            continue
        got = digest(file)
        if got["bytes"] != want.get("bytes"):
            raise CheckpointError(
                f"checkpoint {file} is corrupt ({got['bytes']} bytes where {want.get('bytes')} "
                "were written; truncated?)"
            )
        if got != want:
            raise CheckpointError(
                f"checkpoint {file} is corrupt (its contents differ from what was written)"
            )
    return meta


def write(run: Path, meta: dict[str, Any], files: dict[str, bytes]) -> Path:
    """Write checkpoint folder ``iter-NNNNNN`` (``meta["iteration"]``) of ``run`` atomically:
    ``files`` by name, and ``meta.json`` with their digests."""
    run = Path(run)
    run.mkdir(parents=True, exist_ok=True)
    target = iteration_dir(run, meta["iteration"])
    tmp = run / f".tmp-{target.name}"
    if tmp.exists():
        shutil.rmtree(tmp)
    tmp.mkdir()
    meta = dict(meta, format=FORMAT, version=VERSION, files={})
    for name, data in files.items():
        (tmp / name).write_bytes(data)
        meta["files"][name] = digest(tmp / name)
    (tmp / META).write_text(json.dumps(meta, indent=2))
    if target.exists():
        shutil.rmtree(target)
    os.replace(tmp, target)
    return target
