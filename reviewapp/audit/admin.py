from typing import Any

from django.contrib import admin
from django.http import HttpRequest

from reviewapp.audit.models import AuditChain, AuditEvent


class ReadOnlyAdmin(admin.ModelAdmin):
    """The audit log is append-only: the admin shows it and nothing more."""

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


@admin.register(AuditEvent)
class AuditEventAdmin(ReadOnlyAdmin):
    list_display = ("created_at", "organisation", "seq", "action", "actor_kind", "actor", "target")
    list_filter = ("action", "actor_kind")
    search_fields = ("actor", "target_id")
    list_select_related = ("organisation",)
    ordering = ("-id",)
    show_full_result_count = False  # counting a large log on every page is slow

    @admin.display(description="target")
    def target(self, event: AuditEvent) -> str:
        return f"{event.target_type} {event.target_id}".strip()


@admin.register(AuditChain)
class AuditChainAdmin(ReadOnlyAdmin):
    list_display = ("key", "organisation", "last_seq", "updated_at")
