from django.contrib import admin

from reviewapp.rules.models import Playbook, PlaybookVersion


class VersionInline(admin.TabularInline):
    model = PlaybookVersion
    extra = 0
    fields = ["number", "note", "created_by", "created_at"]
    readonly_fields = ["number", "note", "created_by", "created_at"]
    can_delete = False


@admin.register(Playbook)
class PlaybookAdmin(admin.ModelAdmin):
    list_display = ["name", "organisation", "language", "is_active"]
    list_filter = ["language", "is_active"]
    inlines = [VersionInline]


@admin.register(PlaybookVersion)
class PlaybookVersionAdmin(admin.ModelAdmin):
    list_display = ["playbook", "number", "note", "created_by", "created_at"]
    readonly_fields = ["playbook", "number", "source", "created_by", "created_at"]
