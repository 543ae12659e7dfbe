"""The parent's side of the sandbox: one warm worker process per calling process.

The worker (see `worker.py`) is started with `subprocess`, not forked from the caller: the caller
is a Celery worker with open database and Redis connections, and the new interpreter inherits no
file descriptors but its pipes and stderr. Jobs run one at a time; a job that runs past its
wall-clock limit gets the worker's whole process group killed, and the next job starts a new
worker.
"""

from __future__ import annotations

import contextlib
import os
import selectors
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

from .errors import ExtractionError, Problem
from .protocol import HEADER_BYTES, decode_length, decode_payload, encode_frame

WORKER_MODULE = "reviewapp.text.extraction.worker"
STARTUP_TIMEOUT_S = 60.0
# The worker caps a document's text far below this; a longer frame means a broken worker.
MAX_REPLY_BYTES = 512 * 1024 * 1024
_PROJECT_ROOT = Path(__file__).resolve().parents[3]
_PASSED_VARIABLES = ("PATH", "LANG", "LC_ALL", "LC_CTYPE", "TMPDIR", "PYTHONDONTWRITEBYTECODE")


class _WorkerGone(Exception):
    """The worker closed its output or sent something that is not a reply."""


class _TimedOut(Exception):
    pass


class _Worker:
    def __init__(self) -> None:
        self.owner_pid = os.getpid()
        self.process = subprocess.Popen(
            [sys.executable, "-m", WORKER_MODULE],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            cwd=_PROJECT_ROOT,
            env=_worker_environment(),
            start_new_session=True,  # its own process group, to kill it with its forks
        )
        try:
            self.receive(time.monotonic() + STARTUP_TIMEOUT_S)
        except (_TimedOut, _WorkerGone) as error:
            self.kill()
            # Not the document's fault: a broken installation, worth an alert and a retry.
            raise RuntimeError(f"the extraction worker did not start: {error!r}") from error

    @property
    def pid(self) -> int:
        return self.process.pid

    def send(self, message: dict[str, Any]) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(encode_frame(message))
        self.process.stdin.flush()

    def receive(self, deadline: float) -> dict[str, Any]:
        header = self._read(HEADER_BYTES, deadline)
        length = decode_length(header)
        if length > MAX_REPLY_BYTES:
            raise _WorkerGone(f"reply of {length} bytes")
        try:
            return decode_payload(self._read(length, deadline))
        except ValueError as error:
            raise _WorkerGone(repr(error)) from error

    def _read(self, size: int, deadline: float) -> bytes:
        assert self.process.stdout is not None
        fd = self.process.stdout.fileno()
        chunks: list[bytes] = []
        with selectors.DefaultSelector() as selector:
            selector.register(fd, selectors.EVENT_READ)
            while size > 0:
                remaining = deadline - time.monotonic()
                if remaining <= 0 or not selector.select(remaining):
                    raise _TimedOut
                chunk = os.read(fd, min(size, 1 << 20))
                if not chunk:
                    raise _WorkerGone("end of output")
                chunks.append(chunk)
                size -= len(chunk)
        return b"".join(chunks)

    def kill(self) -> None:
        """Kill the worker and whatever it forked, and reap the worker."""
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait()
        for stream in (self.process.stdin, self.process.stdout):
            if stream is not None:
                stream.close()


_lock = threading.Lock()
_worker: _Worker | None = None


def run_job(job: dict[str, Any], *, timeout_s: float) -> dict[str, Any]:
    """Run one job in the warm worker and return its reply; raise on timeout or crash."""
    with _lock:
        worker = _ready_worker()
        try:
            worker.send(job)
        except OSError:  # the worker died while idle (e.g. killed by the OOM killer)
            _discard_worker()
            worker = _ready_worker()
            worker.send(job)
        try:
            return worker.receive(time.monotonic() + timeout_s)
        except _TimedOut:
            _discard_worker()
            raise ExtractionError.because(Problem.TIMED_OUT, seconds=timeout_s) from None
        except _WorkerGone as error:
            _discard_worker()
            raise ExtractionError.because(Problem.DAMAGED, f"worker failed: {error}") from None


def worker_pid() -> int | None:
    """The warm worker's pid (which is also its process group id), if there is one."""
    return _worker.pid if _worker is not None else None


def _ready_worker() -> _Worker:
    global _worker
    if _worker is not None and _worker.owner_pid != os.getpid():
        _worker = None  # inherited through a fork: it belongs to the parent process
    if _worker is not None and _worker.process.poll() is not None:
        _discard_worker()
    if _worker is None:
        _worker = _Worker()
    return _worker


def _discard_worker() -> None:
    global _worker
    if _worker is not None:
        _worker.kill()
        _worker = None


def _worker_environment() -> dict[str, str]:
    """A minimal environment: no database URL or API key reaches the process that reads
    hostile files."""
    env = {name: os.environ[name] for name in _PASSED_VARIABLES if name in os.environ}
    paths = [str(_PROJECT_ROOT), *filter(None, os.environ.get("PYTHONPATH", "").split(os.pathsep))]
    env["PYTHONPATH"] = os.pathsep.join(paths)
    return env
