"""Flags the model adds: a passage that only the Claude draft names is sent back to PENDING,
verified like any other and settled by a lawyer, never left CONFIRMED; the model never clears a
flag it or a rule raised."""

from __future__ import annotations

import json
import logging
from contextlib import ExitStack
from typing import Any

import pytest

from reviewapp.accounts.models import Membership, Role
from reviewapp.audit.models import AuditEvent
from reviewapp.contracts.models import Passage, PassageState
from reviewapp.queue.models import ItemStatus, QueueItem
from reviewapp.realtime.models import Event
from reviewapp.reviews.drafting import draft_run
from reviewapp.reviews.model_flags import MODEL_CATEGORY, MODEL_RULE_ID, draft_flags_raise
from reviewapp.reviews.model_work import verifications_run
from reviewapp.reviews.models import (
    ActorKind,
    DraftStatus,
    PassageTransition,
    Review,
    ReviewStatus,
    RuleFiring,
    Verification,
    VerificationStatus,
)
from reviewapp.reviews.reasons import MODEL_RAISED
from reviewapp.reviews.services import passage_transition, review_scan
from reviewapp.reviews.states import DRAFT_FLOW, TransitionNotAllowed, check_transition
from tests.factories import CONTRACT as STRICT_CONTRACT
from tests.factories import STRICT, active_playbook, ingested_contract
from tests.fakes.messages_server import (
    BrainRequest,
    FakeMessagesServer,
    ScriptedBrain,
    running_server,
)

pytestmark = pytest.mark.django_db

# No rule of the default playbook fires on any of these passages.
QUIET = """SERVICES AGREEMENT

1. Services. Supplier shall provide the services described in Schedule 1.

2. Notices. Notices under this Agreement shall be given in writing to the addresses above.

3. Payment. Customer shall pay each invoice within thirty days of receipt.
"""
NOTICES = 2  # the passage index of "2. Notices."
TITLE = "Notices cannot be sent by e-mail"


def draft_naming(*issues: tuple[int, str, str], verdicts: Any = None) -> ScriptedBrain:
    """A brain whose draft lists exactly these (passage, risk, title) issues."""

    def draft(_request: BrainRequest) -> str:
        return json.dumps(
            {
                "summary": "A services agreement.",
                "key_facts": {"parties": [], "dates": [], "amounts": []},
                "issues": [
                    {
                        "passage": passage,
                        "risk": risk,
                        "title": title,
                        "recommendation": "Ask for notice by e-mail as well.",
                    }
                    for passage, risk, title in issues
                ],
            }
        )

    return ScriptedBrain(draft=draft, verdicts=verdicts)


def verdicts_quoting(quote: str) -> Any:
    def verdicts(request: BrainRequest) -> dict[str, Any]:
        return {
            "verdicts": [
                {
                    "passage": index,
                    "outcome": "CONFIRMED",
                    "risk": "low",
                    "rationale": "Acceptable.",
                    "quote": quote,
                    "redline": "",
                    "question": "",
                }
                for index in request.batch
            ]
        }

    return verdicts


@pytest.fixture
def claude(settings):
    """Point the app at a fake Messages API whose brain the test chooses."""
    with ExitStack() as stack:

        def start(brain: ScriptedBrain) -> FakeMessagesServer:
            server = stack.enter_context(running_server(brain=brain))
            settings.REVIEW_ENGINE = "anthropic"
            settings.ANTHROPIC_API_KEY = "test-key"
            settings.ANTHROPIC_BASE_URL = server.url
            settings.LLM_TIMEOUT_S = 2.0
            settings.LLM_FIRST_TOKEN_TIMEOUT_S = 1.0
            settings.LLM_SDK_RETRIES = 0
            settings.LLM_TASK_RETRIES = 1
            settings.LLM_RETRY_BACKOFF_S = 0.0
            return server

        yield start


def scanned(matter, text: str = QUIET, engine: str = "anthropic") -> Review:
    contract = ingested_contract(matter=matter, text=text)
    review = review_scan(contract_id=contract.pk, engine=engine, enqueue=False)
    assert review is not None
    return review


