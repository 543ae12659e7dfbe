"""Bulk intake: a zip of CUAD PDFs to every contract reviewed, with a real Celery worker.

    .venv/bin/python benchmarks/bench_intake.py [--count 300] [--concurrency 2]

Zips ``--count`` PDFs of ../shared/data/cuad (in folders, as a data room is), hands the zip to
the intake service as the API does (the zip is checked and stored while the clock runs), and
starts a worker on the ingest, model, default and ocr queues (``--concurrency`` processes, as
``make run`` does on this machine). The clock stops when the batch has unpacked every entry and
every contract has ended its ingestion and has its review with the offline engine (trigger scan
done; its draft, if one was queued, complete or failed; no check of a flagged passage still
queued), so every cell of the grid is final.

The worker's CPU time is reported too: the machine is often shared, and CPU seconds divided by
the worker processes is what the run would take on idle cores.

Uses DATABASE_URL and REDIS_URL when set (give it a database and a Redis db of its own), else a
throw-away SQLite file and an embedded Redis. Target: at most 4 minutes for 300 PDFs.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

CUAD = ROOT.parent / "shared" / "data" / "cuad"
TARGET_S = 240.0
TARGET_COUNT = 300


def configure(work_dir: Path) -> None:
    os.environ["DJANGO_SETTINGS_MODULE"] = "reviewapp.settings.test"
    os.environ.setdefault("DATABASE_URL", f"sqlite:///{work_dir / 'bench.sqlite3'}")
    os.environ["CLAUSEWISE_CELERY_EAGER"] = "0"  # a real worker does the work
    os.environ["REVIEW_ENGINE"] = "offline"
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)


def data_room(count: int) -> bytes:
    records = [json.loads(line) for line in (CUAD / "labels.jsonl").open()]
    pdfs = [CUAD / record["pdf"] for record in sorted(records, key=lambda r: r["id"])][:count]
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for number, pdf in enumerate(pdfs):
            archive.write(pdf, f"Data room/{number % 7:02d}/{pdf.name}")
    return buffer.getvalue()


def seed() -> tuple[object, object]:
    from django.contrib.auth import get_user_model

    from reviewapp.accounts.models import Matter, Membership, Organisation, Role

    run = time.strftime("%Y%m%d%H%M%S")
    organisation = Organisation.objects.create(name=f"Intake bench {run}")
    matter = Matter.objects.create(organisation=organisation, name="Data room")
    user = get_user_model().objects.create_user(f"intake-bench-{run}", password="x")
    Membership.objects.create(user=user, matter=matter, role=Role.REVIEWER)
    return matter, user


def start_worker(log_path: Path, concurrency: int) -> subprocess.Popen[bytes]:
    from tests.processes import child_env

    command = [
        sys.executable, "-m", "celery", "-A", "reviewapp", "worker", "--loglevel", "WARNING",
        "--queues", "ingest,model,default,ocr", "--concurrency", str(concurrency),
        "--without-gossip", "--without-mingle", "--hostname", f"bench-intake-{os.getpid()}@%h",
    ]  # fmt: skip
    with log_path.open("ab") as log:
        return subprocess.Popen(
            command, cwd=ROOT, env=child_env(), stdout=log, stderr=log, start_new_session=True
        )


def state(batch_id: int) -> dict[str, int | bool]:
    from django.db.models import Q

    from reviewapp.contracts.intake.progress import intake_progress
    from reviewapp.contracts.models import DocumentStatus, IntakeBatch
    from reviewapp.reviews.models import DraftStatus, VerificationStatus

    batch = IntakeBatch.objects.get(pk=batch_id)
    progress = intake_progress(batch=batch)
    ingested = batch.contracts.filter(status=DocumentStatus.INGESTED)
    drafting = Q(review__draft__isnull=False) & ~Q(
        review__draft__status__in=[DraftStatus.COMPLETE, DraftStatus.FAILED]
    )
    checking = Q(review__verifications__status=VerificationStatus.QUEUED)
    reviewed = ingested.filter(review__isnull=False).exclude(drafting).exclude(checking).count()
    return {
        "done": progress.done,
        "total": progress.total,
        "failed": progress.failed,
        "ingested": ingested.count(),
        "reviewed": reviewed,
        "finished": progress.finished and reviewed == ingested.count(),
    }


def run(count: int, concurrency: int, timeout_s: float) -> int:
    if not (CUAD / "labels.jsonl").exists():
        print(f"CUAD data not found at {CUAD}")
        return 1
    with tempfile.TemporaryDirectory(prefix="bench-intake-") as tmp:
        work = Path(tmp)
        configure(work)
        from django.db import connection

        from reviewapp.contracts.intake.services import intake_zip_receive

        matter, user = seed()
        data = data_room(count)
        print(f"database: {connection.vendor}; zip of {count} PDFs, {len(data) / 2**20:.1f} MB")
        worker = start_worker(work / "worker.log", concurrency)
        try:
            started = time.perf_counter()
            batch = intake_zip_receive(
                matter=matter,
                file=io.BytesIO(data),
                name="data room.zip",
                size=len(data),
                uploaded_by=user,
            )
            now = state(batch.pk)
            while not now["finished"] and time.perf_counter() - started < timeout_s:
                time.sleep(2.0)
                now = state(batch.pk)
                print(f"  {time.perf_counter() - started:6.0f} s  {now}", flush=True)
            elapsed = time.perf_counter() - started
        finally:
            from tests.processes import stop

            stop(worker)
        # The worker and its pool, once they have exited: what the work cost in CPU time.
        usage = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu_s = usage.ru_utime + usage.ru_stime
        if not now["finished"]:
            print("worker log (end):\n" + (work / "worker.log").read_text()[-3000:])
    return report(count, concurrency, elapsed, now, cpu_s)


def report(
    count: int, concurrency: int, elapsed: float, now: dict[str, int | bool], cpu_s: float
) -> int:
    load = os.getloadavg()[0]
    print(
        f"worker CPU {cpu_s:.0f} s ({cpu_s / max(count, 1):.2f} s a contract); on {concurrency} "
        f"idle cores that is about {cpu_s / concurrency:.0f} s; load average now {load:.1f}"
    )
    print(
        f"{count} PDFs, worker concurrency {concurrency}: {now['done']} of {now['total']} "
        f"ingested or failed ({now['failed']} failed), {now['reviewed']} reviewed, "
        f"in {elapsed:.1f} s ({elapsed / max(count, 1):.2f} s a contract)"
    )
    target = TARGET_S * count / TARGET_COUNT
    ok = bool(now["finished"]) and elapsed <= target
    print(f"target <= {target:.0f} s for {count}: {'met' if ok else 'MISSED'}")
    return 0 if ok else 1


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=TARGET_COUNT)
    parser.add_argument("--concurrency", type=int, default=2)
    parser.add_argument("--timeout", type=float, default=1800.0, help="give up after (s)")
    args = parser.parse_args()
    return run(args.count, args.concurrency, args.timeout)


if __name__ == "__main__":
    sys.exit(main())
