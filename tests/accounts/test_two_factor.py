"""Two-factor sign-in: who must, the code after the password, recovery codes, the lockout,
what an unverified session may reach (pages, API, websocket), tokens, resets, the audit."""

from __future__ import annotations

import pytest
from asgiref.sync import sync_to_async
from channels.testing import WebsocketCommunicator
from django.contrib.sessions.backends.db import SessionStore
from django.core.management import call_command
from django_otp import DEVICE_ID_SESSION_KEY
from django_otp.plugins.otp_static.models import StaticToken
from django_otp.plugins.otp_totp.models import TOTPDevice
from rest_framework.authtoken.models import Token

from reviewapp.accounts.models import Membership, Organisation, Role
from reviewapp.accounts.two_factor.selectors import two_factor_needed, two_factor_required
from reviewapp.audit.models import AuditEvent
from reviewapp.realtime.consumers import EventsConsumer
from tests.two_factor import enrolled_device, next_code, wrong_code

pytestmark = pytest.mark.django_db

VERIFY = "/account/two-factor/verify/"
SETUP = "/account/two-factor/setup/"


def _password(client, user, ip: str = "10.0.0.1"):
    username = user.get_username()
    response = client.post(
        "/login/", {"username": username, "password": f"pw-{username}"}, REMOTE_ADDR=ip
    )
    assert response.status_code == 302, response.content.decode()[:500]
    return response


def _code(client, code: str, next_url: str = "/", ip: str = "10.0.0.1"):
    return client.post(VERIFY, {"otp_code": code, "next": next_url}, REMOTE_ADDR=ip)


def _enrol(client) -> list[str]:
    """Through the set-up page: the secret it shows, a code from it, the codes shown once."""
    page = client.get(SETUP).content.decode()
    assert 'id="totp-secret"' in page and 'src="data:image/svg+xml' in page
    device = TOTPDevice.objects.get(confirmed=False)
    done = client.post(SETUP, {"otp_code": next_code(device), "next": "/"})
    assert done.status_code == 200
    return list(done.context["codes"])


def test_who_must_use_a_second_factor(make_user, make_matter, reviewer, admin, matter):
    staff = make_user("sam", is_staff=True)
    assert two_factor_required(user=admin) and two_factor_required(user=staff)
    assert not two_factor_required(user=reviewer)
    Organisation.objects.filter(pk=matter.organisation_id).update(require_two_factor=True)
    assert two_factor_required(user=reviewer)
    outsider = make_user("otto")
    make_matter("Elsewhere", organisation="Other LLP", members=[(outsider, Role.REVIEWER)])
    assert not two_factor_required(user=outsider)
    enrolled_device(outsider)
    assert two_factor_needed(user=outsider)  # enrolled by choice: asked at sign-in too


def test_an_admin_without_a_code_is_refused_every_admin_page(client, admin):
    enrolled_device(admin)
    _password(client, admin)
    for path in ("/audit/", "/reports/", "/playbooks/", "/admin/", "/"):
        refused = client.get(path)
        assert refused.status_code == 302, path
        assert refused["Location"] == f"{VERIFY}?next={path.replace('/', '%2F')}"
    api = client.get("/api/matters/")
    assert api.status_code == 403 and api.json()["error"]["code"] == "TWO_FACTOR_REQUIRED"
    assert client.get(VERIFY).status_code == 200


def test_the_right_code_opens_the_admin_pages_and_is_audited(client, admin):
    device = enrolled_device(admin)
    _password(client, admin)
    passed = _code(client, next_code(device), next_url="/audit/")
    assert passed.status_code == 302 and passed["Location"] == "/audit/"
    assert client.get("/audit/").status_code == 200
    assert client.get("/api/matters/").status_code == 200
    event = AuditEvent.objects.get(action="auth.two_factor_verified")
    assert event.data["method"] == "totp" and event.target_id == str(admin.pk)


def test_a_code_is_accepted_once(client, admin):
    device = enrolled_device(admin)
    code = next_code(device)
    _password(client, admin)
    assert _code(client, code).status_code == 302
    client.post("/logout/")
    _password(client, admin)
    again = _code(client, code)
    assert again.status_code == 200 and "That code is not right" in again.content.decode()


