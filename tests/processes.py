"""Start the real processes (Celery worker, ASGI web server) against the test database."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from urllib.parse import quote

from django.conf import settings
from django.db import connection

from reviewapp.embedded import free_port
from reviewapp.launcher import web_command, web_socket

ROOT = Path(__file__).resolve().parent.parent


def test_database_url() -> str:
    db = connection.settings_dict
    if db["ENGINE"] == "django.db.backends.sqlite3":
        return f"sqlite:///{db['NAME']}"
    auth = quote(db["USER"] or "")
    if db.get("PASSWORD"):
        auth += ":" + quote(db["PASSWORD"])
    host = db["HOST"] or "127.0.0.1"
    return f"postgres://{auth}@{host}:{db['PORT'] or 5432}/{db['NAME']}"


def child_env(**extra: str) -> dict[str, str]:
    env = dict(os.environ)
    env.update(
        DJANGO_SETTINGS_MODULE="reviewapp.settings.test",
        DATABASE_URL=test_database_url(),
        REDIS_URL=settings.REDIS_URL,
        CLAUSEWISE_CELERY_EAGER="0",
        PYTHONUNBUFFERED="1",
    )
    env.update(extra)
    return env


def stop(process: subprocess.Popen[bytes], sig: int = signal.SIGTERM) -> None:
    if process.poll() is None:
        os.killpg(process.pid, sig)
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()


@contextmanager
def celery_worker(log_path: Path, **env: str) -> Iterator[subprocess.Popen[bytes]]:
    if "REDIS_URL" not in env:
        _purge_test_queues()  # a fresh worker starts on its own test's work, not on leftovers
    command = [
        sys.executable, "-m", "celery", "-A", "reviewapp", "worker", "--loglevel", "INFO",
        "--queues", "ingest,model,default", "--concurrency", "1", "--without-gossip",
        "--without-mingle", "--hostname", f"test-{os.getpid()}-{time.monotonic_ns()}@%h",
    ]  # fmt: skip
    with _child(command, log_path, env) as process:
        yield process


def _purge_test_queues() -> None:
    """Drop messages earlier tests left in the test broker (tasks sent with no worker running):
    a worker would spend the next test's time on them."""
    from reviewapp.celery import app

    with app.connection_for_write() as connection:
        for queue in ("ingest", "model", "default", "ocr"):
            with contextlib.suppress(Exception):  # a queue nobody used does not exist
                connection.default_channel.queue_purge(queue)


@contextmanager
def _child(
    command: list[str], log_path: Path, env: dict[str, str]
) -> Iterator[subprocess.Popen[bytes]]:
    """A process of the app's own, in its own session, logging to ``log_path``; stopped after."""
    with log_path.open("ab") as log:
        process = subprocess.Popen(
            command, cwd=ROOT, env=child_env(**env), stdout=log, stderr=log, start_new_session=True
        )
    try:
        yield process
    finally:
        stop(process)


@contextmanager
def celery_beat(log_path: Path, **env: str) -> Iterator[subprocess.Popen[bytes]]:
    """Beat as `make run` starts it (its schedule file under ``log_path``'s folder)."""
    schedule = log_path.with_suffix(".schedule")
    command = [sys.executable, "-m", "celery", "-A", "reviewapp", "beat", "--loglevel", "INFO",
               "--schedule", str(schedule)]  # fmt: skip
    with _child(command, log_path, env) as process:
        yield process


@contextmanager
def web_server(
    log_path: Path, port: int | None = None, *, log_level: str = "info", **env: str
) -> Iterator[str]:
    """One web process as `make run` starts each of its own (on a socket bound here);
    ``env`` adds to the child's environment."""
    port = port or free_port()  # a fixed port lets a test restart the server under a page
    listener = web_socket("127.0.0.1", port)
    with listener, log_path.open("ab") as log:
        process = subprocess.Popen(
            web_command(listener.fileno(), log_level=log_level, access_log=True),
            cwd=ROOT,
            env=child_env(**env),
            stdout=log,
            stderr=log,
            start_new_session=True,
            pass_fds=(listener.fileno(),),
        )
        url = f"http://127.0.0.1:{port}"
        try:
            _wait_for_http(f"{url}/healthz", process, log_path)
            yield url
        finally:
            stop(process)


def _wait_for_http(url: str, process: subprocess.Popen[bytes], log_path: Path) -> None:
    deadline = time.monotonic() + 60  # a machine busy with parallel tests starts it slowly
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"web server exited:\n{log_path.read_text()[-3000:]}")
        try:
            with urllib.request.urlopen(url, timeout=2):
                return
        except OSError:
            time.sleep(0.2)
    raise RuntimeError(f"web server did not answer:\n{log_path.read_text()[-3000:]}")


def wait_until(predicate, timeout_s: float = 30.0, interval_s: float = 0.2) -> bool:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(interval_s)
    return bool(predicate())
