"""Security headers: the CSP on every page, HTTPS settings in production, early upload refusal."""

from __future__ import annotations

import asyncio
import json
import os
import secrets
import subprocess
import sys
from pathlib import Path

import pytest
from django.test import override_settings

from reviewapp.accounts.models import Role

ROOT = Path(__file__).resolve().parent.parent
pytestmark = pytest.mark.django_db


def _directives(response) -> dict[str, set[str]]:
    header = response.headers["Content-Security-Policy"]
    parts = (part.split() for part in header.split(";") if part.strip())
    return {name: set(values) for name, *values in parts}


def test_pages_carry_a_strict_csp(client, make_user, make_matter):
    csp = _directives(client.get("/login/"))
    for name in ("script-src", "style-src", "worker-src", "connect-src", "default-src"):
        assert "'self'" in csp[name], name
        assert "'unsafe-inline'" not in csp[name] and "'unsafe-eval'" not in csp[name], name
    assert csp["object-src"] == {"'none'"} and csp["frame-ancestors"] == {"'none'"}
    alice = make_user("alice")
    make_matter("M", members=[(alice, Role.LAWYER)])
    client.force_login(alice)
    assert _directives(client.get("/queue/"))["script-src"] == {"'self'"}


def test_api_docs_inline_script_runs_by_the_requests_nonce(client, make_user):
    client.force_login(make_user("alice"))
    response = client.get("/api/docs/")
    nonces = [v for v in _directives(response)["script-src"] if v.startswith("'nonce-")]
    assert len(nonces) == 1
    assert f'<script nonce="{nonces[0][7:-1]}">' in response.content.decode()


def _production_env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DJANGO_", "AUDIT_"))}
    env.update(
        DJANGO_SETTINGS_MODULE="reviewapp.settings.production",
        DJANGO_SECRET_KEY=secrets.token_urlsafe(50),
        AUDIT_HMAC_KEY=secrets.token_hex(32),
        DJANGO_ALLOWED_HOSTS="example.com",
        REDIS_URL="redis://127.0.0.1:6379/0",
        DATABASE_URL="postgres://postgres@127.0.0.1:5432/test",
    )
    env.update(extra)
    return env


def _run(args: list[str], env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, *args], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120
    )


@pytest.mark.slow  # starts a Python process
def test_production_settings_pass_the_deploy_check():
    done = _run(["manage.py", "check", "--deploy", "--fail-level", "WARNING"], _production_env())
    assert done.returncode == 0, done.stdout + done.stderr


PRINT_SETTINGS = """
import json, django
django.setup()
from django.conf import settings as s
print(json.dumps([s.SECURE_SSL_REDIRECT, s.SECURE_REDIRECT_EXEMPT, s.SECURE_HSTS_SECONDS,
                  s.SECURE_HSTS_INCLUDE_SUBDOMAINS, s.SECURE_PROXY_SSL_HEADER]))
"""


@pytest.mark.slow  # starts a Python process
def test_production_https_settings_are_configurable():
    default = json.loads(_run(["-c", PRINT_SETTINGS], _production_env()).stdout)
    assert default == [True, ["^healthz$"], 31_536_000, True, None]
    env = _production_env(
        DJANGO_SECURE_SSL_REDIRECT="0",
        DJANGO_SECURE_HSTS_SECONDS="600",
        DJANGO_SECURE_HSTS_INCLUDE_SUBDOMAINS="0",
        DJANGO_SECURE_PROXY_SSL_HEADER="X-Forwarded-Proto",
    )
    assert json.loads(_run(["-c", PRINT_SETTINGS], env).stdout) == [
        False, ["^healthz$"], 600, False, ["HTTP_X_FORWARDED_PROTO", "https"]
    ]  # fmt: skip
    bad = _run(["-c", PRINT_SETTINGS], _production_env(DJANGO_SECURE_PROXY_SSL_HEADER="a b"))
    assert bad.returncode != 0 and "DJANGO_SECURE_PROXY_SSL_HEADER" in bad.stderr


@override_settings(SECURE_SSL_REDIRECT=True, SECURE_REDIRECT_EXEMPT=[r"^healthz$"])
def test_plain_http_is_redirected_except_the_health_check(client):
    assert client.get("/login/").status_code == 301
    assert client.get("/healthz").status_code != 301


class _Unreadable:
    """A request body that fails the test if anything reads it."""

    def read(self, *args, **kwargs):
        raise AssertionError("the body was read")

    readline = read


@override_settings(UPLOAD_MAX_BYTES=1024 * 1024)
def test_api_refuses_a_declared_oversized_upload_unread(client, make_user, make_matter):
    alice = make_user("alice")
    matter = make_matter("M", members=[(alice, Role.REVIEWER)])
    client.force_login(alice)
    response = client.generic(
        "POST",
        f"/api/matters/{matter.pk}/contracts/",
        content_type="multipart/form-data; boundary=x",
        CONTENT_LENGTH=str(200 * 1024 * 1024),
        HTTP_X_CSRFTOKEN="unused",
        **{"wsgi.input": _Unreadable()},
    )
    assert response.status_code == 413
    assert response.json()["error"]["code"] == "TOO_LARGE"
    assert "1.0 MB" in response.json()["error"]["message"]


def test_asgi_app_answers_413_before_receiving_the_body(settings):
    from reviewapp.asgi import application

    async def receive():
        raise AssertionError("the body was received")

    sent: list[dict] = []

    async def send(message):
        sent.append(message)

    size = settings.UPLOAD_MAX_BYTES + settings.DATA_UPLOAD_MAX_MEMORY_SIZE + 1
    scope = {
        "type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": "POST",
        "scheme": "http", "path": "/api/matters/1/contracts/", "raw_path": b"", "query_string": b"",
        "headers": [(b"host", b"127.0.0.1"), (b"content-length", str(size).encode())],
    }  # fmt: skip
    asyncio.run(application(scope, receive, send))
    assert sent[0]["status"] == 413
    assert json.loads(sent[1]["body"])["error"]["code"] == "TOO_LARGE"
