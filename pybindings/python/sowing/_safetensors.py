"""The safetensors format, read and written with numpy alone (no ``safetensors`` package, no
torch): what ``sowing train`` writes beside every checkpoint as ``weights.safetensors``, and what
the Ray trainer writes.

The format: an 8-byte little-endian header length ``H``, ``H`` bytes of JSON mapping each
tensor's name to its ``dtype``, ``shape`` and ``data_offsets`` (``[begin, end)`` in the data
that follows; an optional ``__metadata__`` of strings), then the data, little-endian, C order.
The reader refuses a damaged file with a ``ValueError`` that says what is wrong.
"""

from __future__ import annotations

import json
import math
import os
from pathlib import Path
from typing import Any

import numpy as np

DTYPES = {
    "F64": np.float64,
    "F32": np.float32,
    "F16": np.float16,
    "I64": np.int64,
    "I32": np.int32,
    "I16": np.int16,
    "I8": np.int8,
    "U8": np.uint8,
    "BOOL": np.bool_,
}
NAMES = {np.dtype(v).str.lstrip("<>|="): k for k, v in DTYPES.items()}

MAX_HEADER = 100 * 1024 * 1024
"""The longest header read (the format's own reference reader stops at 100 MB)."""


def loads(data: bytes, source: str = "safetensors data") -> dict[str, np.ndarray]:
    """The tensors of safetensors ``data``, by name; ``source`` names it in errors."""

    def bad(why: str) -> ValueError:
        return ValueError(f"{source} is not a valid safetensors file: {why}")

    if len(data) < 8:
        raise bad(f"{len(data)} bytes, fewer than the 8 of the header length")
    size = int.from_bytes(data[:8], "little")
    if size > MAX_HEADER or 8 + size > len(data):
        raise bad(f"a header of {size} bytes in a file of {len(data)}; truncated?")
    try:
        header = json.loads(data[8 : 8 + size].decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        raise bad(f"its header is not JSON ({e})") from None
    if not isinstance(header, dict):
        raise bad("its header is not a JSON object")
    body = memoryview(data)[8 + size :]
    tensors = {}
    for name, info in header.items():
        if name == "__metadata__":
            continue
        if not isinstance(info, dict):
            raise bad(f"tensor {name!r} has no description")
        dtype = DTYPES.get(info.get("dtype"))
        if dtype is None:
            raise bad(f"tensor {name!r} has dtype {info.get('dtype')!r}; known: {', '.join(DTYPES)}")
        shape = info.get("shape")
        offsets = info.get("data_offsets")
        if (
            not isinstance(shape, list)
            or not all(isinstance(d, int) and not isinstance(d, bool) and d >= 0 for d in shape)
            or not isinstance(offsets, list)
            or len(offsets) != 2
            or not all(isinstance(o, int) and not isinstance(o, bool) for o in offsets)
        ):
            raise bad(f"tensor {name!r} has a malformed shape or data_offsets")
        begin, end = offsets
        want = math.prod(shape) * np.dtype(dtype).itemsize
        if not 0 <= begin <= end <= len(body) or end - begin != want:
            raise bad(
                f"tensor {name!r} of shape {shape} needs {want} bytes, its offsets "
                f"[{begin}, {end}) in {len(body)} bytes of data do not fit"
            )
        array = np.frombuffer(body[begin:end], dtype=np.dtype(dtype).newbyteorder("<"))
        tensors[name] = array.reshape(tuple(shape)).astype(dtype, copy=True)
    return tensors


def load(path: str | os.PathLike[str]) -> dict[str, np.ndarray]:
    """The tensors of the safetensors file ``path``, by name."""
    return loads(Path(path).read_bytes(), source=str(path))


def dumps(tensors: dict[str, Any]) -> bytes:
    """``tensors`` (numpy arrays, or anything ``np.asarray`` takes) as safetensors bytes, in name
    order."""
    header: dict[str, Any] = {}
    chunks = []
    at = 0
    for name in sorted(tensors):
        array = np.asarray(tensors[name], order="C")
        kind = NAMES.get(array.dtype.str.lstrip("<>|="))
        if kind is None:
            raise TypeError(f"tensor {name!r} has dtype {array.dtype}, which safetensors lacks here")
        raw = array.astype(array.dtype.newbyteorder("<"), copy=False).tobytes()
        header[name] = {"dtype": kind, "shape": list(array.shape), "data_offsets": [at, at + len(raw)]}
        chunks.append(raw)
        at += len(raw)
    text = json.dumps(header, separators=(",", ":")).encode("utf-8")
    # The data starts on an 8-byte boundary, as the format's own writer pads it.
    text += b" " * (-len(text) % 8)
    return len(text).to_bytes(8, "little") + text + b"".join(chunks)


def save(path: str | os.PathLike[str], tensors: dict[str, Any]) -> None:
    """Write ``tensors`` to ``path`` as safetensors."""
    Path(path).write_bytes(dumps(tensors))
