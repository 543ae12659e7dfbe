"""In the browser: a contract's history shows a lawyer's decision with its passage's words, the
admin's audit log filters by who did it and keeps a deleted contract's events readable, the
reports' noise counts settled hits only, and a Word contract shows no page count."""

from __future__ import annotations

import re

import pytest

from reviewapp.accounts.models import Matter
from reviewapp.accounts.services import DEMO_MATTER, demo_seed
from reviewapp.contracts.deletion import contract_delete
from reviewapp.contracts.models import Passage
from reviewapp.queue.decisions import queue_item_claim, queue_item_decide
from reviewapp.queue.models import QueueItem
from tests.e2e.test_upload_flow import sign_in
from tests.factories import STRICT, upload_and_ingest
from tests.processes import web_server
from tests.reviews.docx_files import contract_docx
from tests.reviews.test_exports import decide, reviewed

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def decided(django_capture_on_commit_callbacks):
    """The demo matter with a contract reviewed offline and one passage decided by the lawyer."""
    passwords = demo_seed()
    matter = Matter.objects.get(name=DEMO_MATTER)
    review = reviewed(matter, django_capture_on_commit_callbacks, playbook=STRICT)
    lawyer = matter.memberships.get(user__username="lawyer").user
    decide(review, lawyer, rule_id="en.strict.mfn", decision="reject", note="No MFN.")
    return review, passwords


def test_history_page_shows_the_decision_with_its_passage_words(browser, decided, tmp_path):
    review, passwords = decided
    passage = Passage.objects.get(contract=review.contract, firings__rule_id="en.strict.mfn")
    with web_server(tmp_path / "web.log") as url:
        page = browser.new_page()
        sign_in(page, url, "reviewer", passwords["reviewer"])
        page.goto(f"{url}/contracts/{review.contract_id}/")
        page.click("#history-link")
        page.wait_for_url(f"{url}/contracts/{review.contract_id}/history/")
        decision = page.locator("tr.audit-event", has_text="Decision made")
        decision.wait_for()
        assert decision.locator(".who").inner_text() == "lawyer"
        assert "clause not acceptable" in decision.locator(".what").inner_text()
        target = decision.locator(".target a")
        assert "Customer shall receive most favored nation pricing." in target.inner_text()
        target.click()
        # The page marks the passage in its address (#passage-N) as soon as it has selected it,
        # which may be before this wait begins.
        page.wait_for_url(
            re.compile(
                rf"{re.escape(url)}/contracts/{review.contract_id}/\?passage={passage.index}"
                rf"(#passage-{passage.index})?$"
            )
        )


def test_admin_filters_the_audit_log_by_actor_and_action(browser, decided, tmp_path):
    review, passwords = decided
    with web_server(tmp_path / "web.log") as url:
        page = browser.new_page()
        sign_in(page, url, "admin", passwords["admin"])
        page.click("nav >> text=Audit log")
        page.wait_for_selector("#audit-events")
        everyone = page.locator("tr.audit-event").count()
        whos = set(page.locator("tr.audit-event .who").all_inner_texts())
        assert {"lawyer", "Trigger rules"} <= whos
        page.fill("#audit-filters input[name=actor]", "lawyer")
        page.click("#audit-filters button[type=submit]")
        page.wait_for_url("**/audit/?*actor=lawyer*")
        by_lawyer = page.locator("tr.audit-event .who").all_inner_texts()
        assert by_lawyer and set(by_lawyer) == {"lawyer"} and len(by_lawyer) < everyone
        page.select_option("#audit-filters select[name=action]", "queue.decided")
        page.click("#audit-filters button[type=submit]")
        page.wait_for_url("**/audit/?*action=queue.decided*")
        rows = page.locator("tr.audit-event")
        assert rows.count() == 1
        assert "Customer shall receive most favored nation" in rows.first.inner_text()
        assert page.input_value("#audit-filters input[name=actor]") == "lawyer"


