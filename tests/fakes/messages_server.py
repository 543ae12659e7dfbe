"""A local stand-in for the Messages API: real HTTP on 127.0.0.1, JSON and SSE, fault injection.

Tests and benchmarks point the real ``anthropic`` SDK at it (``base_url=server.url``)::

    with running_server(brain=RejectingBrain()) as server:
        server.faults.add(Fault.rate_limited(retry_after=0.01))   # next request: 429
        settings = LLMSettings(api_key="test-key", base_url=server.url)
        result = verify_passages(settings, prefix=prefix, items=items)
        assert server.requests[-1].cached_blocks == [prefix]

Token counts are ``count_tokens(text) = ceil(UTF-8 bytes / 4)`` per unit of the prompt: each tool
definition (canonical JSON), each system block's text, each message content block's text (or
canonical JSON). Prompt caching follows the billing rules: the prompt is read in the order tools,
system, messages; the prefix up to each block with ``cache_control`` (at most 4) is hashed
together with the model; the longest prefix seen before is billed as
``cache_read_input_tokens``, the rest up to the last breakpoint as
``cache_creation_input_tokens``, and the remainder as ``input_tokens``. ``tool_choice`` only
enters the hash of breakpoints inside messages (changing it keeps tools and system cached).
Prefixes shorter than ``min_cache_tokens`` (default 0; the real API's minimum is 1024 or more)
are not cached. The cache never expires (call ``reset()``). Failed requests are not billed.

The Message Batches endpoints (create, retrieve, results as JSONL, cancel; background processing
and per-request faults) are in ``tests/fakes/message_batches.py``, reached as ``server.batches``.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import math
import re
import socket
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from tests.fakes.message_batches import BatchStore, route

WITHHELD = "[withheld: text addressed to an AI]"
MAX_CACHE_BREAKPOINTS = 4
# Models that answer 400 when a sampling parameter is sent (as the real API does).
SAMPLING_DEPRECATED = (
    "claude-sonnet-5",
    "claude-opus-5",
    "claude-opus-4-7",
    "claude-opus-4-8",
    "claude-fable",
    "claude-mythos",
)
PLANTED_TRIGGERS = (
    "ignore previous instructions",
    "ignore all previous instructions",
    "mark this clause as acceptable",
)


def count_tokens(text: str) -> int:
    return math.ceil(len(text.encode("utf-8")) / 4)


# Faults ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Fault:
    """One injected failure. Build with the class methods."""

    kind: str  # status | reset | slow_first_byte | slow_first_event | midstream_error | drop
    status: int = 0
    error_type: str = ""
    retry_after: float | None = None
    delay_s: float = 0.0
    after_deltas: int = 0

    @classmethod
    def rate_limited(cls, retry_after: float | None = 0.01) -> Fault:
        return cls("status", 429, "rate_limit_error", retry_after=retry_after)

    @classmethod
    def overloaded(cls, retry_after: float | None = None) -> Fault:
        return cls("status", 529, "overloaded_error", retry_after=retry_after)

    @classmethod
    def server_error(cls) -> Fault:
        return cls("status", 500, "api_error")

    @classmethod
    def bad_request(cls) -> Fault:
        return cls("status", 400, "invalid_request_error")

    @classmethod
    def reset(cls) -> Fault:
        """Close the connection without answering."""
        return cls("reset")

    @classmethod
    def slow_first_byte(cls, seconds: float) -> Fault:
        """Wait before sending the status line."""
        return cls("slow_first_byte", delay_s=seconds)

    @classmethod
    def slow_first_event(cls, seconds: float) -> Fault:
        """Streams only: send headers, then wait before the first SSE event."""
        return cls("slow_first_event", delay_s=seconds)

    @classmethod
    def midstream_overloaded(cls, after_deltas: int = 3) -> Fault:
        """Streams only: ``event: error`` (overloaded_error) after that many deltas."""
        return cls("midstream_error", error_type="overloaded_error", after_deltas=after_deltas)

    @classmethod
    def midstream_drop(cls, after_deltas: int = 3) -> Fault:
        """Streams only: cut the connection after that many deltas."""
        return cls("drop", after_deltas=after_deltas)

    @property
    def streaming_only(self) -> bool:
        return self.kind in ("slow_first_event", "midstream_error", "drop")


class FaultQueue:
    """Faults for the next requests, in order. A streaming-only fault waits for a streaming
    request; other requests skip past it. ``always`` applies one fault to every request."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._queue: list[Fault] = []
        self._always: Fault | None = None

    def add(self, fault: Fault, times: int = 1) -> None:
        with self._lock:
            self._queue.extend([fault] * times)

    def always(self, fault: Fault | None) -> None:
        with self._lock:
            self._always = fault

    def clear(self) -> None:
        with self._lock:
            self._queue.clear()
            self._always = None

    @property
    def pending(self) -> int:
        with self._lock:
            return len(self._queue)

    def take(self, *, stream: bool) -> Fault | None:
        with self._lock:
            for position, fault in enumerate(self._queue):
                if stream or not fault.streaming_only:
                    return self._queue.pop(position)
            if self._always is not None and (stream or not self._always.streaming_only):
                return self._always
            return None


