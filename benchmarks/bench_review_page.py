"""The contract review page under load, served as `make run` serves it, on PostgreSQL.

    DATABASE_URL=postgres://user@host:5432/any .venv/bin/python benchmarks/bench_review_page.py
        [--passages 422] [--large 5000] [--clients 20] [--requests 10]

Targets (issue 13): the review page of a 422-passage contract answers 20 concurrent clients
with p95 at most 1 s; the first response for a 5,000-passage contract is at most 500 KB. The
parts the page fetches afterwards (the list's next window, the redlines section) are measured
under the same load and reported beside it.

The contracts are real CUAD texts (`../shared/data/cuad/txt`, appended one after another until
they hold enough passages), read, scanned with the shipped playbook and reviewed by the
offline engine (draft, verifications, lawyers' queue items), so each passage shows what a user
sees. The page is served by uvicorn exactly as the launcher starts it (CLAUSEWISE_WEB_PROCESSES
processes on one socket, 2 by default; `--web-processes` to compare) from a dedicated database,
`clausewise_bench_review_page`, created for the run and dropped after; each client is a thread
with its own signed-in keep-alive connection. Skipped (exit 0, with a message) when
DATABASE_URL is not PostgreSQL or the CUAD data is absent.
"""

from __future__ import annotations

import argparse
import hashlib
import http.client
import os
import re
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path
from urllib.parse import urlencode

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from _postgres import in_own_database, postgres_url  # noqa: E402

BENCH_DB = "clausewise_bench_review_page"
CUAD_TXT = ROOT.parent / "shared" / "data" / "cuad" / "txt"
TARGET_P95_S = 1.0
TARGET_FIRST_PAGE_BYTES = 500 * 1024
PASSWORD = "bench-password-1"


def _contract_text(passages: int, skip: int = 0) -> str:
    """CUAD texts appended in name order (after ``skip`` of them) until ``passages`` passages."""
    from reviewapp.text.segmentation import segment

    parts: list[str] = []
    count = 0
    for path in sorted(CUAD_TXT.glob("*.txt"))[skip:]:
        parts.append(path.read_text(encoding="utf-8"))
        count += len(segment(parts[-1]))
        if count >= passages + 20:
            break
    text = "\n\n".join(parts)
    pieces = segment(text)
    if len(pieces) > passages:  # cut at the passage after the one we want last
        text = text[: pieces[passages].start]
    return text


def _ingested(matter, name: str, text: str):
    """A contract as ingestion and the offline review leave it: passages, flags, draft,
    verifications and queue items."""
    from reviewapp.contracts.models import Contract, DocumentStatus, Passage
    from reviewapp.reviews.inline import review_model_work_run
    from reviewapp.reviews.services import review_scan
    from reviewapp.text.segmentation import segment

    contract = Contract.objects.create(
        matter=matter,
        original_name=name,
        file=f"contracts/bench/{name}",
        sha256=hashlib.sha256(text.encode()).hexdigest(),
        size=len(text.encode()),
        kind="txt",
        status=DocumentStatus.INGESTED,
        text=text,
        page_count=1,
        page_spans=[[0, len(text)]],
        progress=100,
    )
    Passage.objects.bulk_create(
        Passage(
            contract=contract,
            index=seg.index,
            page=seg.page,
            start=seg.start,
            end=seg.end,
            number=seg.number,
            heading=seg.heading[:300],
            is_heading=seg.is_heading,
            text=seg.text,
        )
        for seg in segment(text)
    )
    started = time.perf_counter()
    review = review_scan(contract_id=contract.pk, engine="offline", enqueue=False)
    assert review is not None
    scanned = time.perf_counter()
    review_model_work_run(review_id=review.pk)
    print(
        f"{name}: scanned in {scanned - started:.0f} s, drafted and verified offline in "
        f"{time.perf_counter() - scanned:.0f} s",
        flush=True,
    )
    return contract


