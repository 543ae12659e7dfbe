from django.apps import AppConfig


class ContractsConfig(AppConfig):
    name = "reviewapp.contracts"
    label = "contracts"

    def ready(self) -> None:
        # Bind shared tasks to the project's Celery app in every process, web included.
        import reviewapp.celery  # noqa: F401
