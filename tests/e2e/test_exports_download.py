"""In the browser: the CSV downloaded from the review page has one row per issue (a passage and
a category), not one per rule firing."""

from __future__ import annotations

import csv
import io

import pytest

from reviewapp.accounts.models import Matter
from reviewapp.accounts.services import DEMO_MATTER, demo_seed
from reviewapp.reviews.models import RuleFiring
from tests.e2e.test_upload_flow import sign_in
from tests.processes import web_server
from tests.reviews.test_export_issues import PDF_LIKE, PLAYBOOK
from tests.reviews.test_exports import reviewed

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_downloaded_csv_has_one_row_per_issue(
    browser, tmp_path, django_capture_on_commit_callbacks
):
    passwords = demo_seed()
    matter = Matter.objects.get(name=DEMO_MATTER)
    review = reviewed(matter, django_capture_on_commit_callbacks, text=PDF_LIKE, playbook=PLAYBOOK)
    firings = RuleFiring.objects.filter(review=review)
    assert firings.count() == 4  # two MFN rules, a price rule, a secondary notices rule
    issues = {(f.passage_id, f.category) for f in firings if f.rule_id != "en.t.notices.context"}
    with web_server(tmp_path / "web.log") as url:
        page = browser.new_page(accept_downloads=True)
        sign_in(page, url, "reviewer", passwords["reviewer"])
        page.goto(f"{url}/contracts/{review.contract_id}/")
        with page.expect_download() as download_info:
            page.click("#review-exports >> text=CSV of issues")
        path = download_info.value.path()
        rows = list(csv.DictReader(io.StringIO(path.read_text(encoding="utf-8-sig"))))
        assert len(rows) == len(issues)
        assert {row["category"] for row in rows} == {"Most Favored Nation", "Price Restrictions"}
        assert all("of 12 months" in row["passage_text"] for row in rows)
        with page.expect_download() as memo_info:
            page.click("#review-exports >> text=Word memo (.docx)")
        assert memo_info.value.suggested_filename.endswith(".docx")
