"""In the browser: a lawyer edits a redline in the queue, writes a comment for the counterparty
and accepts it; the reviewer exports the contract for the counterparty and for the firm, and the
files read back carry the change, the one only the lawyer's comment, the other the issues too."""

from __future__ import annotations

import pytest

from reviewapp.accounts.models import Matter
from reviewapp.accounts.services import DEMO_MATTER, demo_seed
from tests.e2e.test_upload_flow import sign_in
from tests.processes import web_server
from tests.reviews.docx_files import accepted_text, comment_texts, rejected_text, revisions
from tests.reviews.test_exports import reviewed

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PLAYBOOK = """
name: strict
version: "1"
language: en
rules:
  - id: en.strict.mfn
    category: Most Favored Nation
    severity: critical
    action: reject
    patterns: ['most favou?red nation']
    fallback_clause: Customer shall receive the prices listed in Schedule 1.
"""
TEXT = (
    "1. Pricing. Customer shall receive most favored nation pricing.\n\n2. Notices. In writing.\n"
)
EDITED = "1. Pricing. Customer shall receive the prices listed in Schedule 2."
COMMENT = "Schedule 2 holds the prices we agreed on the call."


def test_a_lawyers_redline_from_the_queue_is_in_the_exported_word_file(
    browser, tmp_path, django_capture_on_commit_callbacks
):
    passwords = demo_seed()
    matter = Matter.objects.get(name=DEMO_MATTER)
    review = reviewed(matter, django_capture_on_commit_callbacks, text=TEXT, playbook=PLAYBOOK)
    with web_server(tmp_path / "web.log") as url:
        lawyer = browser.new_context().new_page()
        sign_in(lawyer, url, "lawyer", passwords["lawyer"])
        lawyer.goto(f"{url}/queue/")
        editor = lawyer.locator(".redline[data-category='Most Favored Nation']")
        textarea = editor.locator("[data-role=replacement]")
        # Prefilled with the playbook's standard wording, the clause number kept.
        assert (
            textarea.input_value()
            == "1. Pricing. Customer shall receive the prices listed in Schedule 1."
        )
        # Nobody has touched it yet, and the contract's parties are not known (no party chosen).
        assert editor.locator("[data-role=source]").inner_text() == (
            "standard wording, not yet reviewed"
        )
        assert (
            "(“Customer”): choose the party"
            in editor.locator("[data-role=terms-note]").inner_text()
        )
        textarea.fill(EDITED)
        editor.locator("[data-role=counterparty-comment]").fill(COMMENT)
        editor.locator("[data-action=redline-accept]").click()
        lawyer.wait_for_selector(".redline[data-status=ACCEPTED]")
        deleted = " ".join(editor.locator(".redline-diff del").all_inner_texts())
        assert "favored" in deleted and "nation" in deleted
        assert "Schedule 2" in " ".join(editor.locator(".redline-diff ins").all_inner_texts())
        # The demo lawyer has no full name: the username stands for it.
        assert editor.locator("[data-role=source]").inner_text() == "edited by lawyer"
        assert editor.locator("[data-role=accepted]").inner_text() == "accepted by lawyer"
        assert editor.locator("[data-role=terms-note]").count() == 0

        reviewer = browser.new_context(accept_downloads=True).new_page()
        sign_in(reviewer, url, "reviewer", passwords["reviewer"])
        reviewer.goto(f"{url}/contracts/{review.contract_id}/")
        # The redlines section below the document is fetched as the reader nears it (at once
        # on a short contract like this one).
        reviewer.locator("#review-redlines").scroll_into_view_if_needed()
        reviewer.wait_for_selector("#review-redlines[data-loaded='1']")
        shown = reviewer.locator(".redline[data-status=ACCEPTED]")
        assert shown.count() == 1 and shown.locator(".redline-diff del").count() > 0
        links = reviewer.locator("[data-role^=redline-export]")
        assert links.all_inner_texts() == [
            "Redline for the counterparty (no internal notes)",
            "Redline for the firm (with internal notes)",
        ]
        files = {}
        for role in ("redline-export", "redline-export-internal"):
            with reviewer.expect_download() as download:
                reviewer.click(f"[data-role={role}]")
            files[download.value.suggested_filename.rsplit(".", 2)[-2]] = (
                download.value.path().read_bytes()
            )
    assert sorted(files) == ["redline", "redline-internal"]
    for content in files.values():
        assert accepted_text(content) == TEXT.replace(TEXT.split("\n")[0], EDITED)
        assert rejected_text(content) == TEXT
        # The demo lawyer has no full name: the firm (the organisation) signs, never "lawyer".
        assert {author for _kind, author, _text in revisions(content)} == {"Demo LLP"}
    assert comment_texts(files["redline"]) == [COMMENT]
    internal = comment_texts(files["redline-internal"])
    assert COMMENT in internal and any(c.startswith("Most Favored Nation") for c in internal)
