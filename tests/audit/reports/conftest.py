"""A small, hand-countable history for the reports: see the docstring of `world`."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from decimal import Decimal
from typing import Any

import pytest
from django.db.models import F
from django.utils import timezone

from reviewapp.accounts.models import Matter, Organisation, Role
from reviewapp.contracts.models import Contract, DocumentStatus, Passage
from reviewapp.queue.models import QueueItem
from reviewapp.reviews.models import ModelCall, Review, RuleFiring, Verification
from reviewapp.rules.models import Playbook, PlaybookVersion

C, P, R, H = "CONFIRMED", "PENDING", "REJECTED", "NEEDS_HUMAN_REVIEW"


@dataclass
class Builder:
    version: PlaybookVersion
    now: datetime
    contracts: dict[str, Contract] = field(default_factory=dict)
    passages: dict[str, list[Passage]] = field(default_factory=dict)

    def contract(self, key: str, *, matter: Matter, by: Any, days_ago: float, **review: Any):
        """A scanned contract; `review` sets status, engine and completed_after (a timedelta)."""
        uploaded = self.now - timedelta(days=days_ago)
        contract = Contract.objects.create(
            matter=matter,
            uploaded_by=by,
            original_name=f"{key}.txt",
            file=f"contracts/{key}.txt",
            sha256=hashlib.sha256(key.encode()).hexdigest(),
            size=10,
            status=DocumentStatus.INGESTED,
        )
        Contract.objects.filter(pk=contract.pk).update(created_at=uploaded)
        contract.created_at = uploaded
        completed_after = review.pop("completed_after", None)
        made = Review.objects.create(
            contract=contract,
            playbook_version=self.version,
            status=review.pop("status"),
            engine=review.pop("engine", "offline"),
            completed_at=uploaded + completed_after if completed_after else None,
        )
        Review.objects.filter(pk=made.pk).update(created_at=uploaded)
        self.contracts[key] = contract
        self.passages[key] = []
        return contract

    def passage(self, key: str, *, length: int, state: str) -> Passage:
        contract = self.contracts[key]
        index = len(self.passages[key])
        passage = Passage.objects.create(
            contract=contract,
            index=index,
            page=1,
            start=0,
            end=length,
            text="x" * length,
            state=state,
        )
        self.passages[key].append(passage)
        # as the scan leaves them
        Review.objects.filter(contract=contract).update(
            passage_count=F("passage_count") + 1, char_count=F("char_count") + length
        )
        return passage

    def fire(self, passage: Passage, rule_id: str, category: str, action: str = "verify"):
        RuleFiring.objects.create(
            review=passage.contract.review,
            passage=passage,
            playbook_version=self.version,
            rule_id=rule_id,
            category=category,
            action=action,
            severity="high",
            match_start=0,
            match_end=1,
            passage_state=passage.state,  # as the scan and the transitions leave it
            passage_chars=passage.end - passage.start,
            passage_first=not RuleFiring.objects.filter(passage=passage).exists(),
        )

    def verify(self, passage: Passage, outcome: str | None, engine: str = "offline"):
        Verification.objects.create(
            review=passage.contract.review,
            passage=passage,
            engine=engine,
            status="DONE" if outcome else "QUEUED",
            outcome=outcome or "",
        )

    def item(
        self,
        passage: Passage,
        *,
        state: str,
        opened_after: timedelta,
        due_in: timedelta,
        decided_in: timedelta | None = None,
        decision: str = "",
        lawyer: Any = None,
        escalated: bool = False,
    ) -> QueueItem:
        opened = passage.contract.created_at + opened_after
        item = QueueItem.objects.create(
            passage=passage,
            review=passage.contract.review,
            matter=passage.contract.matter,
            state=state,
            severity="high",
            due_at=opened + due_in,
            status="DONE" if decided_in else ("CLAIMED" if lawyer else "OPEN"),
            claimed_by=lawyer,
            decided_by=lawyer if decided_in else None,
            decided_at=opened + decided_in if decided_in else None,
            decision=decision,
            escalated_at=opened + due_in if escalated else None,
        )
        QueueItem.objects.filter(pk=item.pk).update(created_at=opened)
        return item

    def call(self, key: str, purpose: str, tokens: tuple[int, int, int, int], cost: str):
        ModelCall.objects.create(
            review=self.contracts[key].review,
            purpose=purpose,
            model="claude-test",
            input_tokens=tokens[0],
            output_tokens=tokens[1],
            cache_read_input_tokens=tokens[2],
            cache_creation_input_tokens=tokens[3],
            outcome="ok",
            cost_usd=Decimal(cost),
        )


@dataclass
class World:
    org: Organisation
    m1: Matter
    m2: Matter
    admin: Any
    rita: Any
    bob: Any
    lee: Any
    liu: Any
    builder: Builder


def _playbook_version(org: Organisation) -> PlaybookVersion:
    playbook = Playbook.objects.create(organisation=org, name="reports-test", language="en")
    return PlaybookVersion.objects.create(playbook=playbook, number=1, source="rules: []")


@pytest.fixture
def world(make_user, make_matter) -> World:
    """Three contracts in the last 30 days, one older, one in another organisation.

    A (m1, rita, offline, 3 days ago, COMPLETE 2 h after upload), passages 100/50/80/70 chars:
      0 no rule; 1 R1 fired, verifier CONFIRMED; 2 R2 (reject) fired, item REJECTED accepted by
      lee after 1 h (a rule overturned); 3 R1 fired, verifier NEEDS_HUMAN_REVIEW, item decided
      reject by lee after 30 h, due after 24 h (late).
    B (m1, rita, anthropic, 1 day ago, BLOCKED), passages 200/60/40 chars:
      0 no rule; 1 R1 fired, verifier REJECTED, item claimed by liu, due 1 h ago (open overdue,
      escalated); 2 R3 fired, verifier REJECTED, item decided reject by liu after 2 h (upheld).
      Model calls: draft (1000 in, 200 out, 0 read, 900 write, $0.05) and verify (100, 50,
      900, 0, $0.01).
    C (m2, bob, offline, 2 days ago, IN_REVIEW), passages 90/10: 0 R1 fired, verification
      queued (PENDING); 1 no rule.
    """
    admin, rita, bob = make_user("ada"), make_user("rita"), make_user("bob")
    lee, liu = make_user("lee"), make_user("liu")
    m1 = make_matter(
        "M1",
        members=[
            (admin, Role.ADMIN),
            (rita, Role.REVIEWER),
            (lee, Role.LAWYER),
            (liu, Role.LAWYER),
        ],
    )
    m2 = make_matter("M2", members=[(bob, Role.REVIEWER), (lee, Role.LAWYER)])
    b = Builder(version=_playbook_version(m1.organisation), now=timezone.now())
    hour = timedelta(hours=1)

    b.contract("A", matter=m1, by=rita, days_ago=3, status="COMPLETE", completed_after=2 * hour)
    a0, a1, a2, a3 = (
        b.passage("A", length=n, state=s) for n, s in ((100, C), (50, C), (80, C), (70, R))
    )
    b.fire(a1, "R1", "Anti-Assignment")
    b.verify(a1, C)
    b.fire(a2, "R2", "Most Favored Nation", action="reject")
    b.item(
        a2,
        state=R,
        opened_after=timedelta(0),
        due_in=4 * hour,
        decided_in=hour,
        decision="accept",
        lawyer=lee,
    )
    b.fire(a3, "R1", "Anti-Assignment")
    b.verify(a3, H)
    b.item(
        a3,
        state=H,
        opened_after=timedelta(0),
        due_in=24 * hour,
        decided_in=30 * hour,
        decision="reject",
        lawyer=lee,
    )

    b.contract("B", matter=m1, by=rita, days_ago=1, status="BLOCKED", engine="anthropic")
    _, b1, b2 = (b.passage("B", length=n, state=s) for n, s in ((200, C), (60, R), (40, R)))
    b.fire(b1, "R1", "Anti-Assignment")
    b.verify(b1, R, engine="anthropic")
    b.item(b1, state=R, opened_after=timedelta(0), due_in=23 * hour, lawyer=liu, escalated=True)
    b.fire(b2, "R3", "Anti-Assignment")
    b.verify(b2, R, engine="anthropic")
    b.item(
        b2,
        state=R,
        opened_after=timedelta(0),
        due_in=24 * hour,
        decided_in=2 * hour,
        decision="reject",
        lawyer=liu,
    )
    b.call("B", "draft", (1000, 200, 0, 900), "0.05")
    b.call("B", "verify", (100, 50, 900, 0), "0.01")

    b.contract("C", matter=m2, by=bob, days_ago=2, status="IN_REVIEW")
    c0 = b.passage("C", length=90, state=P)
    b.passage("C", length=10, state=C)
    b.fire(c0, "R1", "Anti-Assignment")
    b.verify(c0, None)

    b.contract("OLD", matter=m1, by=rita, days_ago=40, status="COMPLETE", completed_after=5 * hour)
    b.passage("OLD", length=500, state=C)

    elsewhere = make_matter("Theirs", organisation="Other org", members=[(rita, Role.REVIEWER)])
    b.contract("X", matter=elsewhere, by=rita, days_ago=1, status="BLOCKED")
    b.fire(b.passage("X", length=30, state=R), "R1", "Anti-Assignment", action="reject")
    return World(m1.organisation, m1, m2, admin, rita, bob, lee, liu, b)
