"""Faults on the real stack: a real worker, beat and web server, and a Redis the test stops.

Each test ends with every document of its batch reviewed or in a final failure state, and
nothing left queued.
"""

from __future__ import annotations

import contextlib
import os
import signal
import threading
import time

import pytest
from rest_framework.authtoken.models import Token

from reviewapp.contracts.models import Contract, DocumentStatus
from tests.processes import celery_beat, celery_worker, wait_until, web_server
from tests.stack.faults import own_redis, unfinished, upload, wait_for_all_finished
from tests.text.hostile_files import make_text_pdf

pytestmark = [
    pytest.mark.worker,
    pytest.mark.django_db(transaction=True),
    pytest.mark.filterwarnings("ignore::celery.exceptions.AlwaysEagerIgnored"),
]

CLAUSES = [
    "{n}.1 The Supplier shall deliver the goods described in Schedule {n} within thirty days.",
    "{n}.2 Neither party may assign this Agreement without the prior written consent of the other.",
    "{n}.3 Customer shall receive most favored nation pricing on every order under this Schedule.",
    "{n}.4 This Agreement is governed by the laws of the State of New York.",
    "{n}.5 The Supplier's total liability shall not exceed the fees paid in the last 12 months.",
]


def contract_pdfs(tmp_path, count: int, pages: int) -> list[tuple[str, bytes]]:
    files = []
    for number in range(count):
        lines = [
            [clause.format(n=f"{number}-{page}-{i}") for i in range(3) for clause in CLAUSES]
            for page in range(pages)
        ]
        path = make_text_pdf(tmp_path, lines, name=f"contract-{number:02d}.pdf")
        files.append((path.name, path.read_bytes()))
    return files


def test_killed_worker_during_a_15_document_upload_leaves_nothing_queued(
    reviewer, matter, tmp_path
):
    token = Token.objects.create(user=reviewer).key
    files = contract_pdfs(tmp_path, 15, pages=12)
    worker_log, web_log, beat_log = (tmp_path / n for n in ("worker.log", "web.log", "beat.log"))
    statuses: list[int] = []

    def upload_all(url: str, token: str) -> None:
        for name, body in files:
            statuses.append(upload(url, matter.pk, token, name, body)[0])

    with (
        own_redis(tmp_path / "redis") as redis,
        web_server(web_log, **redis.env()) as url,
        celery_beat(beat_log, **redis.env()),
    ):
        with celery_worker(worker_log, **redis.env()) as worker:
            uploader = threading.Thread(target=upload_all, args=(url, token))
            uploader.start()
            busy = wait_until(
                lambda: (
                    len(statuses) >= 5
                    and Contract.objects.filter(status=DocumentStatus.INGESTING).exists()
                ),
                90,
            )
            assert busy, worker_log.read_text()[-3000:]
            os.kill(worker.pid, signal.SIGKILL)  # the main process only, as `kill -9` does
            worker.wait()
            uploader.join(120)
            time.sleep(2)
            with contextlib.suppress(ProcessLookupError):  # what is left of its pool
                os.killpg(worker.pid, signal.SIGKILL)
        assert statuses == [201] * 15, statuses
        ids = list(Contract.objects.values_list("pk", flat=True))
        assert len(ids) == 15
        assert unfinished(ids), "the kill came too late to test anything"

        redis.stop()  # and a new `make run`: the embedded Redis comes back from its file
        redis.start()
        with celery_worker(worker_log, **redis.env()):
            problems = wait_for_all_finished(ids, timeout_s=300)
        assert not problems, (problems, worker_log.read_text()[-4000:])
    ingested = Contract.objects.filter(status=DocumentStatus.INGESTED)
    assert ingested.count() == 15
    for contract in ingested:
        indexes = list(contract.passages.order_by("index").values_list("index", flat=True))
        assert indexes == list(range(len(indexes)))  # ingested once: no duplicate passages
