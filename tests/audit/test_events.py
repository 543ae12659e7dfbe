"""Every kind of event the app must audit is written, to the right chain, with references only."""

from __future__ import annotations

import io

import pytest
from django.test import Client

from reviewapp.accounts.models import Membership, Role
from reviewapp.audit.models import AuditAction, AuditEvent
from reviewapp.audit.recorders import sha256_text
from reviewapp.audit.selectors import audit_chain_verify
from reviewapp.contracts.models import PassageState
from reviewapp.contracts.services import contract_upload
from reviewapp.queue.models import QueueItem
from reviewapp.queue.services import queue_item_claim, queue_item_decide
from reviewapp.reviews.models import ActorKind
from reviewapp.reviews.services import passage_transition, review_scan
from tests.factories import CONTRACT, STRICT, active_playbook, ingested_contract

pytestmark = pytest.mark.django_db


def events(action: str, organisation_id: int | None = None) -> list[AuditEvent]:
    found = AuditEvent.objects.filter(action=action).order_by("organisation_id", "seq")
    if organisation_id is not None:
        found = found.filter(organisation_id=organisation_id)
    return list(found)


@pytest.fixture
def lawyer(make_user, matter):
    lee = make_user("lee")
    Membership.objects.create(user=lee, matter=matter, role=Role.LAWYER)
    return lee


@pytest.fixture
def review(matter):
    active_playbook(organisation=matter.organisation, source=STRICT)
    contract = ingested_contract(matter=matter, text=CONTRACT)
    return review_scan(contract_id=contract.pk, enqueue=False)


def test_upload_is_recorded_with_its_hash_not_its_name(matter, reviewer):
    body = b"1. Term. This Agreement lasts two years.\n"
    contract, created = contract_upload(
        matter=matter,
        file=io.BytesIO(body),
        name="secret-deal.txt",
        size=len(body),
        uploaded_by=reviewer,
        enqueue=False,
    )
    [event] = events(AuditAction.CONTRACT_UPLOADED)
    assert created and event.organisation_id == matter.organisation_id
    assert (event.actor_kind, event.actor) == ("user", "rita")
    assert (event.target_type, event.target_id) == ("contract", str(contract.pk))
    assert event.data["sha256"] == contract.sha256 and event.data["matter_id"] == matter.pk
    assert "secret-deal" not in str(event.data)


def test_scan_records_every_passage_with_the_rule_version_as_actor(review, matter):
    passages = list(review.contract.passages.order_by("index"))
    recorded = events(AuditAction.PASSAGE_TRANSITION, matter.organisation_id)
    assert len(recorded) == len(passages)
    assert {event.actor_kind for event in recorded} == {"rule"}
    assert {event.actor for event in recorded} == {review.playbook_version.label}
    by_passage = {int(event.target_id): event.data for event in recorded}
    mfn = next(p for p in passages if "favored" in p.text)
    assert by_passage[mfn.pk]["from"] is None
    assert by_passage[mfn.pk]["to"] == PassageState.REJECTED
    assert by_passage[mfn.pk]["rules"] == ["en.strict.mfn"]
    assert by_passage[mfn.pk]["review_id"] == review.pk


def test_verifier_outcomes_keep_codes_and_hash_free_text(review, matter):
    pending = review.contract.passages.filter(state=PassageState.PENDING).first()
    rationale = "The clause says Neither party may assign this Agreement without consent."
    passage_transition(
        passage_id=pending.pk,
        to_state=PassageState.NEEDS_HUMAN_REVIEW,
        actor_kind=ActorKind.ENGINE,
        actor="offline",
        reason=rationale,
    )
    event = events(AuditAction.PASSAGE_TRANSITION, matter.organisation_id)[-1]
    assert (event.actor_kind, event.actor) == ("engine", "offline")
    assert (event.data["from"], event.data["to"]) == ("PENDING", "NEEDS_HUMAN_REVIEW")
    assert event.data["reason_sha256"] == sha256_text(rationale)
    assert "assign" not in str(event.data).lower()