def passage(review: Review, index: int) -> Passage:
    return Passage.objects.get(contract=review.contract, index=index)


def draft_then_verify(review: Review, capture) -> None:
    """The draft task, then the verification tasks it queued (Celery runs eagerly in tests)."""
    with capture(execute=True):
        draft_run(review_id=review.pk)


def test_passage_only_the_draft_names_goes_back_to_pending_until_verified(
    claude, matter, settings, django_capture_on_commit_callbacks
):
    server = claude(draft_naming((NOTICES, "high", TITLE)))
    review = scanned(matter)
    assert review.status == ReviewStatus.COMPLETE
    assert passage(review, NOTICES).state == PassageState.CONFIRMED

    with django_capture_on_commit_callbacks() as queued:
        draft_run(review_id=review.pk)

    notices = passage(review, NOTICES)
    assert notices.state == PassageState.PENDING
    review.refresh_from_db()
    assert review.status == ReviewStatus.IN_REVIEW and review.completed_at is None
    move = PassageTransition.objects.get(passage=notices, from_state=PassageState.CONFIRMED)
    assert (move.to_state, move.actor_kind) == (PassageState.PENDING, ActorKind.MODEL)
    assert move.actor == settings.ANTHROPIC_MODEL
    assert TITLE in move.reason and "high" in move.reason
    audited = AuditEvent.objects.filter(action="passage.transition", target_id=str(notices.pk))
    assert audited.filter(actor_kind="model", data__from="CONFIRMED", data__to="PENDING").exists()
    firing = RuleFiring.objects.get(passage=notices)
    assert (firing.rule_id, firing.category, firing.severity) == (
        MODEL_RULE_ID,
        MODEL_CATEGORY,
        "high",
    )
    verification = Verification.objects.get(passage=notices)
    assert verification.status == VerificationStatus.QUEUED
    assert verification.rule_ids == [MODEL_RULE_ID]

    with django_capture_on_commit_callbacks(execute=True):
        for callback in queued:
            callback()

    verification.refresh_from_db()
    assert verification.status == VerificationStatus.DONE
    # The verifier found it fine, with a quote; but the model that raised the flag does not
    # clear it: a lawyer does.
    assert verification.outcome == PassageState.NEEDS_HUMAN_REVIEW
    assert verification.reason == MODEL_RAISED
    assert verification.quote and verification.quote in notices.text
    assert passage(review, NOTICES).state == PassageState.NEEDS_HUMAN_REVIEW
    assert QueueItem.objects.filter(passage=notices).exists()
    review.refresh_from_db()
    assert review.status == ReviewStatus.IN_REVIEW
    asked = [r for r in server.requests if not r.stream]
    assert len(asked) == 1
    question = asked[0].body["messages"][-1]["content"]
    assert f"[P{NOTICES}] rule {MODEL_RULE_ID} ({MODEL_CATEGORY})" in question
    assert TITLE in question
    statuses = Event.objects.filter(type="review.status").values_list("payload__status", flat=True)
    assert list(statuses) == [ReviewStatus.IN_REVIEW]  # back in review, until a lawyer decides


def test_model_flag_without_a_verbatim_quote_goes_to_a_lawyer_who_sees_why(
    claude, matter, make_user, client, django_capture_on_commit_callbacks
):
    claude(
        draft_naming(
            (NOTICES, "high", TITLE), verdicts=verdicts_quoting("sent by carrier pigeon instead")
        )
    )
    review = scanned(matter)

    draft_then_verify(review, django_capture_on_commit_callbacks)

    notices = passage(review, NOTICES)
    assert notices.state == PassageState.NEEDS_HUMAN_REVIEW
    assert Verification.objects.get(passage=notices).reason == "QUOTE_NOT_FOUND"
    item = QueueItem.objects.get(passage=notices)
    assert item.status == ItemStatus.OPEN and item.severity == "high"
    review.refresh_from_db()
    assert review.status == ReviewStatus.IN_REVIEW

    lee = make_user("lee")
    Membership.objects.create(user=lee, matter=matter, role=Role.LAWYER)
    client.force_login(lee)
    why = f"raised by the model's draft: {TITLE}"
    assert why in client.get("/queue/").content.decode()
    assert why in client.get(f"/contracts/{review.contract_id}/").content.decode()
    chinese = client.get("/queue/", HTTP_ACCEPT_LANGUAGE="zh-hans").content.decode()
    assert f"由模型初稿提出：{TITLE}" in chinese