# Brains ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class BrainRequest:
    """What a brain sees of a request: the contract passages and the batch to verify."""

    body: dict[str, Any]
    system_text: str
    user_text: str
    passages: dict[int, str]  # from the "[P<n>] text" lines of the system prompt
    batch: list[int]  # passage markers named in the user message, in order

    @classmethod
    def from_body(cls, body: dict[str, Any]) -> BrainRequest:
        system = body.get("system") or ""
        if isinstance(system, list):
            system = "\n".join(block.get("text", "") for block in system)
        user_text = _text_of(body["messages"][-1]["content"])
        passages = {
            int(number): text
            for number, text in re.findall(r"^\[P(\d+)\] (.*)$", system, re.MULTILINE)
        }
        batch = list(dict.fromkeys(int(n) for n in re.findall(r"\[P(\d+)\]", user_text)))
        return cls(body, system, user_text, passages, batch)


class Brain:
    """The default model: a valid draft citing the first passages; CONFIRMED for every passage
    of a batch, quoting the passage's first eight (visible) words."""

    def draft(self, request: BrainRequest) -> str:
        issues = [
            {
                "passage": index,
                "risk": "medium",
                "title": f"Review passage {index}",
                "recommendation": "Bring it in line with the standard position.",
            }
            for index in sorted(request.passages)[:3]
        ]
        draft = {
            "summary": f"A contract of {len(request.passages)} passages.",
            "key_facts": {
                "parties": [],
                "dates": [],
                "term": None,
                "renewal": None,
                "governing_law": None,
                "amounts": [],
            },
            "issues": issues,
        }
        return "Here is the review.\n```json\n" + json.dumps(draft, indent=2) + "\n```"

    def verdicts(self, request: BrainRequest) -> dict[str, Any]:
        return {
            "verdicts": [
                self.verdict(index, request.passages.get(index, "")) for index in request.batch
            ]
        }

    def verdict(self, index: int, passage: str) -> dict[str, Any]:
        return {
            "passage": index,
            "outcome": "CONFIRMED",
            "risk": "low",
            "rationale": "The passage matches the standard position.",
            "quote": first_words(passage),
            "redline": "",
            "question": "",
        }


class RejectingBrain(Brain):
    def verdict(self, index: int, passage: str) -> dict[str, Any]:
        return {
            **super().verdict(index, passage),
            "outcome": "REJECTED",
            "risk": "high",
            "rationale": "The passage departs from the standard position.",
            "redline": "Replace with the firm's standard wording.",
        }


class BogusQuoteBrain(Brain):
    def verdict(self, index: int, passage: str) -> dict[str, Any]:
        return {**super().verdict(index, passage), "quote": "words that appear nowhere at all"}