def test_model_failure_reason_code_is_kept(review, matter):
    pending = review.contract.passages.filter(state=PassageState.PENDING).first()
    passage_transition(
        passage_id=pending.pk,
        to_state=PassageState.NEEDS_HUMAN_REVIEW,
        actor_kind=ActorKind.SYSTEM,
        actor="system",
        reason="LLM_UNAVAILABLE",
    )
    event = events(AuditAction.PASSAGE_TRANSITION, matter.organisation_id)[-1]
    assert event.data["reason"] == "LLM_UNAVAILABLE"


def test_lawyer_override_is_recorded_with_its_justification(review, lawyer, matter):
    item = QueueItem.objects.get(review=review, state=PassageState.REJECTED)
    queue_item_claim(item_id=item.pk, user=lawyer)
    queue_item_decide(
        item_id=item.pk, user=lawyer, decision="accept", note="Client accepts MFN here."
    )
    event = events(AuditAction.PASSAGE_TRANSITION, matter.organisation_id)[-1]
    assert (event.actor_kind, event.actor) == ("user", "lee")
    assert (event.data["from"], event.data["to"]) == ("REJECTED", "CONFIRMED")
    assert event.data["justification"] == "Client accepts MFN here."
    assert event.target_id == str(item.passage_id)


def test_playbook_copy_edit_and_activation_are_recorded(matter, make_user):
    from reviewapp.rules.services import playbook_version_create

    playbook = active_playbook(organisation=matter.organisation, source=STRICT)
    playbook_version_create(playbook=playbook, source=STRICT + "\n", created_by=make_user("ada"))
    recorded = list(AuditEvent.objects.filter(organisation=matter.organisation).order_by("seq"))
    assert [event.action for event in recorded] == [
        AuditAction.PLAYBOOK_COPIED,
        AuditAction.PLAYBOOK_VERSION_CREATED,
        AuditAction.PLAYBOOK_ACTIVATED,
        AuditAction.PLAYBOOK_VERSION_CREATED,
    ]
    assert {event.target_id for event in recorded} == {str(playbook.pk)}
    first_edit, by_ada = recorded[1], recorded[3]
    assert first_edit.data["version"] == 2
    assert first_edit.data["source_sha256"] == sha256_text(STRICT)
    assert (by_ada.actor_kind, by_ada.actor, by_ada.data["version"]) == ("user", "ada", 3)


def test_sign_in_goes_to_the_users_organisation(client, reviewer, matter):
    response = client.post("/login/", {"username": "rita", "password": "pw-rita"})
    assert response.status_code == 302
    [event] = events(AuditAction.SIGNED_IN)
    assert event.organisation_id == matter.organisation_id
    assert (event.actor, event.target_id) == ("rita", str(reviewer.pk))
    assert event.data["ip"] == "127.0.0.1"


def test_failed_sign_in_of_a_member_goes_to_their_organisation(client, reviewer, matter):
    client.post("/login/", {"username": "rita", "password": "wrong"})
    [event] = events(AuditAction.SIGN_IN_FAILED)
    assert event.organisation_id == matter.organisation_id
    assert event.data == {"ip": "127.0.0.1", "known_user": True}
    assert "wrong" not in str(event.data)


def test_failed_sign_in_of_an_unknown_user_goes_to_the_system_chain(client, db):
    client.post("/login/", {"username": "ghost", "password": "boo"})
    [event] = events(AuditAction.SIGN_IN_FAILED)
    assert event.organisation_id is None and event.seq == 1
    assert (event.actor, event.data["known_user"]) == ("ghost", False)
    assert audit_chain_verify(organisation_id=None).intact


def test_a_403_on_a_page_is_recorded(reviewer, matter):
    browser = Client(enforce_csrf_checks=True)
    browser.force_login(reviewer)
    response = browser.post("/logout/")  # no CSRF token: refused
    assert response.status_code == 403
    [event] = events(AuditAction.ACCESS_DENIED)
    assert event.organisation_id == matter.organisation_id
    assert (event.actor_kind, event.actor) == ("user", "rita")
    assert event.data == {"ip": "127.0.0.1", "method": "POST", "path": "/logout/", "status": 403}


