from django.contrib import admin

from reviewapp.contracts.models import Contract, Passage


@admin.register(Contract)
class ContractAdmin(admin.ModelAdmin):
    list_display = ["original_name", "matter", "status", "kind", "page_count", "created_at"]
    list_filter = ["status", "kind", "matter__organisation"]
    search_fields = ["original_name", "sha256"]
    readonly_fields = ["sha256", "size", "timings_ms", "created_at", "updated_at", "ingested_at"]
    exclude = ["text"]


@admin.register(Passage)
class PassageAdmin(admin.ModelAdmin):
    list_display = ["contract", "index", "page", "number", "state"]
    list_filter = ["state"]
    search_fields = ["text"]
    raw_id_fields = ["contract"]
