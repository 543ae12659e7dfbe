"""The e-mail to a colleague who was @mentioned (run by the ``mention_mail_send`` task)."""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.core.mail import send_mail

from reviewapp.queue.models import QueueItem


def queue_mention_mail_send(*, item_id: int, from_user_id: int, to_user_id: int) -> bool:
    """E-mail a colleague that they were mentioned (handed the item). False without an address."""
    item = QueueItem.objects.select_related("passage__contract", "claimed_by").get(pk=item_id)
    sender = get_user_model().objects.get(pk=from_user_id)
    recipient = get_user_model().objects.get(pk=to_user_id)
    if not recipient.email:
        return False
    contract = item.passage.contract
    claim = (
        "The item is now claimed by you."
        if item.claimed_by_id == recipient.pk
        else "The item is not claimed by you; claim it on the queue page to decide it."
    )
    send_mail(
        subject=f"{sender.get_username()} mentioned you: {contract.original_name} "
        f"#{item.passage.index}",
        message=(
            f"{sender.get_username()} mentioned you in a comment on a {item.severity} queue item "
            f"({contract.original_name}, passage #{item.passage.index}).\n{claim}\n\n"
            f"Open your queue: /queue/#item-{item.pk}"
        ),
        from_email=None,
        recipient_list=[recipient.email],
    )
    return True
