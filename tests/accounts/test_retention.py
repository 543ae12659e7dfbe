"""Retention per matter and legal hold: set by organisation admins, audited, obeyed by the task."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.conf import settings
from django.utils import timezone

from reviewapp.accounts.models import Matter, Membership, Role
from reviewapp.audit.models import AuditAction, AuditEvent
from reviewapp.audit.recorders import sha256_text
from reviewapp.contracts.models import Contract
from reviewapp.contracts.tasks import delete_expired_contracts
from tests.factories import ingested_contract

pytestmark = pytest.mark.django_db


def aged(matter, name: str, days: int) -> Contract:
    contract = ingested_contract(matter=matter, text=f"1. Term. {name} lasts a year.\n", name=name)
    Contract.objects.filter(pk=contract.pk).update(created_at=timezone.now() - timedelta(days=days))
    return contract


def test_admin_sets_and_clears_the_retention_period_audited(client, admin, matter):
    client.force_login(admin)
    response = client.post(
        f"/matters/{matter.pk}/retention/", {"retention_days": "90"}, follow=True
    )
    assert "deleted 90 days after upload" in response.content.decode()
    matter.refresh_from_db()
    assert matter.retention_days == 90

    client.post(f"/matters/{matter.pk}/retention/", {"retention_days": ""})
    matter.refresh_from_db()
    assert matter.retention_days is None
    events = AuditEvent.objects.filter(action=AuditAction.RETENTION_SET).order_by("seq")
    assert [(e.actor, e.data["retention_days"]) for e in events] == [("ada", 90), ("ada", None)]
    assert events[1].data["previous_retention_days"] == 90


def test_a_retention_out_of_range_is_refused(client, admin, matter):
    client.force_login(admin)
    response = client.post(f"/matters/{matter.pk}/retention/", {"retention_days": "0"}, follow=True)
    assert "1 to 36500 days" in response.content.decode()
    matter.refresh_from_db()
    assert matter.retention_days is None
    assert not AuditEvent.objects.filter(action=AuditAction.RETENTION_SET).exists()


def test_members_who_are_not_admins_cannot_set_retention_or_hold(client, make_user, matter):
    lawyer = make_user("lee")
    Membership.objects.create(user=lawyer, matter=matter, role=Role.LAWYER)
    client.force_login(lawyer)
    assert 'id="retention-form"' not in client.get(f"/matters/{matter.pk}/").content.decode()
    assert (
        client.post(f"/matters/{matter.pk}/retention/", {"retention_days": "1"}).status_code == 404
    )
    assert client.post(f"/matters/{matter.pk}/legal-hold/", {"reason": "x"}).status_code == 404
    matter.refresh_from_db()
    assert matter.retention_days is None and not matter.legal_hold


def test_admin_places_and_lifts_a_legal_hold_audited_and_shown(client, admin, matter):
    client.force_login(admin)
    page = client.post(
        f"/matters/{matter.pk}/legal-hold/", {"reason": "Litigation with Acme"}, follow=True
    ).content.decode()
    assert 'id="legal-hold-banner"' in page and 'id="lift-hold-form"' in page
    matter.refresh_from_db()
    assert matter.legal_hold and matter.legal_hold_by == admin and matter.legal_hold_at
    assert matter.legal_hold_reason == "Litigation with Acme"
    placed = AuditEvent.objects.get(action=AuditAction.LEGAL_HOLD_SET)
    assert placed.actor == "ada" and placed.data["reason_sha256"] == sha256_text(
        "Litigation with Acme"
    )
    assert "Acme" not in str(placed.data)

    page = client.post(f"/matters/{matter.pk}/legal-hold/lift/", follow=True).content.decode()
    assert 'id="legal-hold-banner"' not in page and 'id="legal-hold-form"' in page
    matter.refresh_from_db()
    assert not matter.legal_hold and matter.legal_hold_by is None
    lifted = AuditEvent.objects.get(action=AuditAction.LEGAL_HOLD_LIFTED)
    assert lifted.actor == "ada" and lifted.data["held_by_id"] == admin.pk


def test_a_hold_needs_a_reason(client, admin, matter):
    client.force_login(admin)
    response = client.post(f"/matters/{matter.pk}/legal-hold/", {"reason": "  "}, follow=True)
    assert "Say why" in response.content.decode()
    matter.refresh_from_db()
    assert not matter.legal_hold


def test_retention_deletes_only_what_is_past_the_period_and_runs_twice_safely(matter, make_matter):
    Matter.objects.filter(pk=matter.pk).update(retention_days=30)
    old = aged(matter, "old.txt", days=31)
    young = aged(matter, "young.txt", days=29)
    forever = make_matter(name="Forever")
    ancient = aged(forever, "ancient.txt", days=3000)

    assert delete_expired_contracts() == 1
    assert delete_expired_contracts() == 0
    remaining = set(Contract.objects.values_list("pk", flat=True))
    assert remaining == {young.pk, ancient.pk}
    [event] = AuditEvent.objects.filter(action=AuditAction.CONTRACT_DELETED)
    assert (event.actor_kind, event.actor, event.target_id) == ("system", "system", str(old.pk))
    assert event.data["reason"] == "retention" and event.data["deleted_by_id"] is None


def test_legal_hold_stops_the_retention_task_until_lifted(client, admin, matter):
    Matter.objects.filter(pk=matter.pk).update(retention_days=7)
    old = aged(matter, "old.txt", days=8)
    client.force_login(admin)
    client.post(f"/matters/{matter.pk}/legal-hold/", {"reason": "Regulator inquiry"})

    assert delete_expired_contracts() == 0
    assert Contract.objects.filter(pk=old.pk).exists()

    client.post(f"/matters/{matter.pk}/legal-hold/lift/")
    assert delete_expired_contracts() == 1
    assert not Contract.objects.filter(pk=old.pk).exists()


def test_the_retention_task_runs_daily_by_default():
    entry = settings.CELERY_BEAT_SCHEDULE["delete-expired-contracts"]
    assert entry["task"] == "reviewapp.contracts.tasks.delete_expired_contracts"
    assert entry["schedule"] == 24 * 3600.0
