"""Commit-to-screen latency of live events with 200 lawyers' websockets open.

    .venv/bin/python benchmarks/bench_sockets.py [--sockets 200] [--changes 100] [--interval 0.1]

Starts the real ASGI server (uvicorn, as the browser tests do) on the Redis channel layer and a
database, opens N authenticated lawyer websockets from a separate client process (the
`websockets` library), then claims queue items through the service layer, one every
``--interval`` seconds. Each claim commits and publishes an event; the latency of one delivery is
its arrival at a client minus the commit (both wall clock, same machine). Every socket must
receive every event.

Uses REDIS_URL and DATABASE_URL when set (give it a Redis db and a database of its own; the
database is migrated and filled), else an embedded Redis and a throw-away SQLite file.
Target: p95 at most 150 ms.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

TARGET_P95_MS = 150.0
CONTRACT_CLAUSE = "{n}. Pricing {n}. Customer shall receive most favored nation pricing.\n\n"


# ---- the client process: N sockets, one arrival time per (socket, event) --------------------


async def _client_main(url: str, cookies: list[str]) -> None:
    from websockets.asyncio.client import connect

    ws_url = url.replace("http://", "ws://") + "/ws/events/"
    arrivals: list[list[tuple[int, float]]] = [[] for _ in cookies]
    sockets = []
    for start in range(0, len(cookies), 25):  # connect in small batches
        batch = cookies[start : start + 25]
        sockets += await asyncio.gather(
            *[
                connect(ws_url, additional_headers={"Cookie": c, "Origin": url}, max_queue=None)
                for c in batch
            ]
        )

    closed: list[int | None] = []

    async def listen(index: int, socket: Any) -> None:
        try:
            async for raw in socket:
                at = time.time()
                message = json.loads(raw)
                if message.get("type") == "event":
                    arrivals[index].append((message["event"]["seq"], at))
        except Exception:  # noqa: S110 - a socket that breaks shows up as closed early
            pass
        closed.append(socket.close_code)

    listeners = [asyncio.create_task(listen(i, s)) for i, s in enumerate(sockets)]
    print("READY", flush=True)
    await asyncio.get_running_loop().run_in_executor(None, sys.stdin.readline)  # "STOP"
    if closed:
        print(f"sockets closed by the server during the run: {closed}", file=sys.stderr)
    for task in listeners:
        task.cancel()
    for socket in sockets:
        await socket.close()
    print(json.dumps(arrivals), flush=True)


# ---- the benchmark process ------------------------------------------------------------------


LAYERS = ("pubsub", "lists")  # the CHANNEL_LAYER setting (README)


def configure(work_dir: Path, layer: str) -> None:
    os.environ["DJANGO_SETTINGS_MODULE"] = "reviewapp.settings.test"
    os.environ["CHANNEL_LAYER"] = layer
    os.environ.setdefault("DATABASE_URL", f"sqlite:///{work_dir / 'bench.sqlite3'}")
    os.environ["CLAUSEWISE_CELERY_EAGER"] = "1"
    import django

    django.setup()
    from django.conf import settings
    from django.core.management import call_command

    settings.MEDIA_ROOT = str(work_dir / "media")
    call_command("migrate", verbosity=0)


def seed(sockets: int, changes: int) -> tuple[list[Any], list[str], list[int]]:
    """A matter with N lawyers (one session each) and `changes` open queue items."""
    from django.contrib.auth import (
        BACKEND_SESSION_KEY,
        HASH_SESSION_KEY,
        SESSION_KEY,
        get_user_model,
    )
    from django.contrib.sessions.backends.db import SessionStore

    from reviewapp.accounts.models import Matter, Membership, Organisation, Role
    from reviewapp.queue.models import QueueItem
    from reviewapp.reviews.services import review_scan
    from tests.factories import active_playbook, ingested_contract
    from tests.queue.test_queue import STRICT

    run = time.strftime("%Y%m%d%H%M%S")
    organisation = Organisation.objects.create(name=f"Socket bench {run}")
    matter = Matter.objects.create(organisation=organisation, name="Bench")
    users = [
        get_user_model().objects.create_user(f"bench-{run}-{i}", password="x")
        for i in range(sockets)
    ]
    Membership.objects.bulk_create(
        Membership(user=user, matter=matter, role=Role.LAWYER) for user in users
    )
    cookies = []
    for user in users:
        session = SessionStore()
        session[SESSION_KEY] = str(user.pk)
        session[BACKEND_SESSION_KEY] = "django.contrib.auth.backends.ModelBackend"
        session[HASH_SESSION_KEY] = user.get_session_auth_hash()
        session.create()
        cookies.append(f"sessionid={session.session_key}")
    active_playbook(organisation=organisation, source=STRICT, name=f"bench-{run}")
    text = "".join(CONTRACT_CLAUSE.format(n=n + 1) for n in range(changes))
    contract = ingested_contract(matter=matter, text=text, name=f"bench-{run}.txt")
    review = review_scan(contract_id=contract.pk, enqueue=False)
    items = list(QueueItem.objects.filter(review=review).values_list("pk", flat=True))
    return users, cookies, items


def claim_and_stamp(item_id: int, user: Any) -> tuple[int, float]:
    """Claim through the service; the stamp is taken in the first on-commit callback, right
    after the commit and before the event is pushed."""
    from django.db import transaction

    from reviewapp.queue.services import queue_item_claim
    from reviewapp.realtime.models import Event

    stamp: list[float] = []
    with transaction.atomic():
        transaction.on_commit(lambda: stamp.append(time.time()))
        queue_item_claim(item_id=item_id, user=user)
    seq = Event.objects.filter(type="queue.item.claimed").order_by("-pk").values_list("pk")[0][0]
    return seq, stamp[0]


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


@contextmanager
def web_server(log_path: Path, layer: str) -> Iterator[str]:
    """uvicorn as the browser tests start it, on this benchmark's channel layer."""
    from tests.processes import web_server as test_web_server

    with test_web_server(log_path, log_level="warning", CHANNEL_LAYER=layer) as url:
        yield url