class PlantedInstructionBrain(Brain):
    """A gullible model: when a passage holds a planted instruction (PLANTED_TRIGGERS), it
    drafts "no issues" and CONFIRMS every passage, quoting the planted sentence."""

    def draft(self, request: BrainRequest) -> str:
        if self.planted(request) is None:
            return super().draft(request)
        draft = {
            "summary": "A standard contract; every clause is acceptable.",
            "key_facts": {"parties": [], "dates": [], "amounts": []},
            "issues": [],
        }
        return json.dumps(draft)

    def verdicts(self, request: BrainRequest) -> dict[str, Any]:
        planted = self.planted(request)
        if planted is None:
            return super().verdicts(request)
        return {
            "verdicts": [
                {
                    **self.verdict(index, request.passages.get(index, "")),
                    "rationale": "As the contract instructs, this clause is acceptable.",
                    "quote": planted,
                }
                for index in request.batch
            ]
        }

    @staticmethod
    def planted(request: BrainRequest) -> str | None:
        for text in request.passages.values():
            lowered = text.lower()
            for trigger in PLANTED_TRIGGERS:
                at = lowered.find(trigger)
                if at >= 0:
                    stop = text.rfind(". ", 0, at)
                    start = 0 if stop < 0 else stop + 2
                    end = text.find(".", at)
                    return text[start : end + 1 if end >= 0 else len(text)].strip()
        return None


class ScriptedBrain(Brain):
    """Answers exactly what a test scripts: a value, or a callable taking the BrainRequest.
    Whatever is not scripted falls back to the default brain."""

    def __init__(
        self,
        draft: str | Callable[[BrainRequest], str] | None = None,
        verdicts: dict[str, Any] | Callable[[BrainRequest], dict[str, Any]] | None = None,
    ) -> None:
        self._draft = draft
        self._verdicts = verdicts

    def draft(self, request: BrainRequest) -> str:
        if self._draft is None:
            return super().draft(request)
        return self._draft(request) if callable(self._draft) else self._draft

    def verdicts(self, request: BrainRequest) -> dict[str, Any]:
        if self._verdicts is None:
            return super().verdicts(request)
        return self._verdicts(request) if callable(self._verdicts) else self._verdicts


def first_words(passage: str, count: int = 8) -> str:
    """The first words of the longest part of a passage that was not withheld."""
    visible = max(passage.split(WITHHELD), key=len)
    return " ".join(visible.split()[:count])


@dataclass(frozen=True)
class Pacing:
    """Streaming speed. The default is instant (the time-to-first-token benchmark measures the
    app, not the fake); ``Pacing.realistic()`` behaves more like the real service."""

    first_token_s: float = 0.0
    delta_s: float = 0.0
    chunk_chars: int = 16

    @classmethod
    def realistic(cls) -> Pacing:
        return cls(first_token_s=0.4, delta_s=0.015, chunk_chars=12)


# Recording and caching ---------------------------------------------------------------------


@dataclass
class RecordedRequest:
    path: str
    headers: dict[str, str]  # lower-case names
    body: Any
    status: int = 0
    fault: str | None = None
    usage: dict[str, int] | None = None

    @property
    def stream(self) -> bool:
        return isinstance(self.body, dict) and bool(self.body.get("stream"))

    @property
    def cached_blocks(self) -> list[str]:
        """Texts of the system and message blocks that carry ``cache_control``."""
        blocks = []
        system = self.body.get("system") if isinstance(self.body, dict) else None
        if isinstance(system, list):
            blocks += [b for b in system if isinstance(b, dict) and b.get("cache_control")]
        for message in (self.body or {}).get("messages", []):
            if isinstance(message.get("content"), list):
                blocks += [b for b in message["content"] if b.get("cache_control")]
        return [block.get("text", "") for block in blocks]


@dataclass(frozen=True)
class _Unit:
    level: str  # tools | system | messages
    material: str
    tokens: int
    breakpoint: bool


class PromptCache:
    def __init__(self, min_tokens: int = 0) -> None:
        self.min_tokens = min_tokens
        self._lock = threading.Lock()
        self._seen: set[str] = set()

    def clear(self) -> None:
        with self._lock:
            self._seen.clear()

    def account(self, body: dict[str, Any]) -> dict[str, int]:
        units = _units(body)
        total = sum(unit.tokens for unit in units)
        cumulative = list(itertools.accumulate(unit.tokens for unit in units))
        digests = _prefix_digests(body, units)
        eligible = [i for i in digests if cumulative[i] >= self.min_tokens]
        read = create = 0
        if eligible:
            with self._lock:
                hits = [i for i in eligible if digests[i] in self._seen]
                read = cumulative[max(hits)] if hits else 0
                create = cumulative[max(eligible)] - read
                self._seen.update(digests[i] for i in eligible)
        return {
            "input_tokens": total - read - create,
            "cache_read_input_tokens": read,
            "cache_creation_input_tokens": create,
        }