def _setup(passages: int, large: int):
    from django.contrib.auth import get_user_model

    from reviewapp.accounts.models import Matter, Membership, Organisation, Role

    org = Organisation.objects.create(name="Bench LLP")
    matter = Matter.objects.create(organisation=org, name="Bench matter")
    user = get_user_model().objects.create_user("bench", password=PASSWORD)
    Membership.objects.create(user=user, matter=matter, role=Role.REVIEWER)
    started = time.perf_counter()
    medium = _ingested(matter, "medium.txt", _contract_text(passages))
    big = _ingested(matter, "large.txt", _contract_text(large, skip=40))
    print(
        f"data: {medium.passages.count()} and {big.passages.count()} passages, "
        f"{medium.review.firings.count()} and {big.review.firings.count()} rule firings "
        f"({time.perf_counter() - started:.0f} s to read and review)",
        flush=True,
    )
    return medium, big


# ---- the server and its clients -----------------------------------------------------------


def _free_port() -> int:
    from reviewapp.embedded import free_port

    return free_port()


def _serve(port: int, count: int, log: Path) -> list[subprocess.Popen[bytes]]:
    """``count`` web processes on one socket, as reviewapp/launcher.py starts them."""
    from reviewapp.launcher import web_command, web_socket

    with web_socket("127.0.0.1", port) as listener, log.open("wb") as out:
        fd = listener.fileno()
        processes = [
            subprocess.Popen(web_command(fd), cwd=ROOT, stdout=out, stderr=out, pass_fds=(fd,))
            for _ in range(count)
        ]
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if any(process.poll() is not None for process in processes):
            _stop(processes)
            raise RuntimeError(f"a web process exited:\n{log.read_text()[-3000:]}")
        try:
            _get(http.client.HTTPConnection("127.0.0.1", port, timeout=2), "/healthz", {})
            return processes
        except OSError:
            time.sleep(0.3)
        except RuntimeError:
            _stop(processes)
            raise
    _stop(processes)
    raise RuntimeError("the server did not answer within 60 s")


def _stop(processes: list[subprocess.Popen[bytes]]) -> None:
    for process in processes:
        process.terminate()
    for process in processes:
        process.wait(timeout=30)


def _get(conn: http.client.HTTPConnection, path: str, cookies: dict[str, str]) -> bytes:
    headers = {"Cookie": "; ".join(f"{k}={v}" for k, v in cookies.items())} if cookies else {}
    conn.request("GET", path, headers=headers)
    response = conn.getresponse()
    body = response.read()
    if response.status != 200:
        raise RuntimeError(f"GET {path}: HTTP {response.status}")
    return body


