from __future__ import annotations

from celery import shared_task

from reviewapp.audit.checkpoints import audit_checkpoint_write
from reviewapp.retries import INFRASTRUCTURE_RETRY


@shared_task(**INFRASTRUCTURE_RETRY)
def write_audit_checkpoint() -> str:
    """Beat runs this every AUDIT_CHECKPOINT_EVERY_S; running it twice writes two checkpoints."""
    return str(audit_checkpoint_write())
