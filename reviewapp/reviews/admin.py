from django.contrib import admin

from reviewapp.reviews.models import PassageTransition, Review, RuleFiring


@admin.register(Review)
class ReviewAdmin(admin.ModelAdmin):
    list_display = ["contract", "status", "playbook_version", "created_at"]
    list_filter = ["status"]
    raw_id_fields = ["contract"]


@admin.register(RuleFiring)
class RuleFiringAdmin(admin.ModelAdmin):
    list_display = ["rule_id", "category", "action", "severity", "passage"]
    list_filter = ["category", "action", "severity"]
    raw_id_fields = ["review", "passage"]


@admin.register(PassageTransition)
class PassageTransitionAdmin(admin.ModelAdmin):
    list_display = ["passage", "from_state", "to_state", "actor_kind", "actor", "created_at"]
    list_filter = ["actor_kind", "to_state"]
    raw_id_fields = ["passage", "review"]
