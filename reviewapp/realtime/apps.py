from django.apps import AppConfig


class RealtimeConfig(AppConfig):
    name = "reviewapp.realtime"
    label = "realtime"
