"""`make run`: the whole app on one machine (web, worker, beat, and Redis when none is given).

Uses DATABASE_URL / REDIS_URL when set; otherwise SQLite under var/ and an embedded Redis
server. Ctrl-C stops every process it started.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from reviewapp.embedded import start_redis

ROOT = Path(__file__).resolve().parent.parent
VAR = Path(os.environ.get("CLAUSEWISE_VAR_DIR", ROOT / "var"))


def _manage(*args: str) -> None:
    subprocess.run([sys.executable, str(ROOT / "manage.py"), *args], check=True, cwd=ROOT)


def _processes(host: str, port: str) -> dict[str, list[str]]:
    python = sys.executable
    concurrency = os.environ.get("CELERY_CONCURRENCY", "2")
    return {
        "web": [
            python, "-m", "uvicorn", "reviewapp.asgi:application",
            "--host", host, "--port", port, "--ws", "websockets-sansio", "--lifespan", "off",
        ],
        "worker": [
            python, "-m", "celery", "-A", "reviewapp", "worker", "--loglevel", "INFO",
            "--queues", "ingest,model,default", "--concurrency", concurrency,
        ],
        "beat": [
            python, "-m", "celery", "-A", "reviewapp", "beat", "--loglevel", "INFO",
            "--schedule", str(VAR / "celerybeat-schedule"),
        ],
    }  # fmt: skip


def _stop(children: dict[str, subprocess.Popen[bytes]]) -> None:
    for child in children.values():
        if child.poll() is None:
            child.terminate()
    deadline = time.monotonic() + 10
    for child in children.values():
        try:
            child.wait(timeout=max(deadline - time.monotonic(), 0.1))
        except subprocess.TimeoutExpired:
            child.kill()


def main() -> int:
    VAR.mkdir(parents=True, exist_ok=True)
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "reviewapp.settings.local")
    children: dict[str, subprocess.Popen[bytes]] = {}
    if not os.environ.get("REDIS_URL"):
        redis_port = int(os.environ.get("EMBEDDED_REDIS_PORT", "6390"))
        children["redis"], os.environ["REDIS_URL"] = start_redis(
            VAR / "redis", redis_port, persist=True
        )
        print(f"Embedded Redis at {os.environ['REDIS_URL']}", flush=True)
    try:
        _manage("migrate", "--noinput")
        _manage("seed_demo")
        host = os.environ.get("CLAUSEWISE_HOST", "127.0.0.1")
        port = os.environ.get("CLAUSEWISE_PORT", "8000")
        for name, command in _processes(host, port).items():
            children[name] = subprocess.Popen(command, cwd=ROOT)
        print(f"Clausewise is running on http://{host}:{port}/  (Ctrl-C stops it)", flush=True)
        return _supervise(children)
    except KeyboardInterrupt:
        return 0
    finally:
        _stop({k: v for k, v in children.items() if k != "redis"})
        _stop({k: v for k, v in children.items() if k == "redis"})


def _supervise(children: dict[str, subprocess.Popen[bytes]]) -> int:
    signal.signal(signal.SIGTERM, lambda *_: (_ for _ in ()).throw(KeyboardInterrupt()))
    while True:
        for name, child in children.items():
            code = child.poll()
            if code is not None:
                print(f"{name} exited with status {code}; stopping the rest.", file=sys.stderr)
                return code or 1
        time.sleep(0.5)


if __name__ == "__main__":
    sys.exit(main())
