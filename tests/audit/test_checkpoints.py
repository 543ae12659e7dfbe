"""A keyed chain and signed checkpoints outside the database: what the tables' owner can no
longer hide from verify_audit (rewrites with recomputed hashes, chains cut short or dropped)."""

from __future__ import annotations

import json
import subprocess
import sys
from io import StringIO

import pytest
from django.core.exceptions import ImproperlyConfigured
from django.core.management import call_command

from reviewapp.audit.chain import audit_key, audit_key_fingerprint, utc_iso
from reviewapp.audit.checkpoints import (
    audit_checkpoint_latest,
    audit_checkpoint_read,
    audit_checkpoint_write,
    checkpoint_signature,
)
from reviewapp.audit.models import AuditChain, AuditEvent
from reviewapp.audit.selectors import audit_chain_verify
from reviewapp.audit.services import audit_record
from reviewapp.audit.tasks import write_audit_checkpoint
from tests.audit.conftest import as_owner, chain_of, rewrite_as_owner
from tests.audit.test_chain import verify

pytestmark = pytest.mark.django_db


def test_a_checkpoint_is_a_new_signed_file_of_every_chain_head(org_events, checkpoint_dir):
    organisation, events = org_events
    first = audit_checkpoint_write()
    second = audit_checkpoint_write()
    assert first != second and sorted(checkpoint_dir.iterdir()) == [first, second]
    body = json.loads(second.read_text())
    assert {"chain": f"org:{organisation.pk}", "seq": 5, "hash": events[4].hash} in [
        {name: mark[name] for name in ("chain", "seq", "hash")} for mark in body["chains"]
    ]
    assert body["signature"] == checkpoint_signature(body, key=audit_key())
    assert not first.stat().st_mode & 0o222  # read-only: a checkpoint is never rewritten
    recorded = chain_of(None)[-1]
    assert (recorded.action, recorded.target_id) == ("audit.checkpoint", second.name)
    assert recorded.data["signature"] == body["signature"]


def test_a_good_chain_verifies_against_its_checkpoint(org_events):
    out = StringIO()
    call_command("audit_checkpoint", stdout=out)
    assert out.getvalue().rstrip().endswith(": 1 chains")
    out, err, failed = verify()
    assert failed is None and err == ""
    assert "checkpoint checkpoint-" in out and "5 events, chain intact" in out


def test_new_events_are_keyed_and_the_owner_cannot_recompute_them(org_events):
    organisation, events = org_events
    assert {event.hash_kind for event in events} == {"v2"}
    rewrite_as_owner(events, hash_kind="v2")  # HMAC with a key of the owner's own
    _, err, failed = verify()
    assert failed
    assert f"first bad row at seq 1, id {events[0].pk}: changed" in err


def test_a_chain_cannot_go_back_to_plain_sha256(org_events):
    organisation, events = org_events
    rewrite_as_owner(events, from_seq=3)
    _, err, failed = verify()
    assert failed
    assert f"first bad row at seq 3, id {events[2].pk}: downgraded" in err


def test_an_owner_rewrite_in_plain_sha256_is_caught_by_the_checkpoint(org_events):
    organisation, events = org_events
    audit_checkpoint_write()
    rewrite_as_owner(events)  # every row edited and rehashed as v1, the head moved along
    assert audit_chain_verify(organisation_id=organisation.pk).intact  # the walk alone: fine
    _, err, failed = verify()
    assert failed == "1 of 2 audit chains are broken."
    assert f"first bad row at seq 5, id {events[4].pk}: rewritten" in err


def test_a_later_checkpoint_does_not_sign_over_a_rewrite(org_events):
    organisation, events = org_events
    audit_checkpoint_write()
    rewrite_as_owner(events)
    audit_checkpoint_write()
    _, err, failed = verify()
    assert failed and "rewritten: its hash is not the one checkpoint" in err
    assert chain_of(None)[-1].data["kept"] == [f"org:{organisation.pk}"]