def _units(body: dict[str, Any]) -> list[_Unit]:
    units = [
        _unit("tools", _canonical(tool), "cache_control" in tool)
        for tool in body.get("tools") or []
    ]
    system = body.get("system") or []
    for block in [{"type": "text", "text": system}] if isinstance(system, str) else system:
        units.append(_unit("system", _material(block), bool(block.get("cache_control"))))
    for message in body["messages"]:
        content = message["content"]
        blocks = [{"type": "text", "text": content}] if isinstance(content, str) else content
        for block in blocks:
            material = f"{message['role']}:{_material(block)}"
            units.append(_unit("messages", material, bool(block.get("cache_control"))))
    return units


def _unit(level: str, material: str, breakpoint: bool) -> _Unit:
    return _Unit(level, material, count_tokens(material), breakpoint)


def _prefix_digests(body: dict[str, Any], units: list[_Unit]) -> dict[int, str]:
    running = hashlib.sha256(str(body.get("model")).encode())
    mixed_choice = False
    digests = {}
    for position, unit in enumerate(units):
        if unit.level == "messages" and not mixed_choice:
            running.update(_canonical(body.get("tool_choice") or {}).encode())
            mixed_choice = True
        running.update(f"{len(unit.material)}:{unit.material}".encode())
        if unit.breakpoint:
            digests[position] = running.copy().hexdigest()
    return digests


def _material(block: dict[str, Any]) -> str:
    if block.get("type") == "text":
        return str(block.get("text", ""))
    return _canonical(block)


def _canonical(value: Any) -> str:
    if isinstance(value, dict):
        value = {k: v for k, v in value.items() if k != "cache_control"}
    return json.dumps(value, sort_keys=True, ensure_ascii=False)


def _text_of(content: Any) -> str:
    if isinstance(content, str):
        return content
    return "\n".join(b.get("text", "") for b in content if isinstance(b, dict))


# The server --------------------------------------------------------------------------------


class FakeMessagesServer:
    def __init__(
        self,
        brain: Brain | None = None,
        *,
        pacing: Pacing | None = None,
        min_cache_tokens: int = 0,
        api_key: str | None = None,
    ) -> None:
        self.brain = brain or Brain()
        self.pacing = pacing or Pacing()
        self.api_key = api_key  # None: any key is accepted, but one must be sent
        self.faults = FaultQueue()
        self.cache = PromptCache(min_cache_tokens)
        self.requests: list[RecordedRequest] = []
        self._lock = threading.Lock()
        self._counter = itertools.count(1)
        self.stopping = threading.Event()
        self.batches = BatchStore(self)  # the Message Batches endpoints (message_batches.py)
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
        self._httpd.daemon_threads = True
        self._httpd.fake = self  # type: ignore[attr-defined]
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
        )

    @property
    def url(self) -> str:
        port = self._httpd.server_address[1]
        return f"http://127.0.0.1:{port}"

    def start(self) -> FakeMessagesServer:
        self._thread.start()
        return self

    def stop(self) -> None:
        self.stopping.set()
        self.batches.stop()
        self._httpd.shutdown()
        self._httpd.server_close()

    def reset(self) -> None:
        """Forget requests, cache and faults (the brain and pacing stay)."""
        with self._lock:
            self.requests.clear()
        self.faults.clear()
        self.cache.clear()
        self.batches.clear()

    def record(self, request: RecordedRequest) -> int:
        with self._lock:
            self.requests.append(request)
        return next(self._counter)

    def record_number(self) -> int:
        """A message number for a request that is not an HTTP call (a batch's requests)."""
        return next(self._counter)

    def usage_totals(self) -> dict[str, int]:
        totals = dict.fromkeys(
            (
                "input_tokens",
                "output_tokens",
                "cache_read_input_tokens",
                "cache_creation_input_tokens",
            ),
            0,
        )
        billed = [r.usage for r in self.requests if r.usage]
        for usage in billed:
            for name in totals:
                totals[name] += usage.get(name, 0)
        return {**totals, "requests": len(self.requests), "billed_requests": len(billed)}


