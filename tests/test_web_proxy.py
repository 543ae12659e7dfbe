"""The web process believes X-Forwarded-For only from the proxies CLAUSEWISE_TRUSTED_PROXIES
lists: a client that reaches it directly cannot name its own address (issue 27)."""

from __future__ import annotations

import urllib.error
import urllib.request

import pytest

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