def test_rows_cut_off_with_the_head_moved_back_are_caught_by_the_checkpoint(org_events):
    organisation, events = org_events
    audit_checkpoint_write()
    with as_owner() as cursor:
        cursor.execute(
            "DELETE FROM audit_auditevent WHERE id IN (%s, %s)", [events[3].pk, events[4].pk]
        )
        cursor.execute(
            "UPDATE audit_auditchain SET last_seq = 3, last_hash = %s WHERE organisation_id = %s",
            [events[2].hash, organisation.pk],
        )
    _, err, failed = verify()
    assert failed
    assert "first bad row at seq 4: seq 4-5 removed: checkpoint checkpoint-" in err


def test_truncating_everything_is_reported_against_the_checkpoint(org_events):
    organisation, _ = org_events
    audit_checkpoint_write()
    with as_owner() as cursor:
        cursor.execute("DELETE FROM audit_auditevent")
        cursor.execute("DELETE FROM audit_auditchain")
    assert not AuditEvent.objects.exists() and not AuditChain.objects.exists()
    out, err, failed = verify()
    assert failed == "1 of 1 audit chains are broken."
    assert f"TAMPERED: chain org:{organisation.pk}: first bad row at end of chain: missing" in err
    assert "0 events in 1 chains checked" in out


def test_an_altered_checkpoint_fails_its_signature_and_the_previous_one_holds(
    org_events, checkpoint_dir
):
    organisation, events = org_events
    audit_checkpoint_write()
    later = audit_checkpoint_write()
    body = json.loads(later.read_text())
    for mark in body["chains"]:
        mark["seq"] = 2  # as if the chain had been shorter
    later.chmod(0o644)
    later.write_text(json.dumps(body))
    (checkpoint_dir / "checkpoint-99991231T000000000000Z-0.json").write_text("{not json")
    finding = audit_checkpoint_latest()
    assert finding.latest is not None and finding.latest.name != later.name
    assert len(finding.rejected) == 2
    _, err, failed = verify()
    assert failed == "2 checkpoint files fail their check."
    assert f"TAMPERED: checkpoint {later.name}: its signature does not match" in err


def test_a_checkpoint_signed_with_another_key_is_refused(org_events, settings):
    audit_checkpoint_write()
    settings.AUDIT_HMAC_KEY = "another key altogether, of the owner's choosing"
    finding = audit_checkpoint_latest()
    assert finding.latest is None and "signature does not match" in finding.rejected[0]


def test_without_a_key_nothing_is_written_or_verified(settings):
    settings.AUDIT_HMAC_KEY = ""
    with pytest.raises(ImproperlyConfigured, match="AUDIT_HMAC_KEY"):
        audit_key()


@pytest.mark.slow  # starts a Python process
def test_production_requires_the_key(tmp_path):
    env = {
        "PATH": "/usr/bin:/bin",
        "DJANGO_SECRET_KEY": "x" * 50,
        "REDIS_URL": "redis://127.0.0.1:6379/0",
        "CLAUSEWISE_VAR_DIR": str(tmp_path),
    }
    code = "import reviewapp.settings.production"
    result = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=False
    )
    assert result.returncode != 0 and "AUDIT_HMAC_KEY must be set in production" in result.stderr
    env["AUDIT_HMAC_KEY"] = "k" * 32
    result = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=False
    )
    assert result.returncode == 0, result.stderr


def test_events_from_before_keyed_hashes_verify_and_the_chain_goes_on_keyed(org_events):
    organisation, events = org_events
    rewrite_as_owner(events)  # as the rows written before 0007: plain SHA-256, kind v1
    audit_record(
        organisation_id=organisation.pk,
        action="queue.claimed",
        actor_kind="user",
        actor="li",
        target_type="queue_item",
        target_id=1,
    )
    assert [event.hash_kind for event in chain_of(organisation.pk)] == ["v1"] * 5 + ["v2"]
    out, _, failed = verify()
    assert failed is None and "6 events, chain intact" in out