def test_an_admin_without_an_app_sets_it_up_and_gets_ten_recovery_codes(client, admin):
    _password(client, admin)
    sent = client.get("/audit/")
    assert sent["Location"] == f"{SETUP}?next=%2Faudit%2F"
    codes = _enrol(client)
    assert len(codes) == 10 and len(set(codes)) == 10
    assert client.get("/audit/").status_code == 200  # set up in this session: verified
    assert AuditEvent.objects.filter(action="auth.two_factor_enrolled").count() == 1
    assert not any(code in str(e.data) for e in AuditEvent.objects.all() for code in codes)


def test_a_wrong_code_at_set_up_turns_nothing_on(client, admin):
    _password(client, admin)
    client.get(SETUP)
    device = TOTPDevice.objects.get(user=admin)
    wrong = client.post(SETUP, {"otp_code": wrong_code(device)})
    assert wrong.status_code == 200 and "That code is not right" in wrong.content.decode()
    assert not TOTPDevice.objects.filter(user=admin, confirmed=True).exists()
    assert client.get("/audit/").status_code == 302


def test_a_recovery_code_works_once(client, admin):
    _password(client, admin)
    codes = _enrol(client)
    client.post("/logout/")
    _password(client, admin)
    used = _code(client, codes[0].upper()[:4] + "-" + codes[0][4:], next_url="/audit/")
    assert used.status_code == 302 and used["Location"] == "/audit/"
    assert StaticToken.objects.filter(device__user=admin).count() == 9
    event = AuditEvent.objects.get(action="auth.two_factor_verified")
    assert event.data["method"] == "recovery" and event.data["recovery_codes_left"] == 9
    client.post("/logout/")
    _password(client, admin)
    again = _code(client, codes[0])
    assert again.status_code == 200 and "That code is not right" in again.content.decode()
    assert client.get("/audit/").status_code == 302


def test_five_wrong_codes_lock_the_user_out_like_wrong_passwords(client, admin, settings):
    device = enrolled_device(admin)
    _password(client, admin)
    answers = [_code(client, wrong_code(device)).status_code for _ in range(5)]
    assert answers == [200, 200, 200, 200, 429]
    assert "_auth_user_id" not in client.session  # signed out
    assert AuditEvent.objects.filter(action="auth.two_factor_failed").count() == 5
    assert AuditEvent.objects.get(action="auth.two_factor_failed", data__locked_out=True)
    assert not AuditEvent.objects.filter(action="auth.sign_in_failed").exists()
    locked = client.post(
        "/login/", {"username": admin.username, "password": "pw-ada"}, REMOTE_ADDR="10.0.0.1"
    )
    assert locked.status_code == 429  # even the right password, as after wrong passwords


def test_signing_in_again_with_the_password_does_not_clear_wrong_codes(client, admin):
    device = enrolled_device(admin)
    _password(client, admin)
    for _ in range(4):
        assert _code(client, wrong_code(device)).status_code == 200
    client.post("/logout/")
    _password(client, admin)  # a right password alone
    assert _code(client, wrong_code(device)).status_code == 429


def test_a_right_code_clears_earlier_wrong_ones(client, admin, monkeypatch):
    monkeypatch.setattr(TOTPDevice, "get_throttle_factor", lambda self: 0)
    device = enrolled_device(admin)
    _password(client, admin)
    for _ in range(4):
        _code(client, wrong_code(device))
    assert _code(client, next_code(device)).status_code == 302
    client.post("/logout/")
    _password(client, admin)
    assert _code(client, wrong_code(device)).status_code == 200  # one failure, not five


def test_a_reviewer_needs_no_code_until_their_organisation_requires_it(
    client, reviewer, admin, matter
):
    _password(client, reviewer)
    assert client.get("/").status_code == 200
    client.force_login(admin)
    switched = client.post(
        f"/organisations/{matter.organisation_id}/two-factor/", {"require_two_factor": "on"}
    )
    assert switched.status_code == 302
    assert Organisation.objects.get(pk=matter.organisation_id).require_two_factor
    event = AuditEvent.objects.get(action="organisation.two_factor_policy_set")
    assert event.data == {"require_two_factor": True} and event.actor == "ada"
    client.post("/logout/")
    _password(client, reviewer)
    assert client.get("/")["Location"].startswith(SETUP)


