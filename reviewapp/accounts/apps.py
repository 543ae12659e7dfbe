from django.apps import AppConfig


class AccountsConfig(AppConfig):
    name = "reviewapp.accounts"
    label = "accounts"
