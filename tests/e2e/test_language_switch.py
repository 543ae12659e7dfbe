"""A reviewer switches to Simplified Chinese in Chromium: pages and live upload rows follow."""

from __future__ import annotations

import pytest

from reviewapp.accounts.services import demo_seed
from tests.e2e.test_upload_flow import sign_in
from tests.processes import celery_worker, web_server

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

CONTRACT = (
    "1. Term. This Agreement starts on 1 January 2025 and lasts two years.\n\n"
    "2. Assignment. Neither party may assign this Agreement without the other's consent.\n"
)


def test_reviewer_switches_to_chinese_and_uploads(browser, tmp_path):
    passwords = demo_seed()
    document = tmp_path / "合同.txt"
    document.write_text(CONTRACT, encoding="utf-8")
    with celery_worker(tmp_path / "worker.log"), web_server(tmp_path / "web.log") as url:
        page = browser.new_page()
        sign_in(page, url, "reviewer", passwords["reviewer"])
        page.click("button[name=language][value=zh-hans]")
        page.wait_for_selector("html[lang=zh-hans]")
        assert page.locator("h1").inner_text() == "我的事项"
        assert page.url == f"{url}/"

        page.click("text=Demo matter")
        page.wait_for_url("**/matters/*/")
        page.wait_for_function("() => document.body && document.body.dataset.live === 'connected'")
        assert "上传合同" in page.locator("#upload h2").inner_text()
        page.set_input_files("#file-input", str(document))
        row = page.locator("li.upload").first
        row.locator("text=打开").wait_for(timeout=60_000)
        assert "就绪" in row.inner_text() and "个段落" in row.inner_text()

        page.reload()  # the choice is kept by the cookie
        assert page.locator("html").get_attribute("lang") == "zh-hans"
        page.click("button[name=language][value=en]")
        page.wait_for_selector("html[lang=en]")
        assert "Upload contracts" in page.locator("#upload h2").inner_text()
