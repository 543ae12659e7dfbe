from django.apps import AppConfig


class RealtimeConfig(AppConfig):
    name = "reviewapp.realtime"
    label = "realtime"

    def ready(self) -> None:
        from reviewapp.realtime import signals  # noqa: F401  (receivers import models: at ready)