def test_model_flag_goes_to_a_lawyer_when_the_verifier_cannot_be_reached(
    claude, matter, django_capture_on_commit_callbacks
):
    def failing(_request: BrainRequest) -> dict[str, Any]:
        raise RuntimeError("the fake answers 500 to every verification")

    claude(draft_naming((NOTICES, "medium", TITLE), verdicts=failing))
    review = scanned(matter)

    draft_then_verify(review, django_capture_on_commit_callbacks)

    notices = passage(review, NOTICES)
    assert notices.state == PassageState.NEEDS_HUMAN_REVIEW
    assert Verification.objects.get(passage=notices).reason == "LLM_UNAVAILABLE"
    assert QueueItem.objects.filter(passage=notices).exists()


def test_most_severe_issue_names_the_flag_and_a_playbook_category_is_kept(
    claude, matter, django_capture_on_commit_callbacks
):
    claude(draft_naming((NOTICES, "low", "Wording"), (NOTICES, "critical", "insurance")))
    review = scanned(matter)

    with django_capture_on_commit_callbacks():
        draft_run(review_id=review.pk)

    firing = RuleFiring.objects.get(passage=passage(review, NOTICES))
    assert (firing.category, firing.severity) == ("Insurance", "critical")
    review.draft.refresh_from_db()
    [note] = review.draft.data["model_flags"]
    assert (note["passage"], note["title"], note["risk"]) == (NOTICES, "insurance", "critical")


def test_draft_never_reopens_or_clears_a_flagged_passage(
    claude, matter, django_capture_on_commit_callbacks
):
    active_playbook(organisation=matter.organisation, source=STRICT)
    review = scanned(matter, STRICT_CONTRACT)
    states = dict(review.contract.passages.values_list("index", "state"))
    rejected = next(i for i, s in states.items() if s == PassageState.REJECTED)
    pending = next(i for i, s in states.items() if s == PassageState.PENDING)
    quiet = next(i for i, s in states.items() if s == PassageState.CONFIRMED)
    claude(
        draft_naming(
            (rejected, "low", "Most favoured nation pricing is fine"),
            (pending, "low", "Assignment is fine"),
            (quiet, "medium", TITLE),
        )
    )

    draft_then_verify(review, django_capture_on_commit_callbacks)

    assert passage(review, rejected).state == PassageState.REJECTED
    assert passage(review, pending).state == PassageState.PENDING  # its own check is not run here
    assert passage(review, quiet).state == PassageState.NEEDS_HUMAN_REVIEW
    assert Verification.objects.get(passage=passage(review, quiet)).reason == MODEL_RAISED
    for index in (rejected, pending):
        assert not RuleFiring.objects.filter(
            passage=passage(review, index), rule_id=MODEL_RULE_ID
        ).exists()
        moves = PassageTransition.objects.filter(passage=passage(review, index))
        assert list(moves.values_list("from_state", flat=True)) == [None]
    assert not Verification.objects.filter(passage=passage(review, rejected)).exists()
    assert Verification.objects.get(passage=passage(review, pending)).rule_ids == [
        "en.strict.assignment"
    ]
    review.refresh_from_db()
    assert review.status == ReviewStatus.BLOCKED


