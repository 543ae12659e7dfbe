"""What a re-run changed: the snapshot taken before it against the register now."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field

from reviewapp.portfolio.ranks import severity_rank, worse_severity
from reviewapp.reviews.key_facts import facts_of
from reviewapp.reviews.models import Draft, DraftStatus, Review, ReviewSnapshot, RuleFiring


@dataclass(frozen=True)
class Change:
    passage_index: int
    heading: str
    category: str
    before: str  # severity before ("" when it was not flagged)
    after: str  # severity now ("" when it no longer is)
    state_before: str
    state_after: str


@dataclass(frozen=True)
class Comparison:
    snapshot: ReviewSnapshot
    newly_flagged: list[Change] = field(default_factory=list)
    no_longer_flagged: list[Change] = field(default_factory=list)
    severity_changed: list[Change] = field(default_factory=list)
    # Passages a lawyer had decided whose decision still stands after the re-run.
    decisions_kept: list[int] = field(default_factory=list)
    facts_changed: list[tuple[str, str, str]] = field(default_factory=list)
    # The new draft is still being written: its facts are compared once it is complete.
    facts_pending: bool = False

    @property
    def unchanged(self) -> bool:
        return not (
            self.newly_flagged
            or self.no_longer_flagged
            or self.severity_changed
            or self.facts_changed
        )


def rerun_comparison(*, snapshot: ReviewSnapshot) -> Comparison:
    """Per passage and category: flagged now and not then, then and not now, or more/less
    severe; plus the key facts whose text changed. A few queries."""
    review = Review.objects.select_related("contract").get(pk=snapshot.review_id)
    now: dict[int, dict[str, str]] = defaultdict(dict)
    states: dict[int, str] = {}
    headings: dict[int, str] = {}
    rows = RuleFiring.objects.filter(review=review).values_list(
        "passage__index", "category", "severity"
    )
    for index, category, severity in rows:
        now[index][category] = worse_severity(now[index].get(category), severity)
    for index, state, heading in review.contract.passages.values_list("index", "state", "heading"):
        states[index], headings[index] = state or "", heading
    draft = Draft.objects.filter(review=review).first()
    comparison = Comparison(
        snapshot=snapshot, facts_pending=draft is None or draft.status != DraftStatus.COMPLETE
    )
    for entry in snapshot.passages:
        index = entry["index"]
        _compare_passage(comparison, entry, now.get(index, {}), states.get(index, ""))
        if entry["decided"] and states.get(index) == entry["state"]:
            comparison.decisions_kept.append(index)
    if comparison.facts_pending:
        return comparison
    review.draft = draft
    facts_now = {name: fact.display for name, fact in facts_of(review).items()}
    for name in sorted(set(snapshot.key_facts) | set(facts_now)):
        before, after = snapshot.key_facts.get(name, ""), facts_now.get(name, "")
        if before != after:
            comparison.facts_changed.append((name, before, after))
    return comparison


def _compare_passage(
    comparison: Comparison, entry: dict, now: dict[str, str], state_now: str
) -> None:
    then: dict[str, str] = entry["flags"]
    for category in sorted(set(then) | set(now)):
        change = Change(
            passage_index=entry["index"],
            heading=entry.get("heading", ""),
            category=category,
            before=then.get(category, ""),
            after=now.get(category, ""),
            state_before=entry["state"] or "",
            state_after=state_now,
        )
        if category not in then:
            comparison.newly_flagged.append(change)
        elif category not in now:
            comparison.no_longer_flagged.append(change)
        elif severity_rank(change.before) != severity_rank(change.after):
            comparison.severity_changed.append(change)