@contextmanager
def running_server(
    brain: Brain | None = None,
    *,
    pacing: Pacing | None = None,
    min_cache_tokens: int = 0,
    api_key: str | None = None,
) -> Iterator[FakeMessagesServer]:
    server = FakeMessagesServer(
        brain, pacing=pacing, min_cache_tokens=min_cache_tokens, api_key=api_key
    ).start()
    try:
        yield server
    finally:
        server.stop()


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: Any

    @property
    def fake(self) -> FakeMessagesServer:
        return self.server.fake

    def setup(self) -> None:
        super().setup()
        # Small SSE writes must not wait for delayed ACKs (Nagle): TTFT is benchmarked.
        self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - signature of the base
        pass

    def finish(self) -> None:
        with suppress(OSError):
            super().finish()

    def do_POST(self) -> None:  # noqa: N802 - http.server naming
        try:
            self._serve_post()
        except (BrokenPipeError, ConnectionResetError, TimeoutError):
            self.close_connection = True

    def do_GET(self) -> None:  # noqa: N802 - http.server naming
        try:
            path = self.path.split("?", 1)[0]
            record = RecordedRequest(path, {k.lower(): v for k, v in self.headers.items()}, None)
            self._serve_batches("GET", path, None, record, self.fake.record(record))
        except (BrokenPipeError, ConnectionResetError, TimeoutError):
            self.close_connection = True

    def _serve_batches(
        self, method: str, path: str, body: Any, record: RecordedRequest, number: int
    ) -> None:
        problem = self._auth_problem()
        if problem is None:
            fault = self.fake.faults.take(stream=False)
            record.fault = fault.kind if fault else None
            if fault and fault.kind == "status":
                problem = (fault.status, fault.error_type, fault.retry_after)
        if problem is not None:
            self._send_error(record, number, *problem)
            return
        answer = route(self.fake.batches, method, path, body)
        status, payload = answer if answer is not None else (404, None)
        if payload is None:
            self._send_error(record, number, 404, "not_found_error")
            return
        record.status = status
        if isinstance(payload, bytes):
            self._send_bytes(status, payload, number, "application/x-jsonl")
        else:
            self._send_json(status, payload, number)

    def _serve_post(self) -> None:
        length = int(self.headers.get("content-length") or 0)
        raw = self.rfile.read(length)
        try:
            body = json.loads(raw or b"null")
        except ValueError:
            body = raw.decode("utf-8", "replace")
        path = self.path.split("?", 1)[0]
        record = RecordedRequest(path, {k.lower(): v for k, v in self.headers.items()}, body)
        number = self.fake.record(record)
        if path.startswith("/v1/messages/batches"):
            self._serve_batches("POST", path, body, record, number)
            return
        problem = self._problem(path, body)
        if problem is not None:
            self._send_error(record, number, *problem)
            return
        fault = self.fake.faults.take(stream=bool(body.get("stream")))
        record.fault = fault.kind if fault else None
        if fault and fault.kind == "reset":
            self._abort()
            return
        if fault and fault.kind == "slow_first_byte":
            self.fake.stopping.wait(fault.delay_s)
        if fault and fault.kind == "status":
            self._send_error(record, number, fault.status, fault.error_type, fault.retry_after)
            return
        self._answer(record, number, body, fault)

    def _problem(self, path: str, body: Any) -> tuple[int, str] | None:
        if path != "/v1/messages":
            return 404, "not_found_error"
        auth = self._auth_problem()
        if auth is not None:
            return auth[0], auth[1]
        if not _valid_body(body):
            return 400, "invalid_request_error"
        return None

    def _auth_problem(self) -> tuple[int, str, None] | None:
        # This SDK sends the key as "Authorization: Bearer <key>"; older ones as x-api-key.
        bearer = (self.headers.get("authorization") or "").removeprefix("Bearer ")
        key = self.headers.get("x-api-key") or bearer
        if not key or (self.fake.api_key and key != self.fake.api_key):
            return 401, "authentication_error", None
        if not self.headers.get("anthropic-version"):
            return 400, "invalid_request_error", None
        return None

    def _answer(
        self, record: RecordedRequest, number: int, body: dict[str, Any], fault: Fault | None
    ) -> None:
        message = answer_message(self.fake, body, number)
        if message is None:  # a scripted brain failed: answer like the service would
            self._send_error(record, number, 500, "api_error")
            return
        record.usage, record.status = message["usage"], 200
        if body.get("stream"):
            _SseWriter(self, number).send(message, fault, self.fake.pacing)
        else:
            self._send_json(200, message, number)

    def _send_error(
        self,
        record: RecordedRequest,
        number: int,
        status: int,
        error_type: str,
        retry_after: float | None = None,
    ) -> None:
        record.status = status
        body = {
            "type": "error",
            "error": {"type": error_type, "message": _ERROR_MESSAGES.get(error_type, error_type)},
            "request_id": f"req_fake_{number:06d}",
        }
        extra = {} if retry_after is None else {"retry-after": f"{retry_after:g}"}
        self._send_json(status, body, number, extra)

    def _send_json(
        self, status: int, payload: Any, number: int, extra: dict[str, str] | None = None
    ) -> None:
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        self.send_header("request-id", f"req_fake_{number:06d}")
        for name, value in (extra or {}).items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(data)
        self.wfile.flush()

    def _send_bytes(self, status: int, data: bytes, number: int, content_type: str) -> None:
        self.send_response(status)
        self.send_header("content-type", content_type)
        self.send_header("content-length", str(len(data)))
        self.send_header("request-id", f"req_fake_{number:06d}")
        self.end_headers()
        self.wfile.write(data)
        self.wfile.flush()

    def _abort(self) -> None:
        self.close_connection = True
        with suppress(OSError):
            self.connection.shutdown(socket.SHUT_RDWR)
        self.connection.close()


