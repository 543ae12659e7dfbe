from __future__ import annotations

from celery import shared_task

from reviewapp.queue.escalation import queue_escalate_overdue
from reviewapp.queue.mail import queue_mention_mail_send
from reviewapp.retries import INFRASTRUCTURE_RETRY


@shared_task(**INFRASTRUCTURE_RETRY)
def escalate_overdue_items() -> int:
    return len(queue_escalate_overdue())


@shared_task(**INFRASTRUCTURE_RETRY)
def mention_mail_send(item_id: int, from_user_id: int, to_user_id: int) -> bool:
    return queue_mention_mail_send(
        item_id=item_id, from_user_id=from_user_id, to_user_id=to_user_id
    )
