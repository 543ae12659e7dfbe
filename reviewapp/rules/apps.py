from django.apps import AppConfig


class RulesConfig(AppConfig):
    name = "reviewapp.rules"
    label = "rules"
