"""A lawyer's word on the categories of a passage (``PassageLabel``): written when a queue item
is decided or a lawyer flags a clause the review missed, read by the scan (a category a lawyer
called "not this kind of clause" is not raised on that passage again; a lawyer's flag stays)
and by the organisation's retraining (``rules.decision_labels``)."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping
from typing import Any

from reviewapp.contracts.models import Passage
from reviewapp.reviews.models import LabelKind, PassageLabel, Review, RuleFiring


def passage_labels_record(
    *,
    passage: Passage,
    review: Review,
    answers: Mapping[str, str],
    item_id: int | None,
    user: Any,
    note: str = "",
) -> list[PassageLabel]:
    """Each answered category's label becomes the lawyer's latest word on it (a flag the lawyer
    raised keeps ``raised`` whatever they then decide of it)."""
    labels = []
    for category, kind in answers.items():
        label, _created = PassageLabel.objects.update_or_create(
            passage=passage,
            category=category,
            defaults={
                "review": review,
                "kind": LabelKind(kind),
                "item_id": item_id,
                "by": user,
                "note": note,
            },
        )
        labels.append(label)
    return labels


def passage_flag_record(
    *, passage: Passage, review: Review, category: str, item_id: int, user: Any, note: str
) -> PassageLabel:
    label, _created = PassageLabel.objects.update_or_create(
        passage=passage,
        category=category,
        defaults={
            "review": review,
            "kind": LabelKind.FLAGGED,
            "raised": True,
            "item_id": item_id,
            "by": user,
            "note": note,
        },
    )
    return label


def passage_labels_withdraw(*, item_id: int) -> None:
    """An undone decision takes back its labels; a flag the lawyer raised is a flag again."""
    labels = PassageLabel.objects.filter(item_id=item_id)
    labels.filter(raised=True).update(kind=LabelKind.FLAGGED)
    labels.filter(raised=False).delete()


def refused_categories(*, passage_ids: Iterable[int]) -> set[tuple[int, str]]:
    """(passage id, category) pairs a lawyer called not this kind of clause."""
    return set(
        PassageLabel.objects.filter(
            passage_id__in=list(passage_ids), kind=LabelKind.NOT_THIS
        ).values_list("passage_id", "category")
    )


def raised_categories(*, passage_ids: Iterable[int]) -> dict[int, set[str]]:
    """Per passage, the categories a lawyer flagged there (and has not called not this)."""
    found: dict[int, set[str]] = defaultdict(set)
    rows = PassageLabel.objects.filter(passage_id__in=list(passage_ids), raised=True).exclude(
        kind=LabelKind.NOT_THIS
    )
    for passage_id, category in rows.values_list("passage_id", "category"):
        found[passage_id].add(category)
    return found


def categories_standing(*, passage_ids: Iterable[int]) -> dict[int, list[str]]:
    """Per passage, the categories that stand on it: those the scan named and the check kept,
    without those a lawyer called not this, with those a lawyer flagged."""
    ids = list(passage_ids)
    standing: dict[int, set[str]] = defaultdict(set)
    for passage_id, category in RuleFiring.objects.filter(
        passage_id__in=ids, dropped=False
    ).values_list("passage_id", "category"):
        standing[passage_id].add(category)
    for passage_id, category in refused_categories(passage_ids=ids):
        standing[passage_id].discard(category)
    for passage_id, categories in raised_categories(passage_ids=ids).items():
        standing[passage_id] |= categories
    return {pid: sorted(standing.get(pid, ())) for pid in ids}
