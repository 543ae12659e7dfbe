from django.apps import AppConfig


class AccountsConfig(AppConfig):
    name = "reviewapp.accounts"
    label = "accounts"

    def ready(self) -> None:
        from reviewapp.accounts import signals  # noqa: F401  (ends sessions on password change)
        from reviewapp.accounts.two_factor import signals as two_factor  # noqa: F401
