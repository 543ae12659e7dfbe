"""`make run`: the whole app on one machine (web, worker, beat, and Redis when none is given).

Uses DATABASE_URL / REDIS_URL when set; otherwise SQLite under var/ and an embedded Redis
server. A process that dies is started again after a growing pause (1, 2, 4 … 30 s; back to 1 s
once it has stayed up a minute). Ctrl-C or SIGTERM stops every process it started, and the
launcher exits 0.

The web server is CLAUSEWISE_WEB_PROCESSES uvicorn processes (2 by default: one Python process
is bound by its interpreter) sharing one listening socket that the launcher binds before
starting them (``reviewapp.web``: uvicorn on an inherited socket). Each is a child of the
launcher, watched and restarted on its own, and while one restarts the others go on answering
on the same port. (uvicorn's own `--workers` supervisor was not used: the launcher would watch
only that supervisor, and a `kill -9` of it leaves its workers behind.)

The terminal is for the person starting it: Celery without its banner at CELERY_LOG_LEVEL
(WARNING), the web server without access logs unless CLAUSEWISE_ACCESS_LOG=1, and the demo
users' once-only passwords in a box when the web server first answers.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from types import FrameType

from django.core.exceptions import ImproperlyConfigured

from reviewapp.embedded import _die_with_parent, start_redis
from reviewapp.settings.env import env_bool, env_int

ROOT = Path(__file__).resolve().parent.parent
VAR = Path(os.environ.get("CLAUSEWISE_VAR_DIR", ROOT / "var"))
FIRST_PAUSE_S = 1.0
LONGEST_PAUSE_S = 30.0
STEADY_AFTER_S = 60.0


@dataclass
class Child:
    """One supervised process and its restart state."""

    name: str
    start: Callable[[], subprocess.Popen[bytes]]
    process: subprocess.Popen[bytes] | None = None
    started_at: float = 0.0
    failures: int = 0
    restart_at: float | None = None

    def launch(self) -> None:
        self.process = self.start()
        self.started_at = time.monotonic()
        self.restart_at = None

    def watch(self, now: float) -> None:
        """Notice a death and schedule the restart; restart when its pause is over."""
        if self.restart_at is not None:
            if now >= self.restart_at:
                self._relaunch(now)
            return
        assert self.process is not None
        code = self.process.poll()
        if code is not None:
            if now - self.started_at >= STEADY_AFTER_S:
                self.failures = 0
            pause = self._pause()
            print(
                f"{self.name} (pid {self.process.pid}) died ({_how(code)}); "
                f"restarting it in {pause:g} s.",
                file=sys.stderr,
                flush=True,
            )

    def _pause(self) -> float:
        pause = min(FIRST_PAUSE_S * 2**self.failures, LONGEST_PAUSE_S)
        self.failures += 1
        self.restart_at = time.monotonic() + pause
        return pause

    def _relaunch(self, now: float) -> None:
        try:
            self.launch()
        except Exception as exc:  # e.g. Redis did not answer in time: try again later
            self.started_at = now
            print(
                f"{self.name} did not start ({exc}); trying again in {self._pause():g} s.",
                file=sys.stderr,
                flush=True,
            )
            return
        assert self.process is not None
        print(f"{self.name} restarted (pid {self.process.pid}).", file=sys.stderr, flush=True)


def _how(code: int) -> str:
    if code < 0:
        return f"killed by {signal.Signals(-code).name}"
    return f"exit status {code}"


def _manage(*args: str) -> None:
    subprocess.run([sys.executable, str(ROOT / "manage.py"), *args], check=True, cwd=ROOT)


def _seed_demo() -> tuple[str, dict[str, str]]:
    """The demo organisation and the passwords of the users created now (none once seeded)."""
    output = subprocess.run(
        [sys.executable, str(ROOT / "manage.py"), "seed_demo", "--json"],
        check=True,
        cwd=ROOT,
        stdout=subprocess.PIPE,
        text=True,
    ).stdout
    seeded = json.loads(output.strip().splitlines()[-1])
    return seeded["organisation"], seeded["passwords"]


def _answers(url: str) -> bool:
    try:
        with urllib.request.urlopen(f"{url}healthz", timeout=1) as response:
            return response.status == 200
    except OSError:
        return False


def ready_box(url: str, organisation: str, passwords: dict[str, str]) -> str:
    """What the terminal shows once the app answers: where it is and, the first time only,
    how to sign in."""
    lines = [f"Clausewise is ready: {url}", ""]
    if passwords:
        lines.append(f"Sign in to {organisation} with (shown only this once, note them now):")
        lines += [f"  {username:<10} {password}" for username, password in passwords.items()]
        if "admin" in passwords:  # an organisation admin: two-factor sign-in is required
            lines.append("The admin also sets up two-factor sign-in (an authenticator app).")
    else:
        lines.append(f"{organisation} was seeded before; its passwords were shown then.")
    lines += ["", "Ctrl-C stops it."]
    width = max(len(line) for line in lines)
    rule = "+" + "-" * (width + 2) + "+"
    return "\n".join([rule, *(f"| {line:<{width}} |" for line in lines), rule])


def web_socket(host: str, port: int) -> socket.socket:
    """The web server's listening socket; the web processes get it through ``pass_fds``."""
    family, kind, proto, _, address = socket.getaddrinfo(
        host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE
    )[0]
    listener = socket.socket(family, kind, proto)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        listener.bind(address)
    except OSError:
        listener.close()
        raise
    listener.listen(2048)  # uvicorn's own backlog
    return listener


