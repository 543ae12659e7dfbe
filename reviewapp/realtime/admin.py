from django.contrib import admin

from reviewapp.realtime.models import Event


@admin.register(Event)
class EventAdmin(admin.ModelAdmin):
    list_display = ["id", "type", "matter", "created_at"]
    list_filter = ["type"]
    readonly_fields = ["matter", "type", "payload", "created_at"]
