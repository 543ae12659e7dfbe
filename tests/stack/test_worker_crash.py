"""A worker killed in the middle of an ingestion: the next worker ingests it exactly once."""

from __future__ import annotations

import os
import signal

import pytest

from reviewapp.celery import app
from reviewapp.contracts.models import Contract, DocumentStatus
from reviewapp.contracts.services import contract_upload
from tests.processes import celery_worker, wait_until
from tests.text.hostile_files import make_text_pdf

pytestmark = [
    pytest.mark.worker,
    pytest.mark.django_db(transaction=True),
    pytest.mark.filterwarnings("ignore::celery.exceptions.AlwaysEagerIgnored"),
]

# Short limits so the broker re-delivers the dead worker's task within seconds.
FAST_REDELIVERY = {
    "CELERY_TASK_TIME_LIMIT": "20",
    "CELERY_VISIBILITY_TIMEOUT": "21",
    "CELERY_UNACKED_RESTORE_INTERVAL": "1",
    "INGEST_PARSE_TIMEOUT_S": "15",
}


def status_of(contract_id: int) -> str:
    return Contract.objects.values_list("status", flat=True).get(pk=contract_id)


def test_killed_worker_ingestion_is_redelivered_and_done_once(matter, tmp_path):
    line = "{}.{} The Supplier shall deliver the goods described in Schedule {} on time."
    pages = [[line.format(p, i, i) for i in range(60)] for p in range(450)]
    pdf = make_text_pdf(tmp_path, pages, name="long.pdf")  # a few seconds of parsing
    with pdf.open("rb") as handle:
        contract, _ = contract_upload(
            matter=matter, file=handle, name="long.pdf", size=pdf.stat().st_size, enqueue=False
        )
    app.control.purge()
    log = tmp_path / "worker.log"
    with celery_worker(log, **FAST_REDELIVERY) as first:
        app.send_task("reviewapp.contracts.tasks.ingest_contract", args=[contract.pk])
        assert wait_until(lambda: status_of(contract.pk) == DocumentStatus.INGESTING, 60), (
            log.read_text()[-3000:]
        )
        os.killpg(first.pid, signal.SIGKILL)
        first.wait()
    assert status_of(contract.pk) == DocumentStatus.INGESTING
    assert not contract.passages.exists()

    with celery_worker(log, **FAST_REDELIVERY):
        done = wait_until(lambda: status_of(contract.pk) == DocumentStatus.INGESTED, 120)
        assert done, log.read_text()[-3000:]
    contract.refresh_from_db()
    indexes = list(contract.passages.values_list("index", flat=True))
    assert indexes == list(range(len(indexes)))
    assert contract.ingest_attempts == 2
    assert contract.page_count == 450