def test_the_first_migrate_checkpoints_an_empty_log_and_later_ones_add_none(
    checkpoint_dir, settings
):
    call_command("migrate", verbosity=0)
    call_command("migrate", verbosity=0)
    (first,) = checkpoint_dir.iterdir()
    body = json.loads(first.read_text())
    assert (body["chains"], body["events"], body["hash_kind"]) == ([], 0, "v2")
    assert body["key_fingerprint"] == audit_key_fingerprint(audit_key())
    assert settings.AUDIT_HMAC_KEY not in first.read_text()
    assert body["signature"] == checkpoint_signature(body, key=audit_key())
    assert not AuditEvent.objects.exists()  # "no events yet" stays true


def test_the_first_migrate_pins_an_existing_log(org_events, checkpoint_dir):
    organisation, events = org_events
    call_command("migrate", verbosity=0)
    (first,) = checkpoint_dir.iterdir()
    (mark,) = audit_checkpoint_read(first).marks.values()
    assert (mark.chain, mark.seq, mark.hash) == (f"org:{organisation.pk}", 5, events[4].hash)


def test_a_checkpoint_records_each_heads_row_id_and_time(org_events):
    organisation, events = org_events
    checkpoint = audit_checkpoint_read(audit_checkpoint_write())
    mark = checkpoint.marks[f"org:{organisation.pk}"]
    assert (mark.event_id, mark.created_at) == (events[4].pk, utc_iso(events[4].created_at))


def test_beat_checkpoints_only_when_a_chain_moved(org_events, checkpoint_dir):
    organisation, _ = org_events
    assert write_audit_checkpoint()
    assert write_audit_checkpoint() == ""  # only the first one's own note came since
    audit_record(
        organisation_id=organisation.pk,
        action="queue.claimed",
        actor_kind="user",
        actor="li",
        target_type="queue_item",
        target_id=1,
    )
    assert write_audit_checkpoint()
    assert len(list(checkpoint_dir.iterdir())) == 2
    assert verify()[2] is None


def test_beat_checkpoints_every_minute_by_default(settings):
    import os

    if "AUDIT_CHECKPOINT_EVERY_S" in os.environ:
        pytest.skip("AUDIT_CHECKPOINT_EVERY_S is set in this environment")
    assert settings.AUDIT_CHECKPOINT_EVERY_S == 60.0
    assert settings.CELERY_BEAT_SCHEDULE["write-audit-checkpoint"]["schedule"] == 60.0


def test_verify_says_which_events_no_checkpoint_covers_yet(org_events):
    organisation, _ = org_events
    out, _, _ = verify()
    assert "not covered: every event is checked by its chain alone" in out
    audit_checkpoint_write()
    for n in range(2):
        audit_record(
            organisation_id=organisation.pk,
            action="queue.claimed",
            actor_kind="user",
            actor="li",
            target_type="queue_item",
            target_id=n,
        )
    out, _, failed = verify()
    assert failed is None
    # The two claims and the system chain's note of the checkpoint itself.
    assert "not covered: 3 events written after checkpoint checkpoint-" in out
    assert "can cut them off the end and move the chain head back unseen" in out
    assert "at most the last 60 s of events" in out


def test_a_checkpoint_of_the_first_format_still_reads_as_keyed(org_events, checkpoint_dir):
    organisation, events = org_events
    body = {
        "format": "clausewise.audit.checkpoint/1",
        "written_at": "2025-01-31T09:30:00.000000+00:00",
        "chains": [
            {"chain": f"org:{organisation.pk}", "seq": 5, "hash": events[4].hash, "hash_kind": "v2"}
        ],
    }
    body["signature"] = checkpoint_signature(body, key=audit_key())
    checkpoint_dir.mkdir()
    (checkpoint_dir / "checkpoint-20250131T093000000000Z-0.json").write_text(json.dumps(body))
    latest = audit_checkpoint_latest().latest
    assert latest is not None and latest.hash_kind == "v2" and latest.marks
    rewrite_as_owner(events)
    assert "rewritten: its hash is not the one checkpoint" in verify()[1]