def _sign_in(port: int) -> dict[str, str]:
    """A session cookie, through the sign-in form like a browser."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    conn.request("GET", "/login/")
    response = conn.getresponse()
    page = response.read().decode()
    cookies = _cookies(response)
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page)
    assert token, "no CSRF token on the sign-in page"
    body = urlencode({"username": "bench", "password": PASSWORD, "csrfmiddlewaretoken": token[1]})
    conn.request(
        "POST",
        "/login/",
        body=body,
        headers={
            "Content-Type": "application/x-www-form-urlencoded",
            "Cookie": "; ".join(f"{k}={v}" for k, v in cookies.items()),
            "Referer": f"http://127.0.0.1:{port}/login/",
        },
    )
    response = conn.getresponse()
    response.read()
    cookies.update(_cookies(response))
    assert response.status == 302 and "sessionid" in cookies, "sign-in failed"
    conn.close()
    return cookies


def _cookies(response: http.client.HTTPResponse) -> dict[str, str]:
    found = {}
    for header, value in response.getheaders():
        if header.lower() == "set-cookie":
            name, _, rest = value.partition("=")
            found[name] = rest.split(";", 1)[0]
    return found


def _load(port: int, path: str, cookies, clients: int, requests: int) -> tuple[list[float], float]:
    """``clients`` threads, each ``requests`` GETs in a row on its own connection."""
    times: list[float] = []
    lock = threading.Lock()
    barrier = threading.Barrier(clients)
    errors: list[BaseException] = []

    def client() -> None:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
        try:
            _get(conn, path, cookies)  # connect and warm before the clock starts
            barrier.wait()
            for _ in range(requests):
                started = time.perf_counter()
                _get(conn, path, cookies)
                with lock:
                    times.append(time.perf_counter() - started)
        except BaseException as error:  # reported below; a thread must not die silently
            errors.append(error)
            barrier.abort()
        finally:
            conn.close()

    threads = [threading.Thread(target=client) for _ in range(clients)]
    started = time.perf_counter()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    if errors:
        raise errors[0]
    return times, time.perf_counter() - started


def _p95(times: list[float]) -> float:
    return statistics.quantiles(times, n=20)[-1] if len(times) > 1 else times[0]


def _measure(medium, big, args: argparse.Namespace, log: Path) -> int:
    port = _free_port()
    servers = _serve(port, args.web_processes, log)
    print(f"{args.web_processes} web process(es)")
    try:
        cookies = _sign_in(port)
        page = f"/contracts/{medium.pk}/"
        alone, alone_s = _load(port, page, cookies, 1, 20)
        print(
            f"one client: p50 {statistics.median(alone) * 1000:.0f} ms, "
            f"{len(alone) / alone_s:.1f} requests/s"
        )
        times, wall = _load(port, page, cookies, args.clients, args.requests)
        p95 = _p95(times)
        print(
            f"{args.clients} concurrent clients ({len(times)} requests): "
            f"p50 {statistics.median(times) * 1000:.0f} ms, p95 {p95 * 1000:.0f} ms, "
            f"max {max(times) * 1000:.0f} ms, {len(times) / wall:.1f} requests/s "
            f"(target p95 <= {TARGET_P95_S * 1000:.0f} ms)"
        )
        # What the page fetches afterwards, under the same load: the list's next window as the
        # reader scrolls, and the redlines section as the reader nears it.
        for label, path in (
            ("the list's next window", f"/contracts/{medium.pk}/passages/?after=200"),
            ("the redlines section", f"/contracts/{medium.pk}/redlines/"),
        ):
            part_times, part_wall = _load(port, path, cookies, args.clients, args.requests)
            print(
                f"{label} at {args.clients} concurrent clients: "
                f"p50 {statistics.median(part_times) * 1000:.0f} ms, "
                f"p95 {_p95(part_times) * 1000:.0f} ms, "
                f"{len(part_times) / part_wall:.1f} requests/s"
            )
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        medium_size = len(_get(conn, page, cookies))
        first = _get(conn, f"/contracts/{big.pk}/", cookies)
        scrolled = _get(conn, f"/contracts/{big.pk}/passages/?after=2500", cookies)
        shown = len(re.findall(rb'<li class="passage', first))
        print(
            f"first response: {medium_size / 1024:.0f} KB ({medium.passages.count()} passages), "
            f"{len(first) / 1024:.0f} KB ({big.passages.count()} passages, {shown} of them "
            f"rendered; target <= {TARGET_FIRST_PAGE_BYTES // 1024} KB); a later window "
            f"{len(scrolled) / 1024:.0f} KB"
        )
    finally:
        _stop(servers)
    ok = p95 <= TARGET_P95_S and len(first) <= TARGET_FIRST_PAGE_BYTES
    print("PASS" if ok else "FAIL")
    return 0 if ok else 1


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--passages", type=int, default=422)
    parser.add_argument("--large", type=int, default=5000)
    parser.add_argument("--clients", type=int, default=20)
    parser.add_argument("--requests", type=int, default=10, help="per client")
    parser.add_argument(
        "--web-processes", type=int, default=None, help="default: as make run (launcher)"
    )
    args = parser.parse_args()
    if args.web_processes is None:
        from reviewapp.launcher import web_process_count

        args.web_processes = web_process_count()
    url = postgres_url()
    if url is None:
        return 0
    if not CUAD_TXT.is_dir():
        print(f"skipped: the CUAD texts are not at {CUAD_TXT}")
        return 0
    os.environ.pop("ANTHROPIC_API_KEY", None)
    env = {
        "REVIEW_ENGINE": "offline",
        "REDIS_URL": os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/7"),
    }
    return in_own_database(url, BENCH_DB, lambda: _run(args), env=env)


def _run(args: argparse.Namespace) -> int:
    from django.core.management import call_command
    from django.db import connections

    call_command("migrate", "--no-input", verbosity=0)
    medium, big = _setup(args.passages, args.large)
    connections.close_all()
    (ROOT / "var").mkdir(exist_ok=True)
    return _measure(medium, big, args, ROOT / "var" / "bench_review_page.log")


if __name__ == "__main__":
    sys.exit(main())
