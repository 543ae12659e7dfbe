"""Each organisation's events form one hash chain; verify_audit names the first bad row."""

from __future__ import annotations

from io import StringIO

import pytest
from django.core.management import CommandError, call_command
from django.db import connection, transaction

from reviewapp.audit.chain import canonical_content, event_hash
from reviewapp.audit.models import GENESIS_HASH, AuditChain, AuditEvent
from reviewapp.audit.services import AuditDataInvalid, AuditEntry, audit_record, audit_record_many
from tests.audit.conftest import as_owner, chain_of, needs_postgresql

pytestmark = pytest.mark.django_db


def verify(*args: str) -> tuple[str, str, str | None]:
    out, err = StringIO(), StringIO()
    try:
        call_command("verify_audit", *args, stdout=out, stderr=err)
    except CommandError as failed:
        return out.getvalue(), err.getvalue(), str(failed)
    return out.getvalue(), err.getvalue(), None


def test_events_link_each_to_the_previous_by_hash(org_events):
    organisation, events = org_events
    assert [event.seq for event in events] == [1, 2, 3, 4, 5]
    assert events[0].prev_hash == GENESIS_HASH
    for previous, event in zip(events, events[1:], strict=False):
        assert event.prev_hash == previous.hash
    head = AuditChain.objects.get(organisation=organisation)
    assert (head.last_seq, head.last_hash) == (5, events[-1].hash)


def test_stored_hash_is_the_hash_of_the_canonical_content(org_events):
    organisation, events = org_events
    event = events[2]
    assert event.hash == event_hash(
        organisation_id=organisation.pk,
        seq=3,
        prev_hash=events[1].hash,
        created_at=event.created_at,
        action="contract.uploaded",
        actor_kind="user",
        actor="rita",
        target_type="contract",
        target_id="102",
        data={"n": 2},
    )
    assert event.created_at.utcoffset().total_seconds() == 0


def test_the_hash_is_the_keyed_hmac_of_sorted_compact_json_in_utc(settings):
    import hashlib
    import hmac
    import json
    from datetime import datetime, timedelta, timezone

    fields = {
        "organisation_id": 7,
        "seq": 12,
        "prev_hash": "ab" * 32,
        "created_at": datetime(2025, 3, 1, 10, 0, tzinfo=timezone(timedelta(hours=8))),
        "action": "queue.decided",
        "actor_kind": "user",
        "actor": 'li "lawyer" 律师',
        "target_type": "queue_item",
        "target_id": "5",
        "data": {"z": [1, {"b": None, "a": "\n"}], "a": True},
    }
    content = canonical_content(**fields)
    assert content.startswith('{"action":"queue.decided","actor":"li \\"lawyer\\" 律师"')
    assert '"created_at":"2025-03-01T02:00:00.000000+00:00"' in content
    assert '"data":{"a":true,"z":[1,{"a":"\\n","b":null}]}' in content
    assert content == json.dumps(
        json.loads(content), sort_keys=True, separators=(",", ":"), ensure_ascii=False
    )
    key = settings.AUDIT_HMAC_KEY.encode()
    assert event_hash(**fields) == hmac.new(key, content.encode(), hashlib.sha256).hexdigest()
    assert event_hash(**fields, hash_kind="v1") == hashlib.sha256(content.encode()).hexdigest()


def test_each_organisation_and_the_system_have_their_own_chain(org_events, make_matter):
    other = make_matter("Elsewhere", organisation="Other org")
    mine = audit_record(
        organisation_id=other.organisation_id,
        action="auth.signed_in",
        actor_kind="user",
        actor="bo",
        target_type="user",
        target_id=1,
    )
    system = audit_record(
        organisation_id=None,
        action="auth.sign_in_failed",
        actor_kind="anonymous",
        actor="nobody",
        target_type="",
        target_id="",
    )
    assert (mine.seq, mine.prev_hash) == (1, GENESIS_HASH)
    assert (system.seq, system.organisation_id) == (1, None)
    out, _, failed = verify()
    assert failed is None
    assert "system chain: 1 events, chain intact" in out
    assert "'Other org'" in out and "'Org'" in out


def test_bulk_records_continue_the_chain(org_events):
    organisation, _ = org_events
    entries = [AuditEntry("passage.transition", "rule", "strict@2", "passage", n) for n in range(3)]
    events = audit_record_many(organisation_id=organisation.pk, entries=entries)
    assert [event.seq for event in events] == [6, 7, 8]
    assert verify()[2] is None


def test_a_rolled_back_change_leaves_no_event(org_events):
    organisation, _ = org_events
    with pytest.raises(RuntimeError), transaction.atomic():
        audit_record(
            organisation_id=organisation.pk,
            action="contract.uploaded",
            actor_kind="user",
            actor="rita",
            target_type="contract",
            target_id=999,
        )
        raise RuntimeError("the upload failed")
    assert [event.seq for event in chain_of(organisation.pk)] == [1, 2, 3, 4, 5]
    assert AuditChain.objects.get(organisation=organisation).last_seq == 5
    assert verify()[2] is None