def test_a_deleted_contracts_events_stay_readable_and_filterable(browser, decided, tmp_path):
    """Issue 25: the audit log of a deleted contract is no bare 400: the contract filter still
    offers it (by id: the log keeps no names), its earlier events name it as deleted, and its
    deletion row says why and which file; in English and Chinese."""
    review, passwords = decided
    contract = review.contract
    digest = contract.sha256[:12]
    admin = review.contract.matter.memberships.get(user__username="admin").user
    contract_delete(contract=contract, deleted_by=admin, reason="wrong_file")
    with web_server(tmp_path / "web.log") as url:
        page = browser.new_page()
        sign_in(page, url, "admin", passwords["admin"])
        for language, deleted, words in (
            ("en", f"contract {contract.pk} (deleted)", "Contract deleted"),
            ("zh-hans", f"合同 {contract.pk}（已删除）", "合同已删除"),
        ):
            if language != "en":
                page.click(f"button[name=language][value={language}]")
                page.wait_for_selector(f"html[lang={language}]")
            page.goto(f"{url}/audit/?contract={contract.pk}")
            page.wait_for_selector("#audit-events tr.audit-event")
            assert page.input_value("#audit-filters select[name=contract]") == str(contract.pk)
            rows = page.locator("tr.audit-event")
            texts = rows.all_inner_texts()
            assert len(texts) > 3 and all(deleted in t or words in t for t in texts), texts
            deletion = rows.filter(has_text=words)
            assert deletion.count() == 1
            assert digest in deletion.inner_text()


THREE_ASSIGNMENTS = """1. Assignment. Neither party may assign this Agreement without consent.

2. Licences. The licence may not be assigned to an affiliate without notice.

3. Receivables. Supplier may assign its receivables to a bank.

4. Notices. Notices shall be in writing.
"""


def test_reports_show_a_rules_noise_among_its_settled_hits_only(
    browser, django_capture_on_commit_callbacks, tmp_path
):
    """Issue 25: noise is confirmed ÷ settled (confirmed or rejected); hits still open count
    neither way (one accepted, one rejected, one open reads 50 %, not 33 %); English and
    Chinese."""
    passwords = demo_seed()
    matter = Matter.objects.get(name=DEMO_MATTER)
    review = reviewed(
        matter, django_capture_on_commit_callbacks, text=THREE_ASSIGNMENTS, name="assign.txt"
    )
    lawyer = matter.memberships.get(user__username="lawyer").user
    items = list(
        QueueItem.objects.filter(review=review, passage__firings__rule_id="en.strict.assignment")
        .order_by("passage__index")
        .distinct()
    )
    assert len(items) == 3
    for item, decision in zip(items, ("accept", "reject"), strict=False):
        queue_item_claim(item_id=item.pk, user=lawyer)
        queue_item_decide(item_id=item.pk, user=lawyer, decision=decision, note="Checked.")
    with web_server(tmp_path / "web.log") as url:
        page = browser.new_page()
        sign_in(page, url, "admin", passwords["admin"])
        for language in ("en", "zh-hans"):
            if language != "en":
                page.click(f"button[name=language][value={language}]")
                page.wait_for_selector(f"html[lang={language}]")
            page.goto(f"{url}/reports/")
            row = page.locator("#rule-table tbody tr[data-rule='en.strict.assignment']")
            row.wait_for()
            cells = row.locator("td").all_inner_texts()
            assert [int(cells[n]) for n in (2, 3, 4, 5)] == [3, 1, 1, 1], cells
            assert cells[7].strip().startswith("50"), (language, cells)


def test_a_word_contract_has_no_page_count_on_the_matter_list_or_its_page(browser, tmp_path):
    """Issue 25: a Word file has no fixed pages: the matter list shows a dash (with why, on
    hover) and the contract page no Pages fact, where a PDF would show its count; English and
    Chinese."""
    passwords = demo_seed()
    matter = Matter.objects.get(name=DEMO_MATTER)
    path = tmp_path / "supply.docx"
    path.write_bytes(contract_docx(chinese=False))
    contract = upload_and_ingest(matter, path)
    assert contract.kind == "docx"
    with web_server(tmp_path / "web.log") as url:
        page = browser.new_page()
        sign_in(page, url, "reviewer", passwords["reviewer"])
        for language, pages_label in (("en", "Pages"), ("zh-hans", "页数")):
            if language != "en":
                page.click(f"button[name=language][value={language}]")
                page.wait_for_selector(f"html[lang={language}]")
            page.goto(f"{url}/matters/{matter.pk}/")
            cell = page.locator(f"tr:has(a[href*='/contracts/{contract.pk}/']) [data-role=pages]")
            assert cell.inner_text().strip() == "—"
            assert cell.locator("span[title]").get_attribute("title")
            page.goto(f"{url}/contracts/{contract.pk}/")
            page.wait_for_selector("h1")
            facts = page.locator("dl").first.inner_text()
            assert pages_label not in facts and "1 page" not in facts, facts
