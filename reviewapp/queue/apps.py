from django.apps import AppConfig


class QueueConfig(AppConfig):
    name = "reviewapp.queue"
    label = "review_queue"
    verbose_name = "Lawyers' queue"

    def ready(self) -> None:
        # Reviews announce a passage that needs a lawyer; the queue (above them) opens its item.
        from reviewapp.queue.services import queue_items_open
        from reviewapp.queue.severity import acting_for_changed_received
        from reviewapp.reviews.acting_for.signals import acting_for_changed
        from reviewapp.reviews.transitions import review_handoff_register

        review_handoff_register(queue_items_open)
        # Reviews announce a new party acted for; the queue works out its items' severity again.
        acting_for_changed.connect(acting_for_changed_received, dispatch_uid="queue-side-severity")
