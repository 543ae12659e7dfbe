from django.apps import AppConfig
from django.db.models.signals import post_migrate


class AuditConfig(AppConfig):
    name = "reviewapp.audit"

    def ready(self) -> None:
        # Signal handlers import models: an AppConfig may import them only once apps are ready.
        from reviewapp.audit import signals

        post_migrate.connect(
            signals.first_checkpoint_after_migrate,
            sender=self,
            dispatch_uid="audit-first-checkpoint",
        )
