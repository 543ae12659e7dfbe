"""Messages between the parent and the sandbox: a length, then that many bytes of JSON."""

from __future__ import annotations

import json
import struct
from typing import IO, Any

_LENGTH = struct.Struct(">Q")
HEADER_BYTES = _LENGTH.size


def encode_frame(message: dict[str, Any]) -> bytes:
    payload = json.dumps(message, ensure_ascii=False).encode("utf-8")
    return _LENGTH.pack(len(payload)) + payload


def decode_length(header: bytes) -> int:
    (length,) = _LENGTH.unpack(header)
    return int(length)


def decode_payload(payload: bytes) -> dict[str, Any]:
    message = json.loads(payload.decode("utf-8"))
    if not isinstance(message, dict):
        raise ValueError("a frame must hold a JSON object")
    return message


def read_frame(stream: IO[bytes]) -> dict[str, Any] | None:
    """Read one frame from a blocking stream; None at end of stream."""
    header = stream.read(HEADER_BYTES)
    if len(header) < HEADER_BYTES:
        return None
    payload = stream.read(decode_length(header))
    return decode_payload(payload)


def write_frame(stream: IO[bytes], message: dict[str, Any]) -> None:
    stream.write(encode_frame(message))
    stream.flush()
