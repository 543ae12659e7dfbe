"""A lawyer works the queue with the keyboard only: j/k move, c claims, a / r / n open the note
for "clause acceptable" / "clause not acceptable" / "not this kind of clause" (never deciding
blind), Enter records it."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import pytest

from reviewapp.accounts.models import Matter
from reviewapp.accounts.services import demo_seed
from reviewapp.queue.models import ItemStatus, QueueItem
from tests.e2e.test_queue_flow import ingest_text
from tests.e2e.test_upload_flow import sign_in
from tests.factories import STRICT, active_playbook
from tests.processes import web_server

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

CONTRACT = (
    b"1. Pricing. Customer shall receive most favored nation pricing.\n\n"
    b"2. Rebates. Customer shall also receive most favoured nation rebates.\n"
)


def selected(page) -> str:
    return page.evaluate(
        "[document.querySelector('.queue-item.selected')?.id,"
        " document.activeElement.closest('.queue-item')?.id].join('|')"
    )


def test_keyboard_moves_claims_accepts_with_justification_and_rejects(browser, tmp_path):
    passwords = demo_seed()
    matter = Matter.objects.get(name="Demo matter")
    active_playbook(organisation=matter.organisation, source=STRICT)
    with ThreadPoolExecutor(1) as pool:  # off Playwright's event loop, so the pushes go out
        pool.submit(ingest_text, matter, CONTRACT, "two-mfn.txt").result()
    first, second = QueueItem.objects.filter(matter=matter).order_by("due_at", "pk")
    with web_server(tmp_path / "web.log") as url:
        page = browser.new_context().new_page()
        sign_in(page, url, "lawyer", passwords["lawyer"])
        page.goto(f"{url}/queue/")
        page.wait_for_function("() => document.body.dataset.live === 'connected'")
        assert page.locator("#shortcut-hint kbd").count() >= 5  # the hint is on the page
        # the page opens at its top (filters in view), the first item chosen but not scrolled to
        assert page.evaluate("[window.scrollY, location.hash]") == [0, ""]
        assert selected(page) == f"item-{first.pk}|"
        page.keyboard.press("j")
        assert selected(page) == f"item-{second.pk}|item-{second.pk}"
        page.keyboard.press("k")
        assert selected(page) == f"item-{first.pk}|item-{first.pk}"

        page.keyboard.press("c")  # claim: the page comes back with the item still selected
        page.wait_for_selector(f"#item-{first.pk} [data-action=accept]")
        assert selected(page).startswith(f"item-{first.pk}|")
        page.keyboard.press("a")  # a rejected passage: accepting needs a justification
        note = page.locator(f"#item-{first.pk} [data-role=note]")
        page.wait_for_function("() => document.activeElement.dataset.role === 'note'")
        page.keyboard.type("A mutual clause; acceptable.")  # j, k, a, c typed here do nothing
        assert note.input_value() == "A mutual clause; acceptable."
        with page.expect_navigation():  # the decision posts and the queue comes back
            page.keyboard.press("Enter")
        page.wait_for_selector(f"#item-{second.pk}")
        assert page.locator(f"#item-{first.pk}").count() == 0

        page.keyboard.press("j")  # the other item is the only one left
        assert selected(page) == f"item-{second.pk}|item-{second.pk}"
        page.keyboard.press("r")  # not claimed yet: a clear message, nothing decided
        page.wait_for_selector(".queue-toast.error")
        page.keyboard.press("c")
        page.wait_for_selector(f"#item-{second.pk} [data-action=reject]")
        page.keyboard.press("r")  # opens the note and says what Enter will record
        page.wait_for_function("() => document.activeElement.dataset.role === 'note'")
        page.wait_for_selector(".queue-toast:has-text('Clause not acceptable')")
        assert QueueItem.objects.get(pk=second.pk).status == ItemStatus.CLAIMED  # not yet
        page.keyboard.type("Too one-sided.")
        page.keyboard.press("Enter")
        page.wait_for_selector(f"#item-{second.pk}", state="detached")
    first.refresh_from_db()
    second.refresh_from_db()
    assert (first.status, first.decision, first.note) == (
        ItemStatus.DONE,
        "accept",
        "A mutual clause; acceptable.",
    )
    assert (second.status, second.decision, second.note) == (
        ItemStatus.DONE,
        "reject",
        "Too one-sided.",
    )


def test_n_opens_the_note_for_not_this_kind_of_clause_and_enter_records_it(browser, tmp_path):
    passwords = demo_seed()
    matter = Matter.objects.get(name="Demo matter")
    active_playbook(organisation=matter.organisation, source=STRICT)
    with ThreadPoolExecutor(1) as pool:
        pool.submit(ingest_text, matter, CONTRACT, "two-mfn.txt").result()
    first, _second = QueueItem.objects.filter(matter=matter).order_by("due_at", "pk")
    with web_server(tmp_path / "web.log") as url:
        page = browser.new_context().new_page()
        sign_in(page, url, "lawyer", passwords["lawyer"])
        page.goto(f"{url}/queue/")
        page.wait_for_function("() => document.body.dataset.live === 'connected'")
        page.keyboard.press("c")
        page.wait_for_selector(f"#item-{first.pk} [data-action=not_this]")
        page.keyboard.press("n")  # a rejected passage: calling it a false flag needs a reason
        page.wait_for_function("() => document.activeElement.dataset.role === 'note'")
        page.wait_for_selector(".queue-toast:has-text('Not this kind of clause')")
        page.keyboard.press("Enter")  # no justification yet: refused on the page
        page.wait_for_selector(".queue-toast.error")
        assert QueueItem.objects.get(pk=first.pk).status == ItemStatus.CLAIMED
        page.keyboard.type("Rebates, not price parity.")
        with page.expect_navigation():
            page.keyboard.press("Enter")
        page.wait_for_selector(f"#item-{first.pk}", state="detached")
    first.refresh_from_db()
    assert (first.status, first.decision, first.note) == (
        ItemStatus.DONE,
        "not_this",
        "Rebates, not price parity.",
    )