def test_data_must_be_plain_json_references(org_events):
    organisation, _ = org_events
    with pytest.raises(AuditDataInvalid):
        audit_record(
            organisation_id=organisation.pk,
            action="export.created",
            actor_kind="user",
            actor="rita",
            target_type="review",
            target_id=1,
            data={"when": object()},
        )


def test_verify_selects_an_organisation_by_id_name_or_slug(org_events):
    organisation, _ = org_events
    for reference in (str(organisation.pk), organisation.name, "org"):
        out, _, failed = verify("--organisation", reference)
        assert failed is None and "5 events, chain intact" in out
    assert "No organisation 'nope'" in (verify("--organisation", "nope")[2] or "")


def test_changed_row_is_named(org_events):
    organisation, events = org_events
    with as_owner() as cursor:
        cursor.execute(
            "UPDATE audit_auditevent SET actor = 'mallory' WHERE id = %s", [events[2].pk]
        )
    _, err, failed = verify("--organisation", str(organisation.pk))
    assert failed == "1 of 1 audit chains are broken."
    assert f"(id {organisation.pk}): first bad row at seq 3, id {events[2].pk}: changed" in err


def test_removed_row_is_named(org_events):
    organisation, events = org_events
    with as_owner() as cursor:
        cursor.execute("DELETE FROM audit_auditevent WHERE id = %s", [events[1].pk])
    _, err, failed = verify()
    assert failed
    assert f"first bad row at seq 3, id {events[2].pk}: seq 2 removed" in err


def test_rows_cut_off_the_end_are_found_by_the_chain_head(org_events):
    organisation, events = org_events
    with as_owner() as cursor:
        cursor.execute(
            "DELETE FROM audit_auditevent WHERE id IN (%s, %s)", [events[3].pk, events[4].pk]
        )
    _, err, failed = verify()
    assert failed
    assert "first bad row at seq 4: seq 4-5 removed" in err


def test_reordered_rows_are_named(org_events):
    organisation, events = org_events
    second, third = events[1], events[2]
    with as_owner() as cursor:  # swap seq 2 and 3 (through a free value: seq is unique)
        cursor.execute("UPDATE audit_auditevent SET seq = 999 WHERE id = %s", [second.pk])
        cursor.execute("UPDATE audit_auditevent SET seq = 2 WHERE id = %s", [third.pk])
        cursor.execute("UPDATE audit_auditevent SET seq = 3 WHERE id = %s", [second.pk])
    _, err, failed = verify()
    assert failed
    assert f"first bad row at seq 2, id {third.pk}: reordered" in err


def test_a_row_rewritten_with_a_fresh_hash_breaks_the_next_link(org_events):
    organisation, events = org_events
    forged = events[1]
    forged_hash = event_hash(
        organisation_id=organisation.pk,
        seq=2,
        prev_hash=forged.prev_hash,
        created_at=forged.created_at,
        action=forged.action,
        actor_kind=forged.actor_kind,
        actor="mallory",
        target_type=forged.target_type,
        target_id=forged.target_id,
        data=forged.data,
    )
    with as_owner() as cursor:
        cursor.execute(
            "UPDATE audit_auditevent SET actor = 'mallory', hash = %s WHERE id = %s",
            [forged_hash, forged.pk],
        )
    _, err, failed = verify()
    assert failed
    assert f"first bad row at seq 3, id {events[2].pk}: its link does not match" in err


@needs_postgresql
def test_tampering_with_the_trigger_disabled_is_caught(org_events):
    organisation, events = org_events
    with connection.cursor() as cursor:
        cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")  # ALTER TABLE waits for no FK check
        cursor.execute("ALTER TABLE audit_auditevent DISABLE TRIGGER audit_event_append_only")
        cursor.execute("UPDATE audit_auditevent SET data = '{}' WHERE id = %s", [events[3].pk])
        cursor.execute("ALTER TABLE audit_auditevent ENABLE TRIGGER audit_event_append_only")
    _, err, failed = verify()
    assert failed
    assert f"first bad row at seq 4, id {events[3].pk}: changed" in err


def test_intact_chains_exit_zero(org_events):
    out, err, failed = verify()
    assert failed is None and err == ""
    assert "5 events in 1 chains checked" in out


def test_every_event_is_checked_across_chunks(org_events, monkeypatch):
    from reviewapp.audit import selectors

    organisation, events = org_events
    monkeypatch.setattr(selectors, "VERIFY_CHUNK_SIZE", 2)
    assert selectors.audit_chain_verify(organisation_id=organisation.pk, chunk_size=2).intact
    with as_owner() as cursor:
        cursor.execute("UPDATE audit_auditevent SET actor = 'x' WHERE id = %s", [events[4].pk])
    report = selectors.audit_chain_verify(organisation_id=organisation.pk, chunk_size=2)
    assert report.problem is not None and report.problem.seq == 5
    assert AuditEvent.objects.filter(organisation=organisation).count() == 5
