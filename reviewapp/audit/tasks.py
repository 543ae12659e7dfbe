from __future__ import annotations

from celery import shared_task

from reviewapp.audit.checkpoints import audit_checkpoint_write


@shared_task(autoretry_for=(OSError,), retry_backoff=5, retry_jitter=True, max_retries=5)
def write_audit_checkpoint() -> str:
    """Beat runs this every AUDIT_CHECKPOINT_EVERY_S; running it twice writes two checkpoints."""
    return str(audit_checkpoint_write())
