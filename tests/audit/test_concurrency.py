"""Writers in many threads (each its own database connection) keep one linear chain per org."""

from __future__ import annotations

import threading

import pytest
from django.db import connection, connections

from reviewapp.audit.models import GENESIS_HASH, AuditChain
from reviewapp.audit.selectors import audit_chain_verify
from reviewapp.audit.services import AuditEntry, audit_record, audit_record_many
from tests.audit.conftest import chain_of, needs_postgresql

pytestmark = [pytest.mark.django_db(transaction=True), needs_postgresql]

THREADS = 8
ROUNDS = 15


def _write(organisation_id: int, worker: int, start: threading.Barrier, errors: list) -> None:
    try:
        start.wait()
        for n in range(ROUNDS):
            if n % 5 == 4:  # a bulk write now and then, as a trigger scan makes
                entries = [
                    AuditEntry("passage.transition", "rule", "v1", "passage", i) for i in (1, 2)
                ]
                audit_record_many(organisation_id=organisation_id, entries=entries)
            else:
                audit_record(
                    organisation_id=organisation_id,
                    action="queue.claimed",
                    actor_kind="user",
                    actor=f"lawyer{worker}",
                    target_type="queue_item",
                    target_id=n,
                    data={"worker": worker, "n": n},
                )
    except Exception as error:  # reported by the test, not lost in the thread
        errors.append(error)
    finally:
        connections.close_all()


def test_concurrent_writers_keep_one_linear_chain(make_matter):
    assert connection.vendor == "postgresql"
    organisation_id = make_matter("Busy").organisation_id  # no chain head yet: threads race
    start, errors = threading.Barrier(THREADS), []
    threads = [
        threading.Thread(target=_write, args=(organisation_id, worker, start, errors))
        for worker in range(THREADS)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert errors == []
    events = chain_of(organisation_id)
    per_thread = ROUNDS + ROUNDS // 5  # each bulk round writes two events
    assert [event.seq for event in events] == list(range(1, THREADS * per_thread + 1))
    assert events[0].prev_hash == GENESIS_HASH
    assert all(b.prev_hash == a.hash for a, b in zip(events, events[1:], strict=False))
    assert len({event.prev_hash for event in events}) == len(events)  # no fork
    assert AuditChain.objects.get(organisation_id=organisation_id).last_seq == len(events)
    assert audit_chain_verify(organisation_id=organisation_id).intact
