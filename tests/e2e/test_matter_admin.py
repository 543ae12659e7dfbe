"""An organisation admin opens a matter and puts a lawyer on it, in Chromium."""

from __future__ import annotations

import pytest

from reviewapp.accounts.services import demo_seed
from tests.e2e.test_upload_flow import sign_in
from tests.processes import web_server

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_admin_creates_a_matter_and_the_lawyer_added_sees_it(browser, tmp_path):
    passwords = demo_seed()
    with web_server(tmp_path / "web.log") as url:
        admin = browser.new_page()
        sign_in(admin, url, "admin", passwords["admin"])
        admin.fill("#new-matter input[name=name]", "Project Blue")
        admin.fill("#new-matter input[name=reference]", "PB-7")
        admin.click("#new-matter button[type=submit]")
        admin.wait_for_url("**/matters/*/")
        assert "Project Blue" in admin.locator("h1").inner_text()
        admin.fill("#add-member input[name=username]", "lawyer")
        admin.select_option("#add-member select[name=role]", "lawyer")
        admin.click("#add-member button[type=submit]")
        admin.wait_for_selector("tr[data-member=lawyer]")
        assert "lawyer is on this matter as Lawyer" in admin.locator(".messages").inner_text()

        lawyer = browser.new_page()
        sign_in(lawyer, url, "lawyer", passwords["lawyer"])
        assert "Project Blue" in lawyer.locator("ul.matters").inner_text()
        assert lawyer.locator("#new-matter").count() == 0
