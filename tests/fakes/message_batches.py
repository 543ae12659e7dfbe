"""The Message Batches endpoints of the local Messages API server (tests/fakes/messages_server.py).

What the real SDK calls (anthropic ``client.messages.batches``)::

    POST /v1/messages/batches                    {"requests": [{"custom_id", "params"}]}
    GET  /v1/messages/batches/{id}               the MessageBatch (poll until "ended")
    POST /v1/messages/batches/{id}/cancel        "canceling", then "ended"
    GET  {results_url}                           JSONL: {"custom_id", "result": {"type", ...}}

A batch is processed in the background ``delay_s`` seconds after it was created (all requests at
once, in order, through the server's brain and prompt cache, so caching is billed as for live
calls). Until then it is ``in_progress`` with every request ``processing``. Each request's params
are validated like a live request; an invalid one (or one asking to stream) ends ``errored``
with ``invalid_request_error``. Faults: ``server.batches.inject(BatchFault.expired(match))``
makes the requests whose custom_id ``match`` accepts end ``expired`` (or ``errored`` with an
error type, or ``canceled``); ``every`` picks every n-th request. Usage of each processed request
is in ``server.batches.processed`` (not in ``server.requests``, which holds HTTP calls).
"""

from __future__ import annotations

import itertools
import json
import re
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from tests.fakes.messages_server import FakeMessagesServer

BATCHES_PATH = "/v1/messages/batches"
_BATCH_PATH = re.compile(r"^/v1/messages/batches/([A-Za-z0-9_]+)(/results|/cancel)?$")
_CUSTOM_ID = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")
MAX_REQUESTS = 100_000


@dataclass(frozen=True)
class BatchFault:
    """How the requests a fault matches end instead of succeeding."""

    kind: str  # errored | expired | canceled
    match: Callable[[str], bool]
    error_type: str = "api_error"

    @classmethod
    def errored(cls, match: Callable[[str], bool], error_type: str = "api_error") -> BatchFault:
        return cls("errored", match, error_type)

    @classmethod
    def expired(cls, match: Callable[[str], bool]) -> BatchFault:
        return cls("expired", match)

    @classmethod
    def canceled(cls, match: Callable[[str], bool]) -> BatchFault:
        return cls("canceled", match)


def every(n: int, *, start: int = 0) -> Callable[[str], bool]:
    """A matcher for every n-th request the server processes (counted across batches)."""
    counter = itertools.count()
    lock = threading.Lock()

    def match(_custom_id: str) -> bool:
        with lock:
            position = next(counter)
        return position >= start and (position - start) % n == 0

    return match


@dataclass
class ProcessedRequest:
    batch_id: str
    custom_id: str
    body: dict[str, Any]
    result_type: str
    usage: dict[str, int] | None = None


@dataclass
class _Batch:
    id: str
    requests: list[dict[str, Any]]
    created_at: datetime
    status: str = "in_progress"
    cancel_initiated_at: datetime | None = None
    ended_at: datetime | None = None
    results: list[dict[str, Any]] = field(default_factory=list)
    timer: threading.Timer | None = None

    def counts(self) -> dict[str, int]:
        counts = dict.fromkeys(("processing", "succeeded", "errored", "canceled", "expired"), 0)
        if self.status != "ended":
            counts["processing"] = len(self.requests)
            return counts
        for line in self.results:
            counts[line["result"]["type"]] += 1
        return counts


