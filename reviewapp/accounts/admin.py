from django.contrib import admin

from reviewapp.accounts.models import Matter, Membership, Organisation, OrganisationMember


class OrganisationMemberInline(admin.TabularInline):
    """The people of an organisation: its admins can add only these to its matters."""

    model = OrganisationMember
    extra = 0
    autocomplete_fields = ["user"]


@admin.register(Organisation)
class OrganisationAdmin(admin.ModelAdmin):
    list_display = ["name", "require_two_factor", "created_at"]
    search_fields = ["name"]
    inlines = [OrganisationMemberInline]


class MembershipInline(admin.TabularInline):
    model = Membership
    extra = 0
    autocomplete_fields = ["user"]


@admin.register(Matter)
class MatterAdmin(admin.ModelAdmin):
    list_display = ["name", "organisation", "reference", "created_at"]
    list_filter = ["organisation"]
    search_fields = ["name", "reference"]
    inlines = [MembershipInline]


@admin.register(Membership)
class MembershipAdmin(admin.ModelAdmin):
    list_display = ["user", "matter", "role"]
    list_filter = ["role", "matter__organisation"]
    autocomplete_fields = ["user", "matter"]