_ERROR_MESSAGES = {
    "rate_limit_error": "Number of request tokens has exceeded your per-minute rate limit.",
    "overloaded_error": "Overloaded",
    "api_error": "Internal server error",
    "invalid_request_error": "Invalid request",
    "authentication_error": "invalid x-api-key",
    "not_found_error": "Not found",
}


def answer_message(fake: FakeMessagesServer, body: dict[str, Any], number: int) -> Any:
    """The Message the brain answers to a valid request body (billed through the prompt
    cache), or None when a scripted brain failed."""
    try:
        block, stop_reason = _generate(fake.brain, body, number)
    except Exception:
        return None
    output = block.get("text") if block["type"] == "text" else json.dumps(block["input"])
    usage = {**fake.cache.account(body), "output_tokens": count_tokens(output or "")}
    return {
        "id": f"msg_fake_{number:06d}",
        "type": "message",
        "role": "assistant",
        "model": body["model"],
        "content": [block],
        "stop_reason": stop_reason,
        "stop_sequence": None,
        "usage": usage,
    }


def valid_body(body: Any) -> bool:
    """Whether a Messages request body is one the service accepts."""
    return _valid_body(body)


def _valid_body(body: Any) -> bool:
    if not isinstance(body, dict) or not isinstance(body.get("model"), str):
        return False
    if not isinstance(body.get("max_tokens"), int) or body["max_tokens"] < 1:
        return False
    messages = body.get("messages")
    if not isinstance(messages, list) or not messages or messages[-1].get("role") != "user":
        return False
    sampling = any(name in body for name in ("temperature", "top_p", "top_k"))
    if sampling and body["model"].startswith(SAMPLING_DEPRECATED):
        return False
    choice = body.get("tool_choice") or {}
    tool_names = {tool.get("name") for tool in body.get("tools") or []}
    if choice.get("type") == "tool" and choice.get("name") not in tool_names:
        return False
    try:
        breakpoints = sum(unit.breakpoint for unit in _units(body))
    except (KeyError, TypeError, AttributeError):
        return False
    return breakpoints <= MAX_CACHE_BREAKPOINTS


