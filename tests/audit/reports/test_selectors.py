from datetime import timedelta
from decimal import Decimal

import pytest
from django.utils import timezone

from reviewapp.audit.reports.choices import report_choices
from reviewapp.audit.reports.filters import ReportFilters
from reviewapp.audit.reports.selectors import report_build

pytestmark = pytest.mark.django_db

HOUR = timedelta(hours=1)


def build(world, days: int = 30, **narrow):
    today = timezone.now().date()
    filters = ReportFilters(
        organisation_ids=(world.org.pk,),
        date_from=today - timedelta(days=days - 1),
        date_to=today,
        **narrow,
    )
    return report_build(filters=filters)


def close(value, expected):
    return value is not None and abs(value - expected) < timedelta(seconds=1)


def test_contract_figures_count_the_period_in_the_admins_organisation(world):
    reviews = build(world).reviews
    assert (reviews.total, reviews.complete, reviews.blocked, reviews.in_review) == (3, 1, 1, 1)
    assert close(reviews.turnaround.p50, 2 * HOUR) and close(reviews.turnaround.p95, 2 * HOUR)


def test_passage_figures_match_the_hand_count(world):
    passages = build(world).passages
    assert (passages.scanned, passages.chars) == (9, 700)
    assert (passages.routed, passages.routed_chars, passages.human) == (6, 390, 4)
    assert passages.routed_share == pytest.approx(6 / 9)
    assert passages.routed_char_share == pytest.approx(390 / 700)
    assert passages.human_share == pytest.approx(4 / 9)
    assert passages.states == {
        "CONFIRMED": 5,
        "PENDING": 1,
        "REJECTED": 3,
        "NEEDS_HUMAN_REVIEW": 0,
    }


def test_verification_outcomes_are_counted_per_outcome(world):
    assert build(world).verifications == {
        "CONFIRMED": 1,
        "NEEDS_HUMAN_REVIEW": 1,
        "REJECTED": 2,
        "QUEUED": 1,
    }


def test_overturn_rate_counts_accepted_rejections_by_rule_and_by_model(world):
    queue = build(world).queue
    assert (queue.total, queue.decided) == (4, 3)
    assert (queue.rejections_decided, queue.overturned) == (2, 1)
    assert queue.overturn_rate == pytest.approx(0.5)
    assert (queue.rule_rejections_decided, queue.rule_overturned) == (1, 1)
    assert (queue.model_rejections_decided, queue.model_overturned) == (1, 0)
    assert (queue.uncertain_decided, queue.uncertain_accepted) == (1, 0)


def test_sla_breaches_and_queue_turnaround_percentiles(world):
    queue = build(world).queue
    assert (queue.decided_late, queue.open_overdue, queue.escalated) == (1, 1, 1)
    assert queue.sla_breaches == 2
    # decided after 1 h, 2 h and 30 h: continuous percentiles
    assert close(queue.turnaround.p50, 2 * HOUR)
    assert close(queue.turnaround.p95, timedelta(hours=27.2))


def test_model_usage_sums_tokens_and_cost(world):
    totals = build(world).model_totals
    assert totals.calls == 2
    assert (totals.input_tokens, totals.output_tokens) == (1100, 250)
    assert (totals.cache_read, totals.cache_write) == (900, 900)
    assert totals.cost_usd == Decimal("0.06")


def test_rule_rows_say_how_each_rules_hits_ended(world):
    rows = {row.rule_id: row for row in build(world).rules}
    assert list(rows) == ["R1", "R2", "R3"]  # most hits first; the other org's R1 is not here
    r1 = rows["R1"]
    assert (r1.hits, r1.confirmed, r1.rejected, r1.open, r1.human) == (4, 1, 2, 1, 1)
    assert r1.noise == pytest.approx(1 / 3)  # of the 3 settled hits; the open one not counted
    assert rows["R2"].noise == 1.0 and rows["R3"].noise == 0.0
    r2, r3 = rows["R2"], rows["R3"]
    assert (r2.hits, r2.confirmed, r2.rejected, r2.open, r2.human) == (1, 1, 0, 0, 1)
    assert (r3.hits, r3.confirmed, r3.rejected, r3.open, r3.human) == (1, 0, 1, 0, 1)


def test_categories_and_daily_series(world):
    report = build(world)
    assert report.categories == [("Anti-Assignment", 5), ("Most Favored Nation", 1)]
    assert len(report.series) == 30
    assert sum(count for _, count in report.series) == 3
    today = timezone.now().date()
    assert dict(report.series)[today - timedelta(days=1)] == 1


def test_a_longer_period_takes_in_older_reviews_by_week(world):
    report = build(world, days=120)
    assert report.reviews.total == 4
    assert close(report.reviews.turnaround.p50, timedelta(hours=3.5))
    assert close(report.reviews.turnaround.p95, timedelta(hours=4.85))
    assert all(day.weekday() == 0 for day, _ in report.series)
    assert sum(count for _, count in report.series) == 4


def test_matter_and_reviewer_filters_keep_that_matters_contracts(world):
    for report in (build(world, matter_id=world.m2.pk), build(world, reviewer_id=world.bob.pk)):
        assert report.reviews.total == 1
        assert (report.passages.scanned, report.passages.routed, report.passages.human) == (2, 1, 0)
        assert [(r.rule_id, r.hits, r.open) for r in report.rules] == [("R1", 1, 1)]


def test_engine_filter(world):
    report = build(world, engine="anthropic")
    assert report.reviews.total == 1
    assert report.model_totals.calls == 2
    assert report.queue.total == 2


def test_lawyer_filter_keeps_the_items_that_lawyer_handled(world):
    report = build(world, lawyer_id=world.liu.pk)
    assert report.reviews.total == 1
    assert report.passages.human == 2
    assert (report.queue.total, report.queue.decided, report.queue.open_overdue) == (2, 1, 1)
    assert [(r.rule_id, r.hits) for r in report.rules] == [("R1", 1), ("R3", 1)]


def test_category_filter_narrows_routing_and_rules(world):
    report = build(world, category="Most Favored Nation")
    assert report.reviews.total == 1
    passages = report.passages
    assert (passages.scanned, passages.routed, passages.routed_chars, passages.chars) == (
        4,
        1,
        80,
        300,
    )
    assert (report.queue.total, report.queue.overturned) == (1, 1)
    assert report.queue.overturn_rate == 1.0
    assert [row.rule_id for row in report.rules] == ["R2"]
    assert report.model_totals.calls == 0


def test_filters_combine(world):
    report = build(world, rule_id="R1", lawyer_id=world.lee.pk)
    assert report.reviews.total == 1
    assert (report.queue.total, report.queue.decided_late) == (1, 1)
    assert [(r.rule_id, r.hits, r.human) for r in report.rules] == [("R1", 1, 1)]
    assert build(world, rule_id="R2", matter_id=world.m2.pk).reviews.total == 0


def test_choices_list_only_the_admins_organisation(world):
    choices = report_choices(organisation_ids=(world.org.pk,))
    assert [name for _, name in choices.matters] == ["M1", "M2"]
    assert [name for _, name in choices.lawyers] == ["ada", "lee", "liu"]
    assert "Theirs" not in str(choices)
    assert choices.rules == ["R1", "R2", "R3"]
    assert choices.categories == ["Anti-Assignment", "Most Favored Nation"]
