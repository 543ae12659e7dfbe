"""The web process believes X-Forwarded-For only from the proxies CLAUSEWISE_TRUSTED_PROXIES
lists: a client that reaches it directly cannot name its own address (issue 27)."""

from __future__ import annotations

import http.cookiejar
import re
import urllib.error
import urllib.parse
import urllib.request

import pytest
from axes.models import AccessAttempt
from django.conf import settings

from reviewapp.audit.models import AuditAction, AuditEvent
from reviewapp.web import proxy_options
from tests.processes import web_server

FORGED = "203.0.113.9"


def test_no_proxy_is_trusted_unless_listed():
    assert proxy_options("") == {"proxy_headers": False, "forwarded_allow_ips": []}
    assert proxy_options(" 10.0.0.5, 10.1.0.0/16 ,") == {
        "proxy_headers": True,
        "forwarded_allow_ips": ["10.0.0.5", "10.1.0.0/16"],
    }


def _refused_address(url: str) -> str:
    """The address the audit log gives a refused API request that says it comes from FORGED."""
    request = urllib.request.Request(
        f"{url}/api/matters/", headers={"X-Forwarded-For": FORGED, "Accept": "application/json"}
    )
    with pytest.raises(urllib.error.HTTPError) as refused:
        urllib.request.urlopen(request, timeout=10)
    assert refused.value.code in (401, 403)
    return AuditEvent.objects.filter(action=AuditAction.ACCESS_DENIED).latest("pk").data["ip"]


@pytest.mark.slow  # starts two web processes
@pytest.mark.django_db(transaction=True)
def test_a_forged_forwarded_for_is_not_the_clients_address(tmp_path):
    with web_server(tmp_path / "web.log") as url:
        assert _refused_address(url) == "127.0.0.1"
    with web_server(tmp_path / "proxied.log", CLAUSEWISE_TRUSTED_PROXIES="127.0.0.1") as url:
        assert _refused_address(url) == FORGED  # a listed proxy is believed


def _sign_in(url: str, username: str, password: str, forged: str) -> int:
    """The sign-in form as a browser posts it, claiming to come from ``forged``."""
    jar = http.cookiejar.CookieJar()
    opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(jar))
    page = opener.open(f"{url}/login/", timeout=10).read().decode()
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page).group(1)
    form = urllib.parse.urlencode(
        {"username": username, "password": password, "csrfmiddlewaretoken": token}
    ).encode()
    request = urllib.request.Request(
        f"{url}/login/",
        data=form,
        headers={"X-Forwarded-For": forged, "Referer": f"{url}/login/"},
    )
    try:
        with opener.open(request, timeout=10) as response:
            return response.status
    except urllib.error.HTTPError as error:
        return error.code


@pytest.mark.slow  # starts a web process
@pytest.mark.django_db(transaction=True)
def test_forged_addresses_do_not_escape_the_sign_in_lockout(tmp_path, make_user):
    make_user("victim")
    with web_server(tmp_path / "web.log") as url:
        limit = settings.AXES_FAILURE_LIMIT
        statuses = [  # a new name and a new address each time
            _sign_in(url, f"guess{n}", "wrong", f"198.51.100.{n}") for n in range(limit)
        ]
        assert statuses == [200] * (limit - 1) + [429]  # the form again, then locked out
        assert (
            _sign_in(url, "victim", "pw-victim", "198.51.100.250") == 429
        )  # the address is locked
    addresses = set(AccessAttempt.objects.values_list("ip_address", flat=True))
    assert addresses == {"127.0.0.1"}
