"""The demo admin signs in with a password and an authenticator-app code, in Chromium: set up
at the first sign-in, asked at the next; without the code the admin pages refuse."""

from __future__ import annotations

import pytest
from django_otp.plugins.otp_totp.models import TOTPDevice
from playwright.sync_api import expect

from reviewapp.accounts.services import demo_seed
from tests.processes import web_server
from tests.two_factor import code_from_secret, next_code

pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.django_db(transaction=True)]


def _password(page, url: str, password: str) -> None:
    page.goto(f"{url}/login/")
    page.fill("input[name=username]", "admin")
    page.fill("input[name=password]", password)
    page.click("form:has(input[name=password]) button[type=submit]")
    page.wait_for_url(lambda address: "/login/" not in address)


def test_admin_sets_up_totp_then_signs_in_with_a_code_and_reaches_admin_pages(browser, tmp_path):
    passwords = demo_seed()
    with web_server(tmp_path / "web.log") as url:
        first = browser.new_context().new_page()
        _password(first, url, passwords["admin"])
        assert "/account/two-factor/setup/" in first.url
        first.goto(f"{url}/audit/")  # refused until set up
        assert "/account/two-factor/setup/" in first.url
        assert first.locator("img.qr").get_attribute("src").startswith("data:image/svg+xml")
        code_input = first.locator("#setup-form input[name=otp_code]")
        assert code_input.get_attribute("autocomplete") == "one-time-code"
        assert code_input.get_attribute("inputmode") == "numeric"
        code_input.fill(code_from_secret(first.inner_text("#totp-secret")))
        first.click("#setup-form button[type=submit]")
        expect(first.locator("#recovery-codes li")).to_have_count(10)  # waits for the answer
        first.click("#continue")
        first.wait_for_url(f"{url}/audit/")
        first.wait_for_selector("#audit-events")

        second = browser.new_context().new_page()
        _password(second, url, passwords["admin"])
        assert "/account/two-factor/verify/" in second.url
        for page_path in ("/admin/", "/audit/", "/reports/"):
            second.goto(f"{url}{page_path}")
            assert "/account/two-factor/verify/" in second.url, page_path
            assert second.locator("#audit-events").count() == 0
        second.goto(f"{url}/admin/")
        device = TOTPDevice.objects.get(user__username="admin", confirmed=True)
        second.fill("#totp-form input[name=otp_code]", next_code(device))
        second.click("#totp-form button[type=submit]")
        second.wait_for_url(f"{url}/admin/")
        assert "Site administration" in second.locator("h1").inner_text()