def _generate(brain: Brain, body: dict[str, Any], number: int) -> tuple[dict[str, Any], str]:
    request = BrainRequest.from_body(body)
    choice = body.get("tool_choice") or {}
    if choice.get("type") == "tool":
        block = {
            "type": "tool_use",
            "id": f"toolu_fake_{number:06d}",
            "name": choice["name"],
            "input": brain.verdicts(request),
        }
        return block, "tool_use"
    text = brain.draft(request)
    limit = body["max_tokens"] * 4
    if count_tokens(text) > body["max_tokens"]:
        return {"type": "text", "text": text[:limit]}, "max_tokens"
    return {"type": "text", "text": text}, "end_turn"


class _SseWriter:
    """Writes the event sequence of a streamed message with chunked transfer encoding."""

    def __init__(self, handler: _Handler, number: int) -> None:
        self.handler = handler
        self.number = number

    def send(self, message: dict[str, Any], fault: Fault | None, pacing: Pacing) -> None:
        handler, wait = self.handler, self.handler.fake.stopping.wait
        handler.send_response(200)
        handler.send_header("content-type", "text/event-stream")
        handler.send_header("cache-control", "no-cache")
        handler.send_header("request-id", f"req_fake_{self.number:06d}")
        handler.send_header("transfer-encoding", "chunked")
        handler.end_headers()
        if fault and fault.kind == "slow_first_event":
            wait(fault.delay_s)
        block, usage = message["content"][0], message["usage"]
        start_usage = {**usage, "output_tokens": 1}
        start = {**message, "content": [], "stop_reason": None, "usage": start_usage}
        self.event("message_start", {"type": "message_start", "message": start})
        empty = {**block, "text": ""} if block["type"] == "text" else {**block, "input": {}}
        self.event(
            "content_block_start",
            {"type": "content_block_start", "index": 0, "content_block": empty},
        )
        self.event("ping", {"type": "ping"})
        pieces = _pieces(block, pacing.chunk_chars)
        wait(pacing.first_token_s)
        for position, delta in enumerate(pieces):
            if fault and position == fault.after_deltas and self._break_off(fault):
                return
            if position:
                wait(pacing.delta_s)
            self.event(
                "content_block_delta", {"type": "content_block_delta", "index": 0, "delta": delta}
            )
        if fault and self._break_off(fault):  # fewer deltas than after_deltas: fail at the end
            return
        self.event("content_block_stop", {"type": "content_block_stop", "index": 0})
        final = {"stop_reason": message["stop_reason"], "stop_sequence": None}
        self.event("message_delta", {"type": "message_delta", "delta": final, "usage": usage})
        self.event("message_stop", {"type": "message_stop"})
        self.chunk(b"")

    def _break_off(self, fault: Fault) -> bool:
        if fault.kind not in ("midstream_error", "drop"):
            return False
        if fault.kind == "drop":
            self.handler._abort()
            return True
        error = {"type": fault.error_type, "message": _ERROR_MESSAGES[fault.error_type]}
        self.event("error", {"type": "error", "error": error})
        self.chunk(b"")
        self.handler.close_connection = True
        return True

    def event(self, name: str, data: dict[str, Any]) -> None:
        self.chunk(f"event: {name}\ndata: {json.dumps(data)}\n\n".encode())

    def chunk(self, data: bytes) -> None:
        wfile = self.handler.wfile
        wfile.write(f"{len(data):X}\r\n".encode() + data + b"\r\n")
        wfile.flush()


def _pieces(block: dict[str, Any], size: int) -> list[dict[str, Any]]:
    if block["type"] == "text":
        text = block["text"]
        return [
            {"type": "text_delta", "text": text[i : i + size]} for i in range(0, len(text), size)
        ]
    raw = json.dumps(block["input"])
    return [
        {"type": "input_json_delta", "partial_json": raw[i : i + size]}
        for i in range(0, len(raw), size)
    ]