def run(sockets: int, changes: int, interval: float, layer: str) -> int:
    with tempfile.TemporaryDirectory(prefix="bench-sockets-") as tmp:
        work = Path(tmp)
        configure(work, layer)
        from django.conf import settings
        from django.db import connection

        backend = settings.CHANNEL_LAYERS["default"]["BACKEND"].rsplit(".", 1)[-1]
        print(f"database: {connection.vendor}; redis: {settings.REDIS_URL}; layer: {backend}")
        users, cookies, items = seed(sockets, changes)
        print(f"{len(users)} lawyers, {len(items)} open items")
        with web_server(work / "web.log", layer) as url:
            client = subprocess.Popen(
                [sys.executable, __file__, "--client", url],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                text=True,
            )
            assert client.stdin and client.stdout
            client.stdin.write(json.dumps(cookies) + "\n")
            client.stdin.flush()
            ready = client.stdout.readline().strip()
            if ready != "READY":
                print(f"client process failed: {ready!r}")
                return 1
            print(f"{sockets} sockets open; {changes} claims, one every {interval * 1000:.0f} ms")
            commits: dict[int, float] = {}
            for n, item_id in enumerate(items[:changes]):
                seq, at = claim_and_stamp(item_id, users[n % len(users)])
                commits[seq] = at
                time.sleep(interval)
            time.sleep(2.0)  # let the last deliveries land
            client.stdin.write("STOP\n")
            client.stdin.flush()
            arrivals = json.loads(client.stdout.readline())
            client.wait(timeout=30)
        if any(len(per_socket) < len(commits) for per_socket in arrivals):
            print("web server log (end):\n" + (work / "web.log").read_text()[-3000:])
    return report(commits, arrivals, sockets)


def report(commits: dict[int, float], arrivals: list[list[list[float]]], sockets: int) -> int:
    latencies: list[float] = []
    last_per_event: dict[int, float] = {}
    missing = 0
    for per_socket in arrivals:
        seen = {int(seq): at for seq, at in per_socket if int(seq) in commits}
        missing += len(commits) - len(seen)
        for seq, at in seen.items():
            ms = (at - commits[seq]) * 1000
            latencies.append(ms)
            last_per_event[seq] = max(last_per_event.get(seq, 0.0), ms)
    if not latencies:
        print("no event arrived")
        return 1
    p50, p95, worst = (percentile(latencies, 0.5), percentile(latencies, 0.95), max(latencies))
    slowest = list(last_per_event.values())
    print(f"deliveries: {len(latencies)} of {len(commits) * sockets} (missing {missing})")
    print(f"commit -> client: p50 {p50:.1f} ms, p95 {p95:.1f} ms, max {worst:.1f} ms")
    print(
        f"last socket per event: p50 {statistics.median(slowest):.1f} ms, "
        f"p95 {percentile(slowest, 0.95):.1f} ms"
    )
    ok = missing == 0 and p95 <= TARGET_P95_MS
    print(f"target p95 <= {TARGET_P95_MS:.0f} ms: {'met' if ok else 'MISSED'}")
    return 0 if ok else 1


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sockets", type=int, default=200)
    parser.add_argument("--changes", type=int, default=100)
    parser.add_argument("--interval", type=float, default=0.1, help="seconds between changes")
    parser.add_argument("--layer", choices=LAYERS, default="pubsub")
    parser.add_argument("--client", metavar="URL", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.client:
        asyncio.run(_client_main(args.client, json.loads(sys.stdin.readline())))
        return 0
    return run(args.sockets, args.changes, args.interval, args.layer)


if __name__ == "__main__":
    sys.exit(main())
