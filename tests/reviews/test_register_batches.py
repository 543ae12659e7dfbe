"""The state register works in batches: a check batch's moves, queue items, history, audit and
live events cost the same statements for 3 passages as for 12, and the live events of one
commit reach the channel layer in one call, without those of a rolled-back savepoint."""

from __future__ import annotations

import pytest
from django.db import connection, transaction
from django.test.utils import CaptureQueriesContext

from reviewapp.audit.models import AuditEvent
from reviewapp.contracts.models import PassageState
from reviewapp.queue.models import QueueHistory, QueueItem
from reviewapp.realtime import events
from reviewapp.realtime.models import Event
from reviewapp.reviews.models import ActorKind, PassageTransition
from reviewapp.reviews.services import review_scan
from reviewapp.reviews.transitions import Move, passages_transition
from tests.factories import STRICT, active_playbook, ingested_contract


def _pending(matter, count: int, capture):
    """A scanned contract whose ``count`` flagged passages wait for their check (the model
    work is queued on a commit that never comes)."""
    text = "".join(f"{n}. Transfer {n}. Neither party may assign this.\n\n" for n in range(count))
    contract = ingested_contract(matter=matter, text=text, name=f"c{count}.txt")
    with capture():
        review = review_scan(contract_id=contract.pk, engine="offline")
    pending = list(contract.passages.filter(state=PassageState.PENDING))
    assert len(pending) == count
    return review, pending


def test_a_check_batch_costs_the_same_statements_for_3_or_12_passages(
    make_matter, django_capture_on_commit_callbacks
):
    matter = make_matter()
    active_playbook(organisation=matter.organisation, source=STRICT)
    counts = []
    for count in (3, 12):
        review, pending = _pending(matter, count, django_capture_on_commit_callbacks)
        moves = [Move(p.pk, PassageState.NEEDS_HUMAN_REVIEW, "NO_OFFLINE_VERDICT") for p in pending]
        before = Event.objects.count()
        with CaptureQueriesContext(connection) as queries:
            passages_transition(moves=moves, actor_kind=ActorKind.ENGINE, actor="offline")
        counts.append(len(queries))
        items = QueueItem.objects.filter(review=review)
        assert items.count() == count
        assert QueueHistory.objects.filter(item__review=review).count() == count
        opened = AuditEvent.objects.filter(action="queue.opened", data__review_id=review.pk)
        assert opened.count() == count
        assert PassageTransition.objects.filter(review=review, actor="offline").count() == count
        new = Event.objects.filter(pk__gt=0).count() - before
        assert new == 2 * count  # each passage's state, each item opened
    assert counts[0] == counts[1], counts


def test_an_open_item_is_kept_when_its_passage_is_handed_over_again(
    make_matter, django_capture_on_commit_callbacks
):
    from reviewapp.queue.services import queue_items_open

    matter = make_matter()
    active_playbook(organisation=matter.organisation, source=STRICT)
    review, pending = _pending(matter, 2, django_capture_on_commit_callbacks)
    first = queue_items_open(review=review, openings=[(pending[0], "FIRST")])
    both = queue_items_open(review=review, openings=[(p, "AGAIN") for p in pending])
    assert both[0].pk == first[0].pk and both[1].pk != first[0].pk
    assert QueueItem.objects.filter(review=review).count() == 2


@pytest.mark.django_db(transaction=True)
def test_the_events_of_one_commit_are_pushed_together_and_a_rolled_back_one_never(
    make_matter, monkeypatch
):
    calls: list[list[str]] = []
    monkeypatch.setattr(
        events, "_push_all", lambda messages: calls.append([m["type"] for m in messages])
    )
    matter = make_matter()
    with transaction.atomic():
        events.event_publish(matter_id=matter.pk, type="first", payload={})
        try:
            with transaction.atomic():
                events.event_publish(matter_id=matter.pk, type="rolled.back", payload={})
                raise RuntimeError("the savepoint is rolled back")
        except RuntimeError:
            pass
        events.events_publish(
            [
                {"matter_id": matter.pk, "type": "second", "payload": {}},
                {"matter_id": matter.pk, "type": "third", "payload": {}},
            ]
        )
        assert calls == []  # nothing before the commit
    assert calls == [["first", "second", "third"]]
    events.event_publish(matter_id=matter.pk, type="alone", payload={})  # autocommit: at once
    assert calls[-1] == ["alone"]
