from __future__ import annotations

from celery import shared_task

from reviewapp.audit.checkpoints import audit_checkpoint_refresh
from reviewapp.retries import INFRASTRUCTURE_RETRY


@shared_task(**INFRASTRUCTURE_RETRY)
def write_audit_checkpoint() -> str:
    """Beat runs this every AUDIT_CHECKPOINT_EVERY_S: a new checkpoint when a chain moved (so
    running it twice writes at most one), "" when nothing did."""
    path = audit_checkpoint_refresh()
    return "" if path is None else str(path)
