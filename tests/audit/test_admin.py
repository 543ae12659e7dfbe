"""The audit log in the Django admin: visible to staff, never editable."""

import pytest

from reviewapp.audit.models import AuditEvent

pytestmark = pytest.mark.django_db


@pytest.fixture
def staff_client(client, make_user):
    client.force_login(make_user("root", is_staff=True, is_superuser=True))
    return client


def test_admin_lists_events_but_offers_no_add_change_or_delete(staff_client, org_events):
    _, events = org_events
    listing = staff_client.get("/admin/audit/auditevent/")
    assert listing.status_code == 200
    assert b"contract.uploaded" in listing.content
    assert staff_client.get("/admin/audit/auditevent/add/").status_code == 403
    detail = staff_client.get(f"/admin/audit/auditevent/{events[0].pk}/change/")
    assert detail.status_code == 200 and b'name="_save"' not in detail.content
    deleted = staff_client.post(f"/admin/audit/auditevent/{events[0].pk}/delete/", {"post": "yes"})
    assert deleted.status_code == 403
    assert AuditEvent.objects.filter(pk=events[0].pk).exists()