def test_a_403_from_the_api_is_recorded(client, reviewer, matter):
    client.force_login(reviewer)
    response = client.post(
        "/api/playbooks/test/", {"source": "x", "text": "y"}, content_type="application/json"
    )
    assert response.status_code == 403
    [event] = events(AuditAction.ACCESS_DENIED)
    assert event.organisation_id == matter.organisation_id
    assert event.data["path"] == "/api/playbooks/test/" and event.data["status"] == 403


def test_an_anonymous_api_refusal_goes_to_the_system_chain(client, db):
    assert client.get("/api/matters/").status_code in (401, 403)
    [event] = events(AuditAction.ACCESS_DENIED)
    assert event.organisation_id is None and event.actor_kind == "anonymous"


def test_allowed_requests_are_not_recorded(client, reviewer, matter):
    client.force_login(reviewer)
    assert client.get("/api/matters/").status_code == 200
    assert events(AuditAction.ACCESS_DENIED) == []


def test_no_event_holds_contract_text(review, lawyer):
    item = QueueItem.objects.get(review=review, state=PassageState.REJECTED)
    queue_item_claim(item_id=item.pk, user=lawyer)
    queue_item_decide(item_id=item.pk, user=lawyer, decision="reject")
    for event in AuditEvent.objects.all():
        text = str(event.data) + event.actor + event.target_id
        for fragment in ("Neither party", "most favored nation", "Notices shall"):
            assert fragment not in text


def test_an_export_is_recorded_with_its_format(client, review, reviewer, matter):
    client.force_login(reviewer)
    response = client.get(f"/reviews/{review.pk}/export.csv")
    assert response.status_code == 200
    (exported,) = events(AuditAction.EXPORT_CREATED, matter.organisation_id)
    assert (exported.actor, exported.target_id, exported.data["format"]) == (
        reviewer.get_username(),
        str(review.pk),
        "csv",
    )


def test_activation_from_the_page_names_the_admin(client, matter, make_user):
    admin = make_user("ada")
    Membership.objects.create(user=admin, matter=matter, role=Role.ADMIN)
    playbook = active_playbook(organisation=matter.organisation, source=STRICT)
    client.force_login(admin)
    client.post(f"/playbooks/{playbook.pk}/activate/")
    latest = events(AuditAction.PLAYBOOK_ACTIVATED, matter.organisation_id)[-1]
    assert (latest.actor_kind, latest.actor) == ("user", "ada")


def test_claim_override_comment_and_hand_over_are_queue_events(review, lawyer, matter, make_user):
    from reviewapp.queue.services import queue_comment_add

    liu = make_user("liu")
    Membership.objects.create(user=liu, matter=matter, role=Role.LAWYER)
    item = QueueItem.objects.get(review=review, state=PassageState.REJECTED)
    queue_item_claim(item_id=item.pk, user=lawyer)
    queue_comment_add(item=item, author=lawyer, body="@liu please take this one")
    queue_item_decide(item_id=item.pk, user=liu, decision="accept", note="Agreed with client.")
    actions = [
        e.action
        for e in AuditEvent.objects.filter(
            organisation=matter.organisation, target_type="queue_item", target_id=str(item.pk)
        ).order_by("seq")
    ]
    assert actions == [
        AuditAction.QUEUE_OPENED,
        AuditAction.QUEUE_CLAIMED,
        AuditAction.QUEUE_COMMENTED,
        AuditAction.QUEUE_HANDED_OVER,
        AuditAction.QUEUE_DECIDED,
    ]
    decided = events(AuditAction.QUEUE_DECIDED, matter.organisation_id)[-1]
    assert decided.actor == "liu"
    assert decided.data["override"] is True
    assert decided.data["justification"] == "Agreed with client."
    commented = events(AuditAction.QUEUE_COMMENTED, matter.organisation_id)[-1]
    assert "please" not in str(commented.data) and commented.data["mentions"] == ["liu"]
