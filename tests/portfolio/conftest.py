"""Reviewed contracts for the portfolio tests, run to the end by the offline engine."""

from __future__ import annotations

import pytest

from reviewapp.queue.models import QueueItem
from reviewapp.queue.services import queue_item_claim, queue_item_decide
from reviewapp.reviews.models import Draft
from reviewapp.reviews.services import review_scan
from tests.factories import CONTRACT, STRICT, active_playbook, ingested_contract

DATED = """MASTER SERVICES AGREEMENT

This Master Services Agreement is entered into as of March 3, 2021 by and between
Acme Corp., a Delaware corporation ("Acme"), and Beta LLC ("Beta").

1. Assignment. Neither party may assign this Agreement without consent.

2. Pricing. Customer shall receive most favored nation pricing.

3. Governing Law. This Agreement shall be governed by the laws of the State of New York.

4. Notices. Notices shall be in writing.
"""


@pytest.fixture
def strict_playbook(matter):
    return active_playbook(organisation=matter.organisation, source=STRICT)


@pytest.fixture
def review_contract(matter, strict_playbook, django_capture_on_commit_callbacks):
    """review_contract(text=..., name=...) -> the contract, reviewed (draft and checks done)."""

    def review(*, text: str = DATED, name: str = "msa.txt"):
        contract = ingested_contract(matter=matter, text=text, name=name)
        with django_capture_on_commit_callbacks(execute=True):
            review_scan(contract_id=contract.pk)
        contract.refresh_from_db()
        return contract

    return review


# Key facts in the normalised shape `reviews.key_facts.facts_of` reads (whatever engine wrote them).
FACTS = {
    "Parties": {
        "value": [{"name": "Acme Corp."}, {"name": "Beta LLC"}],
        "display": "Acme Corp.; Beta LLC",
        "passage_index": 1,
    },
    "Agreement Date": {"value": "2021-03-03", "display": "March 3, 2021", "passage_index": 1},
    "Governing Law": {"value": "US-NY", "display": "New York", "passage_index": 4},
}


def with_facts(contract, facts=None) -> None:
    """Give the contract's draft these key facts (the draft's own extraction is H4's concern)."""
    draft = Draft.objects.get(review__contract=contract)
    draft.data = {**draft.data, "key_facts": facts or FACTS}
    draft.save(update_fields=["data"])


def decide(review, lawyer, *, rule_id: str, decision: str, note: str = "") -> QueueItem:
    item = QueueItem.objects.get(review=review, passage__firings__rule_id=rule_id)
    queue_item_claim(item_id=item.pk, user=lawyer)
    return queue_item_decide(item_id=item.pk, user=lawyer, decision=decision, note=note)


__all__ = ["CONTRACT", "DATED", "FACTS", "decide", "with_facts"]
