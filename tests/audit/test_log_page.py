"""The organisation's audit log in the app: admins only, filters that combine, pages of 50,
and a fixed number of queries per page."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from reviewapp.audit.models import AuditAction, AuditActorKind, AuditEvent
from reviewapp.audit.services import audit_record
from tests.factories import STRICT
from tests.reviews.test_exports import decide, reviewed

pytestmark = pytest.mark.django_db


@pytest.fixture
def review(matter, lawyer, django_capture_on_commit_callbacks):
    review = reviewed(matter, django_capture_on_commit_callbacks)
    decide(review, lawyer, rule_id="en.strict.mfn", decision="accept", note="Fine by us.")
    return review


def log(client, user, **params):
    client.force_login(user)
    return client.get("/audit/", params)


def rows_of(response) -> list[str]:
    html = response.content.decode()
    return [row.split("</tr>")[0] for row in html.split('<tr class="audit-event"')[1:]]


def test_only_organisation_admins_see_the_log(client, reviewer, lawyer, admin, review):
    assert log(client, reviewer).status_code == 403
    assert log(client, lawyer).status_code == 403
    response = log(client, admin)
    assert response.status_code == 200 and rows_of(response)


def test_filter_by_actor_action_and_contract(
    client, admin, matter, review, django_capture_on_commit_callbacks
):
    other = reviewed(
        matter,
        django_capture_on_commit_callbacks,
        text="1. Term. This agreement runs for two years.\n",
        name="other.txt",
        playbook=None,
    )
    by_lee = rows_of(log(client, admin, actor="lee"))
    assert by_lee and all(">lee<" in row for row in by_lee)
    decided = rows_of(log(client, admin, action=AuditAction.QUEUE_DECIDED))
    assert len(decided) == 1 and "clause acceptable" in decided[0]
    assert "Customer shall receive most favored nation pricing." in decided[0]
    of_other = rows_of(log(client, admin, contract=other.contract_id))
    assert of_other and all("Customer shall receive most" not in row for row in of_other)
    both = rows_of(log(client, admin, actor="lee", contract=other.contract_id))
    assert both == []


def test_filter_by_date_range(client, admin, review):
    today = timezone.now().date()
    assert rows_of(log(client, admin, date_from=today.isoformat(), date_to=today.isoformat()))
    yesterday = (today - timedelta(days=1)).isoformat()
    assert rows_of(log(client, admin, date_to=yesterday)) == []
    response = log(client, admin, date_from=today.isoformat(), date_to=yesterday)
    assert response.status_code == 400 and "The start date is after the end date." in (
        response.content.decode()
    )


def test_log_pages_by_fifty_and_keeps_the_filters(client, admin, matter):
    for n in range(60):
        audit_record(
            organisation_id=matter.organisation_id,
            action=AuditAction.SIGN_IN_FAILED,
            actor_kind=AuditActorKind.ANONYMOUS,
            actor=f"guess{n}",
            target_type="",
            target_id="",
            data={"ip": None},
        )
    first = log(client, admin, action=AuditAction.SIGN_IN_FAILED)
    assert len(rows_of(first)) == 50
    html = first.content.decode()
    assert "60 events" in html and "action=auth.sign_in_failed&amp;page=2" in html
    second = log(client, admin, action=AuditAction.SIGN_IN_FAILED, page=2)
    assert len(rows_of(second)) == 10


def test_log_page_reads_a_fixed_number_of_queries(
    client, admin, matter, lawyer, django_capture_on_commit_callbacks
):
    def queries_for(passages: int, name: str, playbook: str | None = None) -> int:
        text = "\n\n".join(
            f"{n}. Pricing. Customer shall receive most favored nation pricing."
            for n in range(1, passages + 1)
        )
        reviewed(
            matter, django_capture_on_commit_callbacks, text=text, name=name, playbook=playbook
        )
        client.force_login(admin)
        with CaptureQueriesContext(connection) as queries:
            assert client.get("/audit/").status_code == 200
        return len(queries)

    small = queries_for(2, "small.txt", STRICT)
    assert AuditEvent.objects.count() < 50
    large = queries_for(40, "large.txt")
    assert AuditEvent.objects.count() > 50
    assert large <= small