def web_command(
    fd: int, *, log_level: str = "warning", access_log: bool | None = None
) -> list[str]:
    """One web process (``reviewapp.web``) serving the ASGI application on socket ``fd``;
    access log as CLAUSEWISE_ACCESS_LOG says unless ``access_log`` is given."""
    if access_log is None:
        access_log = env_bool("CLAUSEWISE_ACCESS_LOG", False)
    command = [sys.executable, "-m", "reviewapp.web", "--fd", str(fd), "--log-level", log_level]
    return [*command, "--access-log"] if access_log else command


def web_process_count() -> int:
    return env_int("CLAUSEWISE_WEB_PROCESSES", 2, minimum=1)


def _processes(web_fd: int, count: int) -> dict[str, list[str]]:
    python = sys.executable
    concurrency = os.environ.get("CELERY_CONCURRENCY", "2")
    celery_level = os.environ.get("CELERY_LOG_LEVEL", "WARNING")
    web = {f"web {n}" if count > 1 else "web": web_command(web_fd) for n in range(1, count + 1)}
    return {
        **web,
        "worker": [
            python, "-m", "celery", "-A", "reviewapp", "--quiet", "worker",
            "--loglevel", celery_level,
            "--queues", "ingest,model,default,ocr", "--concurrency", concurrency,
        ],
        "beat": [
            python, "-m", "celery", "-A", "reviewapp", "--quiet", "beat",
            "--loglevel", celery_level,
            "--schedule", str(VAR / "celerybeat-schedule"),
        ],
    }  # fmt: skip


def _spawn(command: list[str], pass_fds: tuple[int, ...] = ()) -> subprocess.Popen[bytes]:
    # A process group of its own: the terminal's Ctrl-C reaches only the launcher, which then
    # stops the children in order, instead of all of them at once with Redis first.
    return subprocess.Popen(
        command,
        cwd=ROOT,
        stdin=subprocess.DEVNULL,
        process_group=0,
        preexec_fn=_die_with_parent,
        pass_fds=pass_fds,
    )


def _start_redis(port: int) -> subprocess.Popen[bytes]:
    # Redis stays in the terminal's process group (start_redis starts it), so it starts with
    # SIGINT blocked: it must outlive the processes that use it while they shut down, and is
    # stopped last with SIGTERM.
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        process, os.environ["REDIS_URL"] = start_redis(VAR / "redis", port, persist=True)
    finally:
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
    return process


def _interrupt(signum: int, frame: FrameType | None) -> None:
    raise KeyboardInterrupt


def main() -> int:
    VAR.mkdir(parents=True, exist_ok=True)
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "reviewapp.settings.local")
    signal.signal(signal.SIGTERM, _interrupt)  # during start-up, the same as Ctrl-C
    host = os.environ.get("CLAUSEWISE_HOST", "127.0.0.1")
    port = os.environ.get("CLAUSEWISE_PORT", "8000")
    try:  # first, so that a wrong setting or a port in use is said before anything starts
        web_processes = web_process_count()
    except ImproperlyConfigured as exc:
        print(f"Start-up failed: {exc}.")
        return 1
    try:
        listener = web_socket(host, int(port))
    except (OSError, ValueError) as exc:
        reason = getattr(exc, "strerror", None) or exc
        print(f"Start-up failed: cannot listen on {host}:{port} ({reason}); "
              "stop what uses it or set CLAUSEWISE_PORT.")  # fmt: skip
        return 1
    children: list[Child] = []
    try:
        if not os.environ.get("REDIS_URL"):
            redis = Child(
                "redis", partial(_start_redis, int(os.environ.get("EMBEDDED_REDIS_PORT", "6390")))
            )
            children.append(redis)
            redis.launch()
            print(f"Embedded Redis at {os.environ['REDIS_URL']}", flush=True)
        print("Preparing the database…", flush=True)
        _manage("migrate", "--noinput", "--verbosity", "0")
        organisation, passwords = _seed_demo()
        for name, command in _processes(listener.fileno(), web_processes).items():
            fds = (listener.fileno(),) if name.startswith("web") else ()
            children.append(Child(name, partial(_spawn, command, fds)))
            children[-1].launch()
        url = f"http://{host}:{port}/"
        print(f"Starting the web server, worker and scheduler on {url} …", flush=True)
        box = ready_box(url, organisation, passwords)
        _supervise(children, ready=partial(_answers, url), announce=partial(print, box, flush=True))
    except KeyboardInterrupt:
        pass
    except subprocess.CalledProcessError as failed:
        step = " ".join(Path(part).name for part in failed.cmd[1:3])
        print(f"Start-up failed: {step} exited with status {failed.returncode} (see above).")
        return 1
    finally:
        signal.signal(signal.SIGINT, signal.SIG_IGN)  # a second Ctrl-C does not cut this short
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        _stop([child for child in children if child.name != "redis"])
        _stop([child for child in children if child.name == "redis"])
        listener.close()
    return 0


def _supervise(
    children: list[Child], *, ready: Callable[[], bool], announce: Callable[[], object]
) -> None:
    """Watch the children until SIGINT or SIGTERM arrives; `announce` once `ready` holds."""
    received: list[int] = []
    announced = False

    def request_stop(signum: int, frame: FrameType | None) -> None:
        received.append(signum)

    signal.signal(signal.SIGINT, request_stop)
    signal.signal(signal.SIGTERM, request_stop)
    while not received:
        for child in children:
            child.watch(time.monotonic())
        if not announced and ready():
            announce()
            announced = True
        time.sleep(0.5)
    print(f"{signal.Signals(received[0]).name}: stopping Clausewise.", flush=True)


def _stop(children: list[Child]) -> None:
    processes = [child.process for child in children if child.process is not None]
    for process in processes:
        if process.poll() is None:
            process.terminate()
    deadline = time.monotonic() + 10
    for process in processes:
        try:
            process.wait(timeout=max(deadline - time.monotonic(), 0.1))
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


if __name__ == "__main__":
    sys.exit(main())
