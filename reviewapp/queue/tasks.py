from __future__ import annotations

from celery import shared_task

from reviewapp.queue.services import queue_escalate_overdue


@shared_task
def escalate_overdue_items() -> int:
    return len(queue_escalate_overdue())
