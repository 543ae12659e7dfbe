from django.apps import AppConfig


class QueueConfig(AppConfig):
    name = "reviewapp.queue"
    label = "review_queue"
    verbose_name = "Lawyers' queue"
