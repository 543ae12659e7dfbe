"""`make run`'s launcher: a process that dies is restarted, and Ctrl-C stops everything cleanly."""

from __future__ import annotations

import http.cookiejar
import json
import os
import re
import signal
import socket
import subprocess
import sys
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path

import pytest

from reviewapp.embedded import free_port
from tests.processes import wait_until

ROOT = Path(__file__).resolve().parent.parent

pytestmark = pytest.mark.worker


def _healthy(url: str) -> bool:
    try:
        with urllib.request.urlopen(f"{url}/healthz", timeout=2) as response:
            return json.load(response) == {"database": True, "redis": True}
    except OSError:
        return False


def _children(pid: int) -> dict[int, str]:
    listing = subprocess.run(
        ["ps", "-ww", "--ppid", str(pid), "-o", "pid=,args="], capture_output=True, text=True
    ).stdout
    return {int(line.split(None, 1)[0]): line.split(None, 1)[1] for line in listing.splitlines()}


def _running(pid: int, command: str) -> list[int]:
    return sorted(child for child, args in _children(pid).items() if command in args)


def _child(pid: int, command: str) -> int | None:
    found = _running(pid, command)
    assert len(found) <= 1, found
    return found[0] if found else None


def _descendants(pid: int) -> set[int]:
    found = set()
    for child in _children(pid):
        found |= {child, *_descendants(child)}
    return found


def _alive(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"  # a zombie has finished


def _launcher_env(var_dir: Path, web_port: int, redis_port: int) -> dict[str, str]:
    env = {
        name: value
        for name, value in os.environ.items()
        if name not in ("REDIS_URL", "DATABASE_URL", "DJANGO_SETTINGS_MODULE")
    }
    env.update(
        CLAUSEWISE_VAR_DIR=str(var_dir),
        CLAUSEWISE_HOST="127.0.0.1",
        CLAUSEWISE_PORT=str(web_port),
        EMBEDDED_REDIS_PORT=str(redis_port),
        CELERY_CONCURRENCY="1",
        PYTHONUNBUFFERED="1",
    )
    return env


def test_killed_web_process_and_redis_come_back_and_ctrl_c_stops_everything(tmp_path):
    web_port, redis_port = free_port(), free_port()
    url = f"http://127.0.0.1:{web_port}"
    log_path = tmp_path / "launcher.log"
    with log_path.open("wb") as log:
        launcher = subprocess.Popen(
            [sys.executable, "-m", "reviewapp.launcher"],
            cwd=ROOT,
            env=_launcher_env(tmp_path / "var", web_port, redis_port),
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # its own process group, like a terminal's foreground job
        )
    started: set[int] = set()
    try:
        assert wait_until(lambda: _healthy(url), timeout_s=240), log_path.read_text()[-3000:]
        webs = _running(launcher.pid, "reviewapp.web")
        assert len(webs) == 2, _children(launcher.pid)  # two web processes on one socket
        started = _descendants(launcher.pid)

        os.kill(webs[0], signal.SIGKILL)

        restart = (
            rf"^web [12] \(pid {webs[0]}\) died \(killed by SIGKILL\); restarting it in 1 s\.$"
        )
        assert wait_until(lambda: re.search(restart, log_path.read_text(), re.M), timeout_s=10)
        # The other web process answers while this one restarts (a first try may time out on
        # a loaded machine: try again until the killed one is back).
        restarted = "restarted (pid"
        assert wait_until(
            lambda: restarted not in log_path.read_text() and _healthy(url), timeout_s=10
        ), log_path.read_text()[-3000:]
        assert wait_until(
            lambda: len(set(_running(launcher.pid, "reviewapp.web")) - {webs[0]}) == 2, timeout_s=30
        ), log_path.read_text()[-3000:]
        assert wait_until(lambda: _healthy(url), timeout_s=60), log_path.read_text()[-3000:]
        started |= _descendants(launcher.pid)

        redis = _child(launcher.pid, "redis-server")
        os.kill(redis, signal.SIGKILL)

        assert wait_until(lambda: f"redis (pid {redis}) died" in log_path.read_text(), 10)
        assert wait_until(lambda: _child(launcher.pid, "redis-server") not in (None, redis), 10)
        assert wait_until(lambda: _healthy(url), timeout_s=60), log_path.read_text()[-3000:]
        started |= _descendants(launcher.pid)

        os.killpg(launcher.pid, signal.SIGINT)  # what Ctrl-C sends to the terminal's job

        assert launcher.wait(timeout=40) == 0
        assert wait_until(lambda: not any(_alive(pid) for pid in started), timeout_s=10)
        _, stopping = log_path.read_text().split("SIGINT: stopping Clausewise.\n")
        assert not re.search(r"^Traceback", stopping, re.MULTILINE), stopping[-3000:]
    finally:
        if launcher.poll() is None:
            os.killpg(launcher.pid, signal.SIGKILL)
            launcher.wait()
        for pid in started | _descendants(launcher.pid):
            if _alive(pid):
                os.kill(pid, signal.SIGKILL)


def _sign_in(url: str, username: str, password: str) -> urllib.request.OpenerDirector:
    jar = http.cookiejar.CookieJar()
    opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(jar))
    page = opener.open(f"{url}/login/", timeout=10).read().decode()
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page).group(1)
    form = urllib.parse.urlencode(
        {"username": username, "password": password, "csrfmiddlewaretoken": token}
    ).encode()
    request = urllib.request.Request(f"{url}/login/", data=form, headers={"Referer": url + "/"})
    opener.open(request, timeout=10)
    return opener


