from __future__ import annotations

from django.db.models import Count, Q, QuerySet

from reviewapp.accounts.selectors import AnyUser, organisations_administered
from reviewapp.rules.display_labels import CATEGORY_LABELS
from reviewapp.rules.models import Playbook, PlaybookVersion, RouterVersion
from reviewapp.rules.services import playbook_compiled

__all__ = [
    "flaggable_categories",
    "organisations_administered",
    "playbook_get_for_admin",
    "playbook_list_for_admin",
    "router_get_for_admin",
    "router_list_for_admin",
    "rule_hit_counts",
]


def flaggable_categories(*, playbook_version: PlaybookVersion) -> list[str]:
    """The kinds of clause a lawyer may flag on a review: its playbook's and CUAD's."""
    compiled = playbook_compiled(playbook_version)
    return sorted(set(compiled.playbook.categories) | set(CATEGORY_LABELS))


def playbook_list_for_admin(*, user: AnyUser) -> QuerySet[Playbook]:
    organisations = organisations_administered(user=user)
    return (
        Playbook.objects.filter(Q(organisation__isnull=True) | Q(organisation__in=organisations))
        .select_related("organisation")
        .annotate(version_count=Count("versions"))
        .order_by("organisation__name", "name")
    )


def playbook_get_for_admin(*, user: AnyUser, playbook_id: int) -> Playbook | None:
    return playbook_list_for_admin(user=user).filter(pk=playbook_id).first()


def router_list_for_admin(*, user: AnyUser) -> list[RouterVersion]:
    """Shipped router versions and those of the organisations the user administers, newest
    first, each marked ``in_use`` when new reviews of its organisation would run with it."""
    organisations = list(organisations_administered(user=user).values_list("pk", flat=True))
    versions = list(
        RouterVersion.objects.filter(
            Q(organisation__isnull=True) | Q(organisation__in=organisations)
        )
        .defer("artefact")
        .order_by("organisation_id", "-number")
    )
    own_active = {v.organisation_id for v in versions if v.organisation_id and v.is_active}
    newest_shipped = max((v.number for v in versions if v.organisation_id is None), default=None)
    for version in versions:
        if version.organisation_id:
            version.in_use = version.is_active  # type: ignore[attr-defined]
        else:
            version.in_use = (  # type: ignore[attr-defined]
                version.number == newest_shipped and not set(organisations) <= own_active
            )
    return versions


def router_get_for_admin(*, user: AnyUser, router_id: int) -> RouterVersion | None:
    organisations = organisations_administered(user=user)
    return (
        RouterVersion.objects.filter(pk=router_id, organisation__in=organisations)
        .defer("artefact")
        .first()
    )


def rule_hit_counts(*, playbook: Playbook, user: AnyUser) -> dict[str, int]:
    """Firings per rule in the reviews of the organisations ``user`` administers only: a shipped
    playbook is shared, its use by other organisations is not. Read through the versions'
    reverse relation to the reviews' firings (rules sits below reviews and imports none of it)."""
    organisations = organisations_administered(user=user)
    rows = (
        PlaybookVersion.objects.filter(
            playbook=playbook,
            rulefiring__review__contract__matter__organisation__in=organisations,
        )
        .values("rulefiring__rule_id")
        .annotate(hits=Count("rulefiring"))
    )
    return {row["rulefiring__rule_id"]: row["hits"] for row in rows}
