from django.apps import AppConfig


class ContractsConfig(AppConfig):
    name = "reviewapp.contracts"
    label = "contracts"
