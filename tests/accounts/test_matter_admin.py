"""Organisation admins create matters and decide who is on them, from the app."""

import pytest

from reviewapp.accounts.models import Matter, Membership, OrganisationMember, Role
from reviewapp.audit.models import AuditAction, AuditEvent

pytestmark = pytest.mark.django_db


def test_an_admin_creates_a_matter_and_becomes_its_admin(client, admin, matter):
    client.force_login(admin)
    assert 'id="new-matter"' in client.get("/").content.decode()
    response = client.post(
        "/matters/new/",
        {"organisation": matter.organisation_id, "name": "  Project  Blue ", "reference": "PB-7"},
        follow=True,
    )
    created = Matter.objects.get(name="Project Blue")
    assert response.redirect_chain[-1][0] == f"/matters/{created.pk}/"
    assert "Matter created" in response.content.decode()
    assert Membership.objects.get(matter=created, user=admin).role == Role.ADMIN
    event = AuditEvent.objects.get(action=AuditAction.MATTER_CREATED)
    assert (event.actor, event.target_id) == ("ada", str(created.pk))


def test_a_duplicate_name_is_refused_with_a_reason(client, admin, matter):
    client.force_login(admin)
    response = client.post(
        "/matters/new/", {"organisation": matter.organisation_id, "name": "matter"}, follow=True
    )
    assert "already has a matter with that name" in response.content.decode()
    assert Matter.objects.count() == 1


def test_people_who_are_not_admins_cannot_create_or_manage(client, reviewer, matter, make_user):
    client.force_login(reviewer)
    assert 'id="new-matter"' not in client.get("/").content.decode()
    assert 'id="members"' not in client.get(f"/matters/{matter.pk}/").content.decode()
    new = client.post("/matters/new/", {"organisation": matter.organisation_id, "name": "X"})
    assert new.status_code == 404
    make_user("lee")
    add = client.post(f"/matters/{matter.pk}/members/", {"username": "lee", "role": "lawyer"})
    assert add.status_code == 404
    assert not Membership.objects.filter(user__username="lee").exists()


def test_an_admin_adds_changes_and_removes_a_member(client, admin, matter, make_user):
    lee = make_user("lee")
    OrganisationMember.objects.create(organisation=matter.organisation, user=lee)
    client.force_login(admin)
    page = client.post(
        f"/matters/{matter.pk}/members/", {"username": "lee", "role": "lawyer"}, follow=True
    ).content.decode()
    assert "lee is on this matter as Lawyer" in page and 'data-member="lee"' in page
    client.post(f"/matters/{matter.pk}/members/", {"username": "lee", "role": "reviewer"})
    membership = Membership.objects.get(user=lee, matter=matter)
    assert membership.role == Role.REVIEWER
    client.post(f"/matters/{matter.pk}/members/{membership.pk}/remove/")
    assert not Membership.objects.filter(user=lee, matter=matter).exists()
    client.force_login(lee)
    assert client.get(f"/matters/{matter.pk}/").status_code == 404
    events = AuditEvent.objects.filter(target_type="matter").order_by("seq")
    actions = list(events.values_list("action", "data"))
    assert actions == [
        (AuditAction.MEMBER_ADDED, {"user_id": lee.pk, "role": "lawyer"}),
        (
            AuditAction.MEMBER_ROLE_CHANGED,
            {"user_id": lee.pk, "role": "reviewer", "previous_role": "lawyer"},
        ),
        (AuditAction.MEMBER_REMOVED, {"user_id": lee.pk, "role": "reviewer"}),
    ]


def test_unknown_names_and_own_membership_are_refused_clearly(client, admin, matter):
    client.force_login(admin)
    page = client.post(
        f"/matters/{matter.pk}/members/", {"username": "nobody", "role": "lawyer"}, follow=True
    ).content.decode()
    assert "No one in your organisation is called “nobody”" in page
    page = client.post(
        f"/matters/{matter.pk}/members/", {"username": "ada", "role": "reviewer"}, follow=True
    ).content.decode()
    assert "Another admin must change your own role" in page
    own = Membership.objects.get(user=admin, matter=matter)
    page = client.post(f"/matters/{matter.pk}/members/{own.pk}/remove/", follow=True)
    assert "Another admin must take you off a matter" in page.content.decode()
    assert own.role == Role.ADMIN and Membership.objects.filter(pk=own.pk).exists()


def test_an_admin_of_another_organisation_cannot_touch_this_matter(
    client, matter, make_user, make_matter
):
    rival = make_user("rex")
    make_matter(name="Theirs", organisation="Rival LLP", members=[(rival, Role.ADMIN)])
    client.force_login(rival)
    response = client.post(f"/matters/{matter.pk}/members/", {"username": "rex", "role": "admin"})
    assert response.status_code == 404
    new = client.post("/matters/new/", {"organisation": matter.organisation_id, "name": "Mine"})
    assert new.status_code == 404


def test_an_admin_adds_only_people_of_the_organisation_and_never_learns_other_names(
    client, admin, matter, make_user, make_matter
):
    outsider = make_user("olga")
    make_matter(name="Elsewhere", organisation="Other LLP", members=[(outsider, Role.LAWYER)])
    client.force_login(admin)
    for name in ("olga", "no-such-person"):
        page = client.post(
            f"/matters/{matter.pk}/members/", {"username": name, "role": "lawyer"}, follow=True
        ).content.decode()
        assert f"No one in your organisation is called “{name}”" in page
    assert not Membership.objects.filter(user=outsider, matter=matter).exists()


def test_a_site_admin_brings_in_a_person_of_another_organisation(
    client, matter, make_user, make_matter
):
    site_admin = make_user("root", is_superuser=True, is_staff=True)
    Membership.objects.create(user=site_admin, matter=matter, role=Role.ADMIN)
    outsider = make_user("olga")
    make_matter(name="Elsewhere", organisation="Other LLP", members=[(outsider, Role.LAWYER)])
    client.force_login(site_admin)
    client.post(f"/matters/{matter.pk}/members/", {"username": "olga", "role": "lawyer"})
    assert Membership.objects.filter(user=outsider, matter=matter).exists()
    assert OrganisationMember.objects.filter(
        organisation=matter.organisation, user=outsider
    ).exists()
