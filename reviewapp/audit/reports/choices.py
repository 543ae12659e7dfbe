"""The choices of the reports' filter form: matters, people, categories and rules."""

from __future__ import annotations

from typing import Any

from reviewapp.accounts.models import Matter, Membership, Role
from reviewapp.audit.reports.figures import ReportChoices
from reviewapp.reviews.models import Review, RuleFiring
from reviewapp.rules.models import PlaybookVersion
from reviewapp.rules.services import PlaybookInvalid, playbook_compiled


def _rules_of_playbooks_used(organisation_ids: tuple[int, ...]) -> list[tuple[str, str]]:
    """Every rule of the playbook versions the organisations' reviews ran with.

    Read from the (few, cached) compiled playbooks rather than from the millions of firings.
    """
    used = Review.objects.filter(contract__matter__organisation_id__in=organisation_ids)
    versions = PlaybookVersion.objects.filter(
        pk__in=used.values("playbook_version_id").order_by().distinct()
    )
    rows: list[tuple[str, str]] = []
    for version in versions:
        try:
            rows += [(c.rule.id, c.rule.category) for c in playbook_compiled(version).rules]
        except PlaybookInvalid:  # saved versions are linted; keep the report up regardless
            fired = RuleFiring.objects.filter(playbook_version=version)
            rows += fired.values_list("rule_id", "category").order_by().distinct()
    return rows


def report_choices(*, organisation_ids: tuple[int, ...]) -> ReportChoices:
    matters = Matter.objects.filter(organisation_id__in=organisation_ids).select_related(
        "organisation"
    )
    several = len(organisation_ids) > 1
    members = (
        Membership.objects.filter(matter__organisation_id__in=organisation_ids)
        .values_list("user_id", "user__username", "role")
        .order_by("user__username")
        .distinct()
    )
    member_rows = list(members)
    rule_rows = _rules_of_playbooks_used(organisation_ids)
    return ReportChoices(
        matters=sorted(
            (m.pk, f"{m.name} ({m.organisation.name})" if several else m.name) for m in matters
        ),
        reviewers=_unique((pk, name) for pk, name, _ in member_rows),
        lawyers=_unique(
            (pk, name) for pk, name, role in member_rows if role in (Role.LAWYER, Role.ADMIN)
        ),
        categories=sorted({category for _, category in rule_rows}),
        rules=sorted({rule_id for rule_id, _ in rule_rows}),
    )


def _unique(pairs: Any) -> list[tuple[int, str]]:
    return sorted(dict(pairs).items(), key=lambda pair: pair[1])


# -- the population ---------------------------------------------------------------------------
