from typing import Any

from django.apps import AppConfig
from django.db.models.signals import post_migrate


class RulesConfig(AppConfig):
    name = "reviewapp.rules"
    label = "rules"

    def ready(self) -> None:
        post_migrate.connect(_sync_shipped_playbooks, sender=self)


def _sync_shipped_playbooks(*, using: str = "default", **kwargs: Any) -> None:
    """Every ``migrate`` (each start and each deploy) loads the shipped playbook files: a file
    that changed since becomes a new version, so improved defaults reach running installations
    while reviews keep the version they ran with. The shipped router model file likewise."""
    # run after migrate, once models are ready: an AppConfig may not import them at load
    from .learned.versions import router_sync_shipped
    from .services import playbook_sync_defaults

    if using == "default":
        playbook_sync_defaults()
        router_sync_shipped()
