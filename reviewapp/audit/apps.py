from django.apps import AppConfig


class AuditConfig(AppConfig):
    name = "reviewapp.audit"

    def ready(self) -> None:
        from reviewapp.audit import signals  # noqa: F401  (connects the sign-in receivers)
