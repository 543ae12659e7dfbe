"""Work a dead worker held comes back in seconds, with the production limits (a visibility
timeout of 600 s, the sweeper's 600 s threshold): a worker killed with ``kill -9`` in the
middle of 15 uploads, and a Redis killed and started again under a running worker (issue 27).
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
from tests.processes import celery_worker, wait_until, web_server
from tests.stack.faults import own_redis, unfinished, upload, wait_for_all_finished
from tests.stack.test_faults import contract_pdfs

pytestmark = [
    pytest.mark.worker,
    pytest.mark.django_db(transaction=True),
    pytest.mark.filterwarnings("ignore::celery.exceptions.AlwaysEagerIgnored"),
]

RECOVERY_S = 120  # "every contract reviewed within 2 minutes of the kill"


def production_limits(redis) -> dict[str, str]:
    return {"REDIS_URL": redis.url, "CELERY_BROKER_URL": redis.url}


def busy_ingesting() -> bool:
    return Contract.objects.filter(status=DocumentStatus.INGESTING).exists()


def ingested_once() -> None:
    ingested = Contract.objects.filter(status=DocumentStatus.INGESTED)
    assert ingested.count() == 15
    for contract in ingested:
        indexes = list(contract.passages.order_by("index").values_list("index", flat=True))
        assert indexes == list(range(len(indexes)))


def test_a_worker_killed_during_15_uploads_leaves_its_work_to_the_next_at_once(
    reviewer, matter, tmp_path
):
    token = Token.objects.create(user=reviewer).key
    files = contract_pdfs(tmp_path, 15, pages=12)
    worker_log, web_log = tmp_path / "worker.log", tmp_path / "web.log"
    statuses: list[int] = []

    def upload_all(url: str) -> None:
        for name, body in files:
            statuses.append(upload(url, matter.pk, token, name, body)[0])

    with (
        own_redis(tmp_path / "redis") as redis,
        web_server(web_log, **production_limits(redis)) as url,
    ):
        with celery_worker(worker_log, **production_limits(redis)) as worker:
            uploader = threading.Thread(target=upload_all, args=(url,))
            uploader.start()
            assert wait_until(lambda: len(statuses) >= 3 and busy_ingesting(), 90), (
                worker_log.read_text()[-3000:]
            )
            os.kill(worker.pid, signal.SIGKILL)  # the main process only, as `kill -9` does
            killed_at = time.monotonic()
            worker.wait()
            uploader.join(120)
            with contextlib.suppress(ProcessLookupError):  # what is left of its pool
                os.killpg(worker.pid, signal.SIGKILL)
        assert statuses == [201] * 15, statuses
        ids = list(Contract.objects.values_list("pk", flat=True))
        assert unfinished(ids), "the kill came too late to test anything"
        with celery_worker(worker_log, **production_limits(redis)):  # the launcher's restart
            left = RECOVERY_S - (time.monotonic() - killed_at)
            problems = wait_for_all_finished(ids, timeout_s=left)
        assert not problems, (problems, worker_log.read_text()[-4000:])
    ingested_once()


def test_redis_killed_under_a_running_worker_loses_nothing_and_waits_for_nothing(
    reviewer, matter, tmp_path
):
    token = Token.objects.create(user=reviewer).key
    files = contract_pdfs(tmp_path, 15, pages=12)
    worker_log, web_log = tmp_path / "worker.log", tmp_path / "web.log"
    with (
        own_redis(tmp_path / "redis") as redis,
        web_server(web_log, **production_limits(redis)) as url,
        celery_worker(worker_log, **production_limits(redis)),
    ):
        statuses = [upload(url, matter.pk, token, name, body)[0] for name, body in files]
        assert statuses == [201] * 15, statuses
        assert wait_until(busy_ingesting, 90), worker_log.read_text()[-3000:]
        redis.stop()  # kill -9
        killed_at = time.monotonic()
        time.sleep(1.5)  # the launcher's first pause
        redis.start()
        ids = list(Contract.objects.values_list("pk", flat=True))
        assert unfinished(ids), "the kill came too late to test anything"
        left = RECOVERY_S - (time.monotonic() - killed_at)
        problems = wait_for_all_finished(ids, timeout_s=left)
        assert not problems, (problems, worker_log.read_text()[-4000:])
    ingested_once()
