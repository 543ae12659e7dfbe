"""A password change, a deactivation or a removal ends the user's sessions and API tokens."""

import importlib

import pytest
from django.contrib.auth.hashers import make_password
from django.contrib.sessions.models import Session
from django.core.management import call_command
from rest_framework.authtoken.models import Token

from reviewapp.accounts.models import Role
from reviewapp.audit.models import AuditAction, AuditEvent

pytestmark = pytest.mark.django_db


@pytest.fixture
def alice(make_user, make_matter):
    user = make_user("alice")
    make_matter("M", members=[(user, Role.LAWYER)])
    return user


def _sessions_of(user) -> list[str]:
    return [
        s.session_key
        for s in Session.objects.all()
        if s.get_decoded().get("_auth_user_id") == str(user.pk)
    ]


def _api(client, token: str):
    return client.get("/api/matters/", HTTP_AUTHORIZATION=f"Token {token}")


def _assert_refused(response) -> None:
    assert response.status_code == 401
    assert response.json()["error"]["code"] == "AUTHENTICATION_FAILED"
    assert response.json()["error"]["message"]


def test_password_change_ends_tokens_and_sessions_and_a_new_token_works(alice, client, settings):
    token = Token.objects.create(user=alice).key
    client.force_login(alice)
    assert _api(client, token).status_code == 200
    assert _sessions_of(alice)

    alice.set_password("a-new-password-7")
    alice.save()

    assert not Token.objects.filter(user=alice).exists()
    assert _sessions_of(alice) == []
    assert client.get("/").status_code == 302  # the browser is signed out
    client.logout()
    _assert_refused(_api(client, token))
    fresh = Token.objects.create(user=alice).key
    assert _api(client, fresh).status_code == 200
    event = AuditEvent.objects.get(action=AuditAction.SESSIONS_REVOKED)
    assert event.target_id == str(alice.pk)
    assert event.data == {"reason": "password_changed", "sessions": 1, "tokens": 1}


def test_deactivation_ends_tokens_and_sessions(alice, client):
    token = Token.objects.create(user=alice).key
    client.force_login(alice)
    alice.is_active = False
    alice.save()
    assert _sessions_of(alice) == []
    assert not Token.objects.filter(key=token).exists()
    client.logout()
    _assert_refused(_api(client, token))
    event = AuditEvent.objects.get(action=AuditAction.SESSIONS_REVOKED)
    assert event.data["reason"] == "deactivated"


def test_changepassword_command_and_admin_form_revoke(alice, client, admin_client, monkeypatch):
    Token.objects.create(user=alice)
    monkeypatch.setattr("getpass.getpass", lambda prompt="": "another-pass-8")
    call_command("changepassword", "alice")
    assert not Token.objects.filter(user=alice).exists()

    token = Token.objects.create(user=alice).key
    response = admin_client.post(
        f"/admin/auth/user/{alice.pk}/password/",
        {"password1": "third-pass-9x", "password2": "third-pass-9x", "usable_password": "true"},
    )
    assert response.status_code == 302
    _assert_refused(_api(client, token))


def test_user_removal_is_audited_and_ends_tokens(alice):
    Token.objects.create(user=alice)
    pk = alice.pk
    alice.delete()
    assert not Token.objects.filter(user_id=pk).exists()
    event = AuditEvent.objects.get(action=AuditAction.SESSIONS_REVOKED)
    assert event.data["reason"] == "deleted" and event.target_id == str(pk)


def test_sign_in_and_hash_upgrade_do_not_revoke(alice, client):
    # A hash with a short salt must be upgraded: Django re-saves it at sign-in, same password.
    alice.password = make_password("pw-alice", salt="ab", hasher="md5")
    type(alice).objects.filter(pk=alice.pk).update(password=alice.password)
    token = Token.objects.create(user=alice).key
    response = client.post("/login/", {"username": "alice", "password": "pw-alice"})
    assert response.status_code == 302
    alice.refresh_from_db()
    assert "$ab$" not in alice.password  # upgraded
    assert _api(client, token).status_code == 200
    assert client.get("/").status_code == 200
    assert not AuditEvent.objects.filter(action=AuditAction.SESSIONS_REVOKED).exists()


def test_other_saves_do_not_revoke(alice, client):
    token = Token.objects.create(user=alice).key
    client.force_login(alice)
    alice.first_name = "Alice"
    alice.save()
    assert _api(client, token).status_code == 200
    assert _sessions_of(alice)


# --- rows changed with QuerySet.update(), which sends no signal ---


def test_token_is_refused_once_the_password_is_changed_with_an_update(alice, client):
    token = Token.objects.create(user=alice).key
    assert _api(client, token).status_code == 200
    type(alice).objects.filter(pk=alice.pk).update(password=make_password("x"))
    _assert_refused(_api(client, token))
    Token.objects.filter(key=token).delete()  # one token per user: the stale one goes first
    fresh = Token.objects.create(user=alice).key  # issued under the new password
    assert _api(client, fresh).status_code == 200


def test_token_is_refused_once_the_user_is_deactivated_with_an_update(alice, client):
    token = Token.objects.create(user=alice).key
    assert _api(client, token).status_code == 200
    type(alice).objects.filter(pk=alice.pk).update(is_active=False)
    _assert_refused(_api(client, token))


def test_token_refusal_after_a_password_change_reads_in_chinese(alice, client):
    token = Token.objects.create(user=alice).key
    type(alice).objects.filter(pk=alice.pk).update(password=make_password("x"))
    response = client.get(
        "/api/matters/", HTTP_AUTHORIZATION=f"Token {token}", HTTP_ACCEPT_LANGUAGE="zh-hans"
    )
    assert response.status_code == 401
    assert response.json()["error"]["message"] == "此令牌签发于密码更改之前：请创建新令牌。"


def test_tokens_issued_before_fingerprints_keep_working_after_the_migration(alice, client):
    from django.apps import apps

    from reviewapp.accounts.models import TokenFingerprint

    migration = importlib.import_module("reviewapp.accounts.migrations.0005_token_fingerprint")
    token = Token.objects.create(user=alice).key
    TokenFingerprint.objects.all().delete()  # as every token was before the migration
    _assert_refused(_api(client, token))
    migration.fingerprint_existing_tokens(apps, None)
    assert _api(client, token).status_code == 200


def test_token_created_in_the_admin_works_until_the_password_changes(alice, client, admin_client):
    response = admin_client.post("/admin/authtoken/tokenproxy/add/", {"user": alice.pk})
    assert response.status_code == 302
    token = Token.objects.get(user=alice).key
    assert _api(client, token).status_code == 200
    type(alice).objects.filter(pk=alice.pk).update(password=make_password("x"))
    _assert_refused(_api(client, token))
