from __future__ import annotations

from django.db.models import Count, Q, QuerySet

from reviewapp.accounts.selectors import AnyUser, organisations_administered
from reviewapp.rules.models import Playbook

__all__ = [
    "organisations_administered",
    "playbook_get_for_admin",
    "playbook_list_for_admin",
    "rule_hit_counts",
]


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


def rule_hit_counts(*, playbook: Playbook) -> dict[str, int]:
    from reviewapp.reviews.models import RuleFiring

    rows = (
        RuleFiring.objects.filter(playbook_version__playbook=playbook)
        .values("rule_id")
        .annotate(hits=Count("id"))
    )
    return {row["rule_id"]: row["hits"] for row in rows}
