"""Sign-in lockout (django-axes) and API throttles."""

from __future__ import annotations

import pytest
from django.core.cache import cache
from django.core.management import call_command
from rest_framework.throttling import UserRateThrottle

from reviewapp.audit.models import AuditEvent

pytestmark = pytest.mark.django_db


def _sign_in(client, username: str, password: str, ip: str = "10.0.0.1"):
    return client.post("/login/", {"username": username, "password": password}, REMOTE_ADDR=ip)


def test_the_sixth_wrong_password_locks_out_even_the_right_one(client, make_user):
    make_user("rita")
    for _ in range(4):
        assert _sign_in(client, "rita", "wrong").status_code == 200
    assert _sign_in(client, "rita", "wrong").status_code == 429  # the fifth failure locks
    locked = _sign_in(client, "rita", "pw-rita")  # the sixth try, with the right password
    assert locked.status_code == 429
    page = locked.content.decode()
    assert "Too many failed sign-ins" in page and "15 minutes" in page
    assert "_auth_user_id" not in client.session
    assert AuditEvent.objects.filter(action="auth.sign_in_failed").count() >= 5


def test_a_locked_out_username_says_the_same_whether_it_exists_or_not(client, make_user):
    make_user("rita")
    for name in ("rita", "nobody"):
        for _ in range(5):
            _sign_in(client, name, "wrong", ip=f"10.0.1.{len(name)}")
        locked = _sign_in(client, name, "x", ip=f"10.0.1.{len(name)}")
        assert locked.status_code == 429
    assert "rita" not in locked.content.decode() or "nobody" not in locked.content.decode()


def test_one_address_trying_many_usernames_is_locked_out(client, make_user):
    make_user("rita")
    for n in range(5):
        _sign_in(client, f"guess{n}", "wrong", ip="10.0.2.9")
    assert _sign_in(client, "rita", "pw-rita", ip="10.0.2.9").status_code == 429
    assert _sign_in(client, "rita", "pw-rita", ip="10.0.2.10").status_code == 302


def test_an_admin_unlocks_a_user(client, make_user):
    make_user("rita")
    for _ in range(6):
        _sign_in(client, "rita", "wrong")
    assert _sign_in(client, "rita", "pw-rita").status_code == 429
    call_command("axes_reset_username", "rita")
    call_command("axes_reset_ip", "10.0.0.1")
    assert _sign_in(client, "rita", "pw-rita").status_code == 302


def test_the_api_throttles_a_busy_client_with_the_documented_error(client, make_user, monkeypatch):
    user = make_user("rita")
    client.force_login(user)
    monkeypatch.setattr(UserRateThrottle, "THROTTLE_RATES", {"user": "3/min", "anon": "3/min"})
    cache.clear()
    answers = [client.get("/api/matters/").status_code for _ in range(4)]
    assert answers[:3] == [200, 200, 200] and answers[3] == 429
    error = client.get("/api/matters/").json()["error"]
    assert error["code"] and error["message"]