def test_draft_naming_a_passage_the_verifier_already_confirmed_changes_nothing(
    claude, matter, django_capture_on_commit_callbacks
):
    active_playbook(organisation=matter.organisation, source=STRICT)
    review = scanned(matter, STRICT_CONTRACT)
    checked = Verification.objects.get(review=review)
    quiet = review.contract.passages.filter(state=PassageState.CONFIRMED).first()
    claude(
        draft_naming(
            (checked.passage.index, "high", "Assignment needs consent"),
            (quiet.index, "medium", TITLE),
        )
    )
    with django_capture_on_commit_callbacks(execute=True):
        verifications_run(review_id=review.pk, verification_ids=[checked.pk])
    assert passage(review, checked.passage.index).state == PassageState.CONFIRMED

    draft_then_verify(review, django_capture_on_commit_callbacks)

    assert passage(review, checked.passage.index).state == PassageState.CONFIRMED
    moves = PassageTransition.objects.filter(passage=checked.passage)
    assert moves.count() == 2  # the scan's and the verifier's, no third
    flagged = RuleFiring.objects.filter(review=review, rule_id=MODEL_RULE_ID)
    assert list(flagged.values_list("passage__index", flat=True)) == [quiet.index]


def test_issue_naming_a_passage_that_does_not_exist_is_dropped_and_noted(
    claude, matter, caplog, django_capture_on_commit_callbacks
):
    claude(draft_naming((99, "critical", "Phantom clause"), (-1, "high", "Before the start")))
    review = scanned(matter)

    with caplog.at_level(logging.WARNING, logger="reviewapp.reviews.model_flags"):
        draft_then_verify(review, django_capture_on_commit_callbacks)

    review.draft.refresh_from_db()
    assert review.draft.status == DraftStatus.COMPLETE
    assert review.draft.data["issues"] == []
    assert [i["passage"] for i in review.draft.data["dropped_issues"]] == [99, -1]
    assert "passage 99" in caplog.text and "passage -1" in caplog.text
    assert set(review.contract.passages.values_list("state", flat=True)) == {PassageState.CONFIRMED}
    assert not Verification.objects.filter(review=review).exists()


def test_issue_naming_a_passage_missing_from_the_database_is_dropped(matter):
    review = scanned(matter)
    issues = [
        {"passage": 42, "risk": "high", "title": "Gone", "recommendation": ""},
        {"passage": NOTICES, "risk": "low", "title": TITLE, "recommendation": ""},
    ]

    raised = draft_flags_raise(review=review, issues=issues, model="claude-test")

    assert [i["passage"] for i in raised.dropped] == [42]
    assert [i["passage"] for i in raised.issues] == [NOTICES]
    assert [note["passage"] for note in raised.notes] == [NOTICES]


def test_offline_draft_raises_no_flag(matter, settings):
    settings.REVIEW_ENGINE = "offline"
    active_playbook(organisation=matter.organisation, source=STRICT)
    review = scanned(matter, STRICT_CONTRACT, engine="offline")
    before = dict(review.contract.passages.values_list("index", "state"))

    draft = draft_run(review_id=review.pk)

    assert draft.status == DraftStatus.COMPLETE and draft.data["issues"]
    assert dict(review.contract.passages.values_list("index", "state")) == before
    assert not RuleFiring.objects.filter(review=review, rule_id=MODEL_RULE_ID).exists()
    assert "model_flags" not in draft.data


@pytest.mark.parametrize("actor", [ActorKind.RULE, ActorKind.ENGINE, ActorKind.USER, "system"])
def test_only_the_model_may_send_a_confirmed_passage_back_to_pending(actor):
    with pytest.raises(TransitionNotAllowed):
        check_transition(PassageState.CONFIRMED, PassageState.PENDING, actor, "x", flow=DRAFT_FLOW)
    check_transition(
        PassageState.CONFIRMED, PassageState.PENDING, ActorKind.MODEL, "x", flow=DRAFT_FLOW
    )


def test_the_verifier_path_can_never_send_a_passage_back_to_pending(matter):
    with pytest.raises(TransitionNotAllowed):
        check_transition(PassageState.CONFIRMED, PassageState.PENDING, ActorKind.MODEL, "x")
    review = scanned(matter)
    notices = passage(review, NOTICES)
    with pytest.raises(TransitionNotAllowed):
        passage_transition(
            passage_id=notices.pk,
            to_state=PassageState.PENDING,
            actor_kind=ActorKind.MODEL,
            actor="claude-test",
        )
    assert passage(review, NOTICES).state == PassageState.CONFIRMED
