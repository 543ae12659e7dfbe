"""The reviewer reads a CUAD PDF in the page: highlights by state, filters, counts, scrolling."""

from __future__ import annotations

import json

import pytest

from reviewapp.accounts.services import demo_seed
from reviewapp.contracts.models import Contract
from reviewapp.reviews.models import (
    Draft,
    DraftStatus,
    Review,
    RuleFiring,
    Verification,
    VerificationStatus,
)
from reviewapp.reviews.review_page import PAGE_SIZE
from tests.e2e.test_upload_flow import sign_in
from tests.processes import celery_worker, wait_until, web_server

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

IN_VIEWER = """(selector) => {
  const pane = document.getElementById('document').getBoundingClientRect();
  return [...document.querySelectorAll(selector)].some((node) => {
    const box = node.getBoundingClientRect();
    return box.height > 0 && box.bottom > pane.top && box.top < pane.bottom
      && box.bottom > 0 && box.top < window.innerHeight;
  });
}"""

IN_LIST = """(index) => {
  const list = document.getElementById('passage-scroll').getBoundingClientRect();
  const item = document.getElementById('passage-' + index);
  if (!item) return false;
  const box = item.getBoundingClientRect();
  return box.top >= list.top - 1 && box.top < list.bottom;
}"""


def _upload_and_wait(page, pdf) -> Contract:
    """The reviewer uploads the PDF; the worker ingests it, drafts and checks every flag."""
    page.click("text=Demo matter")
    page.wait_for_selector("#file-input", state="attached")
    page.wait_for_function("() => document.body?.dataset.live === 'connected'")
    page.set_input_files("#file-input", str(pdf))
    page.locator("li.upload >> text=Open").wait_for(timeout=90_000)
    contract = Contract.objects.get(original_name=pdf.name)

    def settled() -> bool:
        review = Review.objects.filter(contract=contract).first()
        draft = Draft.objects.filter(review=review).first() if review else None
        queued = Verification.objects.filter(review=review, status=VerificationStatus.QUEUED)
        return draft is not None and draft.status == DraftStatus.COMPLETE and not queued.exists()

    assert wait_until(settled, timeout_s=180), "the worker did not finish the review"
    contract.refresh_from_db()
    return contract


def _cuad_pdf(cuad_dir):
    labels = [json.loads(line) for line in (cuad_dir / "labels.jsonl").open()]
    return cuad_dir / sorted(labels, key=lambda d: d["id"])[3]["pdf"]


def _visible_indexes(page) -> list[int]:
    return page.eval_on_selector_all(
        "#passages > li",
        "(items) => items.filter((li) => !li.hidden).map((li) => +li.dataset.index)",
    )


def _filter(page, name: str, value: str, total: int) -> None:
    """Choose a filter and wait for the server's window (its total) to arrive."""
    page.select_option(f"#filters select[name={name}]", value)
    page.wait_for_function(
        "(total) => +document.getElementById('passages').dataset.total === total", arg=total
    )


def test_pdf_review_page_highlights_filters_counts_and_scrolls(browser, cuad_dir, tmp_path):
    passwords = demo_seed()
    with celery_worker(tmp_path / "worker.log"), web_server(tmp_path / "web.log") as url:
        page = browser.new_page(viewport={"width": 1280, "height": 800})
        errors: list[str] = []
        page.on("pageerror", lambda error: errors.append(str(error)))
        sign_in(page, url, "reviewer", passwords["reviewer"])
        contract = _upload_and_wait(page, _cuad_pdf(cuad_dir))
        page.goto(f"{url}/contracts/{contract.pk}/")
        page.wait_for_selector("#document[data-ready='1'] .pdf-page canvas", timeout=30_000)
        assert page.locator(".pdf-page").count() == contract.page_count
        # Lazy: far pages are not drawn before they scroll into view.
        assert page.locator(".pdf-page[data-rendered='1']").count() < contract.page_count

        firings = RuleFiring.objects.filter(passage__contract=contract)
        flagged = sorted(set(firings.values_list("passage__index", flat=True)))
        assert len(flagged) >= 3
        # Every flagged passage (first, middle, last) is found in the PDF and scrolled to.
        for index in (flagged[0], flagged[len(flagged) // 2], flagged[-1]):
            if not page.locator(f"#passage-{index}").count():  # beyond the loaded window
                page.evaluate("(index) => { location.hash = 'passage-' + index; }", index)
                page.wait_for_selector(f"#passage-{index}.active")
            page.click(f"#passage-{index} .text")
            selector = f"#document [data-passage='{index}']"
            page.wait_for_selector(selector, timeout=15_000)
            page.wait_for_function(IN_VIEWER, arg=selector, timeout=10_000)
            state = contract.passages.get(index=index).state.lower()
            assert page.locator(f"{selector}.hl-{state}").count() >= 1
        assert not page.locator(".page-marker").count(), "a passage was not found in the text layer"

        # Clicking a highlight in the PDF scrolls the list to its passage, and it stays there when
        # the earlier passages (asked for as the list reached its top) arrive after the click.
        held: list = []
        page.route(lambda url: "before=" in url, lambda route: held.append(route))
        page.eval_on_selector("#passage-scroll", "(list) => { list.scrollTop = 0; }")
        if page.eval_on_selector("#passages", "(list) => list.dataset.hasBefore === '1'"):
            for _ in range(200):
                if held:
                    break
                page.wait_for_timeout(50)
            assert held, "the list at its top did not ask for the earlier passages"
        target = flagged[-1]
        page.click(f"#document span[data-passage='{target}']")
        page.wait_for_function(IN_LIST, arg=target, timeout=10_000)
        page.evaluate(
            """() => {
              window.earlierArrived = false;
              document.addEventListener('clausewise:passages-loaded',
                () => { window.earlierArrived = true; }, { once: true });
            }"""
        )
        for route in held:
            route.continue_()
        if held:
            page.wait_for_function("() => window.earlierArrived")
        page.wait_for_timeout(300)
        assert page.evaluate(IN_LIST, target), "the list jumped away from the clicked passage"

        # Counts per state are those of the API's state register.
        api = page.evaluate(
            "async (url) => (await (await fetch(url)).json()).counts",
            f"/api/reviews/{Review.objects.get(contract=contract).pk}/state/",
        )
        shown = page.eval_on_selector_all(
            "[data-count]",
            "(nodes) => Object.fromEntries(nodes.map((n) => [n.dataset.count, +n.textContent]))",
        )
        assert shown == api

        # Filters are applied by the server over the whole contract.
        total = contract.passages.count()
        _filter(page, "state", "FLAGGED", len(flagged))
        assert _visible_indexes(page) == flagged[:PAGE_SIZE]
        category = firings.values_list("category", flat=True).order_by("category").first()
        with_category = sorted(
            set(firings.filter(category=category).values_list("passage__index", flat=True))
        )
        _filter(page, "category", category, len(with_category))
        assert _visible_indexes(page) == with_category[:PAGE_SIZE]
        _filter(page, "state", "", len(with_category))
        _filter(page, "category", "", total)
        state = max(api, key=lambda s: api[s])
        _filter(page, "state", state, api[state])
        assert len(_visible_indexes(page)) == min(api[state], PAGE_SIZE)
        assert not errors, errors