class BatchStore:
    """The server's batches; settings for tests: ``delay_s`` and ``inject``."""

    def __init__(self, server: FakeMessagesServer) -> None:
        self.server = server
        self.delay_s = 0.05
        self.faults: list[BatchFault] = []
        self.processed: list[ProcessedRequest] = []
        self._batches: dict[str, _Batch] = {}
        self._lock = threading.Lock()
        self._ids = itertools.count(1)

    def inject(self, fault: BatchFault) -> None:
        with self._lock:
            self.faults.append(fault)

    def clear(self) -> None:
        with self._lock:
            self.faults.clear()
            self.processed.clear()

    def stop(self) -> None:
        with self._lock:
            for batch in self._batches.values():
                if batch.timer is not None:
                    batch.timer.cancel()

    def usage_totals(self) -> dict[str, int]:
        names = ("input_tokens", "output_tokens", "cache_read_input_tokens")
        totals = dict.fromkeys((*names, "cache_creation_input_tokens"), 0)
        for request in self.processed:
            for name in totals:
                totals[name] += (request.usage or {}).get(name, 0)
        return {**totals, "requests": len(self.processed)}

    # ---------------------------------------------------------------- endpoints

    def create(self, body: Any) -> tuple[int, dict[str, Any]]:
        requests = body.get("requests") if isinstance(body, dict) else None
        if not isinstance(requests, list) or not 0 < len(requests) <= MAX_REQUESTS:
            return 400, _error("invalid_request_error", "requests: between 1 and 100000 items")
        ids = [r.get("custom_id") if isinstance(r, dict) else None for r in requests]
        if not all(isinstance(i, str) and _CUSTOM_ID.match(i) for i in ids):
            return 400, _error("invalid_request_error", "custom_id: ^[a-zA-Z0-9_-]{1,64}$")
        if len(set(ids)) != len(ids):
            return 400, _error("invalid_request_error", "custom_id values must be unique")
        batch = _Batch(
            id=f"msgbatch_fake_{next(self._ids):06d}",
            requests=requests,
            created_at=datetime.now(UTC),
        )
        batch.timer = threading.Timer(self.delay_s, self._process, args=(batch,))
        batch.timer.daemon = True
        with self._lock:
            self._batches[batch.id] = batch
        batch.timer.start()
        return 200, self._view(batch)

    def retrieve(self, batch_id: str) -> tuple[int, dict[str, Any]]:
        batch = self._batches.get(batch_id)
        if batch is None:
            return 404, _error("not_found_error", f"No batch {batch_id}")
        with self._lock:
            return 200, self._view(batch)

    def cancel(self, batch_id: str) -> tuple[int, dict[str, Any]]:
        batch = self._batches.get(batch_id)
        if batch is None:
            return 404, _error("not_found_error", f"No batch {batch_id}")
        with self._lock:
            if batch.status == "in_progress":
                batch.status = "canceling"
                batch.cancel_initiated_at = datetime.now(UTC)
                if batch.timer is not None:
                    batch.timer.cancel()
                threading.Thread(target=self._process, args=(batch,), daemon=True).start()
            return 200, self._view(batch)

    def results(self, batch_id: str) -> tuple[int, bytes | dict[str, Any]]:
        batch = self._batches.get(batch_id)
        if batch is None:
            return 404, _error("not_found_error", f"No batch {batch_id}")
        with self._lock:
            if batch.status != "ended":
                return 400, _error("invalid_request_error", "The batch is still processing.")
            lines = [json.dumps(line) for line in batch.results]
        return 200, ("\n".join(lines) + "\n").encode()

    # ---------------------------------------------------------------- processing

    def _process(self, batch: _Batch) -> None:
        with self._lock:
            if batch.status == "ended":
                return
            canceling = batch.status == "canceling"
            faults = list(self.faults)
        results = [self._one(batch, request, canceling, faults) for request in batch.requests]
        with self._lock:
            batch.results = results
            batch.status = "ended"
            batch.ended_at = datetime.now(UTC)

    def _one(
        self, batch: _Batch, request: dict[str, Any], canceling: bool, faults: list[BatchFault]
    ) -> dict[str, Any]:
        from tests.fakes.messages_server import answer_message, valid_body

        custom_id, params = request["custom_id"], request.get("params")
        matched = [f for f in faults if f.match(custom_id)]  # every matcher sees every request
        fault = matched[0] if matched else None
        kind = "canceled" if canceling else (fault.kind if fault else "succeeded")
        result: dict[str, Any] = {"type": kind}
        usage = None
        if kind == "succeeded" and (not valid_body(params) or params.get("stream")):
            kind, result = "errored", _errored("invalid_request_error")
        elif kind == "succeeded":
            number = self.server.record_number()
            message = answer_message(self.server, params, number)
            if message is None:
                kind, result = "errored", _errored("api_error")
            else:
                usage = message["usage"]
                result = {"type": "succeeded", "message": message}
        elif kind == "errored":
            result = _errored(fault.error_type if fault else "api_error")
        self.processed.append(
            ProcessedRequest(batch.id, custom_id, params if isinstance(params, dict) else {}, kind)
        )
        self.processed[-1].usage = usage
        return {"custom_id": custom_id, "result": result}

    def _view(self, batch: _Batch) -> dict[str, Any]:
        ended = batch.status == "ended"
        return {
            "id": batch.id,
            "type": "message_batch",
            "processing_status": batch.status,
            "request_counts": batch.counts(),
            "created_at": _iso(batch.created_at),
            "expires_at": _iso(batch.created_at + timedelta(hours=24)),
            "ended_at": _iso(batch.ended_at) if batch.ended_at else None,
            "cancel_initiated_at": _iso(batch.cancel_initiated_at)
            if batch.cancel_initiated_at
            else None,
            "archived_at": None,
            "results_url": f"{self.server.url}{BATCHES_PATH}/{batch.id}/results" if ended else None,
        }


def _iso(moment: datetime) -> str:
    return moment.isoformat().replace("+00:00", "Z")


def _error(error_type: str, message: str) -> dict[str, Any]:
    return {"type": "error", "error": {"type": error_type, "message": message}}


def _errored(error_type: str) -> dict[str, Any]:
    return {"type": "errored", "error": _error(error_type, error_type)}


def route(store: BatchStore, method: str, path: str, body: Any) -> tuple[int, Any] | None:
    """The answer to a batch endpoint, or None when ``path`` is not one."""
    if method == "POST" and path == BATCHES_PATH:
        return store.create(body)
    found = _BATCH_PATH.match(path)
    if found is None:
        return None
    batch_id, tail = found.groups()
    if method == "GET" and tail is None:
        return store.retrieve(batch_id)
    if method == "GET" and tail == "/results":
        return store.results(batch_id)
    if method == "POST" and tail == "/cancel":
        return store.cancel(batch_id)
    return 404, _error("not_found_error", "Not found")