def _status(opener: urllib.request.OpenerDirector, url: str) -> tuple[int, str]:
    try:
        with opener.open(url, timeout=10) as response:
            return response.status, response.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode()


def test_make_run_shows_the_passwords_once_ready_and_ctrl_c_exits_0_without_tracebacks(tmp_path):
    web_port, redis_port = free_port(), free_port()
    url = f"http://127.0.0.1:{web_port}"
    log_path = tmp_path / "launcher.log"
    with log_path.open("wb") as log:
        launcher = subprocess.Popen(
            [sys.executable, "-m", "reviewapp.launcher"],
            cwd=ROOT,
            env=_launcher_env(tmp_path / "var", web_port, redis_port),
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    try:
        ready = f"| Clausewise is ready: {url}/"
        assert wait_until(lambda: ready in log_path.read_text(), timeout_s=240), (
            log_path.read_text()[-3000:]
        )
        before, box = log_path.read_text().split(ready, 1)
        passwords = dict(re.findall(r"^\|   (reviewer|lawyer|admin) +(\S+) +\|$", box, re.M))
        assert set(passwords) == {"reviewer", "lawyer", "admin"}, box
        assert "shown only this once" in box
        assert not any(password in before for password in passwords.values())
        assert "-------------- celery@" not in log_path.read_text()  # no Celery banner

        reviewer = _sign_in(url, "reviewer", passwords["reviewer"])
        assert _status(reviewer, f"{url}/reports/")[0] == 403
        status, page = _status(reviewer, f"{url}/contracts/999999/")
        assert status == 404 and "Page not found" in page  # the branded page: DEBUG is off
        assert "URLconf" not in page
        assert _status(reviewer, f"{url}/static/css/app.css")[0] == 200  # served with DEBUG off
        assert wait_until(lambda: "Not Found: /contracts/999999/" in log_path.read_text(), 5)
        assert '"GET /reports/ HTTP/1.1"' not in log_path.read_text()  # no access log

        os.killpg(launcher.pid, signal.SIGINT)

        assert launcher.wait(timeout=40) == 0
        output = log_path.read_text()
        assert "Traceback" not in output, output[-3000:]
        assert output.count(passwords["admin"]) == 1
    finally:
        if launcher.poll() is None:
            os.killpg(launcher.pid, signal.SIGKILL)
            launcher.wait()


def test_a_port_in_use_is_said_in_one_line_before_anything_starts(tmp_path):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        done = subprocess.run(
            [sys.executable, "-m", "reviewapp.launcher"],
            cwd=ROOT,
            env=_launcher_env(tmp_path / "var", port, free_port()),
            capture_output=True,
            text=True,
            timeout=60,
        )
    assert done.returncode == 1
    assert done.stdout.strip() == (
        f"Start-up failed: cannot listen on 127.0.0.1:{port} (Address already in use); "
        "stop what uses it or set CLAUSEWISE_PORT."
    ), done.stdout + done.stderr
    assert "Traceback" not in done.stderr
    assert not (tmp_path / "var" / "redis").exists()  # nothing was started


@pytest.mark.parametrize(
    ("value", "said"),
    [
        ("two", "CLAUSEWISE_WEB_PROCESSES must be an integer, got 'two'"),
        ("0", "CLAUSEWISE_WEB_PROCESSES must be at least 1, got 0"),
    ],
)
def test_a_wrong_web_process_count_is_said_in_one_line(tmp_path, value, said):
    env = _launcher_env(tmp_path / "var", free_port(), free_port())
    done = subprocess.run(
        [sys.executable, "-m", "reviewapp.launcher"],
        cwd=ROOT,
        env={**env, "CLAUSEWISE_WEB_PROCESSES": value},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 1
    assert done.stdout.strip() == f"Start-up failed: {said}.", done.stdout + done.stderr
    assert "Traceback" not in done.stderr