def test_only_an_admin_of_the_organisation_changes_its_requirement(client, lawyer, matter):
    client.force_login(lawyer)
    response = client.post(
        f"/organisations/{matter.organisation_id}/two-factor/", {"require_two_factor": "on"}
    )
    assert response.status_code == 404
    assert not Organisation.objects.get(pk=matter.organisation_id).require_two_factor


def test_anyone_may_turn_it_on_from_their_account_page(client, reviewer):
    _password(client, reviewer)
    assert "Off:" in client.get("/account/two-factor/").content.decode()
    _enrol(client)
    assert "On:" in client.get("/account/two-factor/").content.decode()
    client.post("/logout/")
    _password(client, reviewer)
    assert client.get("/")["Location"].startswith(VERIFY)  # asked from now on


def test_an_admin_resets_a_members_second_factor_from_the_matter_page(
    client, admin, lawyer, matter
):
    enrolled_device(lawyer)
    membership = Membership.objects.get(user=lawyer, matter=matter)
    client.force_login(admin)
    page = client.get(f"/matters/{matter.pk}/").content.decode()
    reset_url = f"/matters/{matter.pk}/members/{membership.pk}/two-factor-reset/"
    assert reset_url in page
    assert client.post(reset_url).status_code == 302
    assert not TOTPDevice.objects.filter(user=lawyer).exists()
    event = AuditEvent.objects.get(action="auth.two_factor_reset")
    assert event.actor == "ada" and event.target_id == str(lawyer.pk)


def test_a_lawyer_cannot_reset_anyones_second_factor(client, admin, lawyer, matter):
    enrolled_device(admin)
    membership = Membership.objects.get(user=admin, matter=matter)
    client.force_login(lawyer)
    response = client.post(f"/matters/{matter.pk}/members/{membership.pk}/two-factor-reset/")
    assert response.status_code == 404
    assert TOTPDevice.objects.filter(user=admin).exists()


def test_a_reset_unverifies_the_members_open_session(client, admin):
    client.force_login(admin)
    assert client.get("/audit/").status_code == 200
    call_command("two_factor_reset", admin.username)
    assert client.get("/audit/")["Location"].startswith(SETUP)
    assert AuditEvent.objects.get(action="auth.two_factor_reset").actor_kind == "system"


def test_a_token_of_an_admin_who_never_set_it_up_is_refused(client, admin, reviewer):
    admin_token = Token.objects.create(user=admin).key
    refused = client.get("/api/matters/", HTTP_AUTHORIZATION=f"Token {admin_token}")
    assert refused.status_code == 401
    assert "two-factor" in refused.json()["error"]["message"]
    enrolled_device(admin)
    assert client.get("/api/matters/", HTTP_AUTHORIZATION=f"Token {admin_token}").status_code == 200
    reviewer_token = Token.objects.create(user=reviewer).key
    assert (
        client.get("/api/matters/", HTTP_AUTHORIZATION=f"Token {reviewer_token}").status_code == 200
    )


def _session(data: dict) -> SessionStore:
    session = SessionStore()
    session.update(data)
    session.save()
    return session


async def _socket(user, data):
    communicator = WebsocketCommunicator(EventsConsumer.as_asgi(), "/ws/events/")
    communicator.scope["user"] = user
    communicator.scope["session"] = await sync_to_async(_session)(data)
    connected, code = await communicator.connect()
    if connected:
        await communicator.disconnect()
    return connected, code


@pytest.mark.asyncio
@pytest.mark.django_db(transaction=True)
async def test_an_unverified_admin_session_gets_no_websocket(admin):
    device = await sync_to_async(enrolled_device)(admin)
    assert await _socket(admin, {}) == (False, 4401)
    verified = {DEVICE_ID_SESSION_KEY: device.persistent_id}
    assert (await _socket(admin, verified))[0]
