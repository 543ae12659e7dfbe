from __future__ import annotations

import logging

from celery import shared_task
from celery.exceptions import SoftTimeLimitExceeded
from django.conf import settings
from django.utils.translation import gettext_noop
from django.utils.translation import gettext_noop as N_

from reviewapp.contracts.deletion import contracts_delete_expired
from reviewapp.contracts.intake.services import intake_zip_expand
from reviewapp.contracts.models import DocumentStatus
from reviewapp.contracts.services import (
    contract_ingest,
    contract_ingest_failed,
    contract_ingest_scan,
    contracts_requeue_stalled,
)
from reviewapp.retries import INFRASTRUCTURE_RETRY

TOO_SLOW = N_("Reading this document took longer than the time allowed; it may be damaged.")
OCR_TOO_SLOW = gettext_noop(
    "Text recognition (OCR) of this scan took longer than the time allowed for its pages; "
    "upload a clearer scan, or a PDF with a text layer."
)
logger = logging.getLogger(__name__)


@shared_task(acks_late=True, reject_on_worker_lost=True, **INFRASTRUCTURE_RETRY)
def ingest_contract(contract_id: int) -> str | None:
    try:
        contract = contract_ingest(contract_id=contract_id)
    except SoftTimeLimitExceeded:
        contract = contract_ingest_failed(
            contract_id=contract_id, code=DocumentStatus.PARSE_FAILED, message=TOO_SLOW
        )
    return contract.status if contract else None


@shared_task(**INFRASTRUCTURE_RETRY)
def requeue_stalled_ingestions() -> int:
    """Contracts only, for messages queued before the beat entry became the whole sweep
    (reviewapp.reviews.tasks.sweep_stalled_work)."""
    stalled = contracts_requeue_stalled(
        older_than_s=settings.SWEEP_STALLED_AFTER_S, max_attempts=settings.SWEEP_MAX_ATTEMPTS
    )
    return len(stalled)


@shared_task(**INFRASTRUCTURE_RETRY)
def delete_expired_contracts() -> int:
    """Beat, daily by default: contracts past their matter's retention period are deleted."""
    return len(contracts_delete_expired())


@shared_task(acks_late=True, reject_on_worker_lost=True, **INFRASTRUCTURE_RETRY)
def ocr_contract(contract_id: int) -> str | None:
    """On the ``ocr`` queue; the time limits come with each call (services.ocr_contract_enqueue)."""
    try:
        contract = contract_ingest_scan(contract_id=contract_id)
    except SoftTimeLimitExceeded:
        contract = contract_ingest_failed(
            contract_id=contract_id, code=DocumentStatus.NEEDS_OCR, message=OCR_TOO_SLOW
        )
    return contract.status if contract else None


@shared_task(acks_late=True, reject_on_worker_lost=True, **INFRASTRUCTURE_RETRY)
def expand_intake_zip(batch_id: int) -> int:
    """Unpack a bulk upload's zip; run again after a crash, it goes on where it stopped."""
    batch = intake_zip_expand(batch_id=batch_id)
    return batch.contracts.count() if batch else 0
