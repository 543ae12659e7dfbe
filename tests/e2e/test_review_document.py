"""The review page leads with the document: visible at 1280x800 without scrolling, a PDF with
zoom, fit width, page jump and search, the selected passage marked apart from its neighbours,
a long contract's list loaded as it scrolls, and deep links to a passage that is not loaded."""

from __future__ import annotations

import re

import pytest

from reviewapp.accounts.models import Matter
from reviewapp.accounts.services import demo_seed
from reviewapp.contracts.models import Contract
from reviewapp.reviews.models import RuleFiring
from reviewapp.reviews.review_page import PAGE_SIZE
from reviewapp.reviews.services import review_scan
from tests.e2e.test_blocking import in_thread, ingest
from tests.e2e.test_review_page import IN_VIEWER, _cuad_pdf
from tests.e2e.test_upload_flow import sign_in
from tests.factories import STRICT, active_playbook, ingested_contract
from tests.processes import web_server
from tests.reviews.test_review_page import _long_contract_text

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

VIEWPORT = {"width": 1280, "height": 800}

DOCUMENT_IN_VIEW = """() => {
  const box = document.getElementById('document').getBoundingClientRect();
  const seen = Math.min(box.bottom, window.innerHeight) - Math.max(box.top, 0);
  const canvas = document.querySelector('#document .pdf-page canvas, #document .text-doc');
  const drawn = canvas && canvas.getBoundingClientRect();
  return window.scrollY === 0 && seen >= 400 && drawn && drawn.top < window.innerHeight - 200;
}"""


def _page_width(page, number: int) -> float:
    return page.eval_on_selector(
        f".pdf-page[data-page='{number}']", "(box) => box.getBoundingClientRect().width"
    )


def _outline(page, selector: str) -> str:
    return page.eval_on_selector(selector, "(node) => getComputedStyle(node).outlineStyle")


def _search_word(contract: Contract) -> str:
    """A long word of the contract's text that appears a few times."""
    words = re.findall(r"[A-Za-z]{9,}", contract.text)
    return next(w for w in words if 2 <= contract.text.count(w) <= 30)


def test_pdf_first_with_zoom_fit_page_jump_search_and_a_marked_selection(
    browser, cuad_dir, tmp_path
):
    passwords = demo_seed()
    matter = Matter.objects.get(name="Demo matter")
    pdf = _cuad_pdf(cuad_dir)
    contract = in_thread(ingest, matter, pdf.read_bytes(), pdf.name)
    flagged = sorted(
        set(
            RuleFiring.objects.filter(passage__contract=contract).values_list(
                "passage__index", flat=True
            )
        )
    )
    assert len(flagged) >= 2
    with web_server(tmp_path / "web.log") as url:
        page = browser.new_page(viewport=VIEWPORT)
        errors: list[str] = []
        page.on("pageerror", lambda error: errors.append(str(error)))
        sign_in(page, url, "reviewer", passwords["reviewer"])
        page.goto(f"{url}/contracts/{contract.pk}/")
        page.wait_for_selector("#document[data-ready='1'] .pdf-page[data-rendered='1'] canvas")
        # The document is in view at once: not under the draft, the table or the list.
        page.wait_for_function(DOCUMENT_IN_VIEW)

        # Zoom in and out, then fit the page to the pane's width.
        width = _page_width(page, 1)
        page.click("[data-zoom=in]")
        page.wait_for_selector(".pdf-page[data-page='1'][data-rendered='1']")
        assert _page_width(page, 1) > width * 1.05
        page.click("[data-zoom=out]")
        page.click("[data-zoom=out]")
        page.wait_for_function(
            "(w) => document.querySelector(\".pdf-page[data-page='1']\")"
            ".getBoundingClientRect().width < w * 0.97",
            arg=width,
        )
        assert re.fullmatch(r"\d+%", page.inner_text("#zoom-level"))
        page.click("[data-zoom=fit]")
        pane = page.eval_on_selector("#document", "(d) => d.clientWidth")
        page.wait_for_function(
            "(w) => Math.abs(document.querySelector(\".pdf-page[data-page='1']\")"
            ".getBoundingClientRect().width - w) < 3",
            arg=pane - 32,
        )

        # Jump to the last page: it is drawn and in the pane.
        last = contract.page_count
        page.fill("#page-input", str(last))
        page.press("#page-input", "Enter")
        selector = f".pdf-page[data-page='{last}'][data-rendered='1']"
        page.wait_for_selector(selector)
        page.wait_for_function(IN_VIEWER, arg=selector)

        # Search: the first match is marked in the pane; the next one is a step away.
        word = _search_word(contract)
        page.fill("#search-input", word)
        page.press("#search-input", "Enter")
        page.wait_for_function(
            "() => / of \\d+/.test(document.getElementById('search-status').textContent)",
            timeout=30_000,
        )
        page.wait_for_function(IN_VIEWER, arg=".search-hit")
        assert page.inner_text("#search-status").startswith("1 of ")
        assert word.lower() in page.eval_on_selector_all(
            ".search-hit", "(spans) => spans.map((s) => s.textContent).join('').toLowerCase()"
        ).replace(" ", "")
        page.click("[data-search=next]")
        page.wait_for_function(
            "() => document.getElementById('search-status').textContent.startsWith('2 of ')"
        )

        # Selecting a passage marks it apart from its flagged neighbours, list and document.
        first, other = flagged[0], flagged[1]
        for index in (first, other):
            page.evaluate("(index) => { location.hash = 'passage-' + index; }", index)
            page.wait_for_selector(f"#passage-{index}.active")
            page.wait_for_selector(f"#document [data-passage='{index}'].hl-selected")
        chosen, neighbour = f"#document [data-passage='{other}']", f"[data-passage='{first}']"
        assert _outline(page, chosen) != "none"
        assert _outline(page, f"#document {neighbour}") == "none"
        assert not page.locator(f"#document {neighbour}.hl-selected").count()
        assert page.locator("#passages > li.active").count() == 1
        assert page.locator(f"#passage-{other}").get_attribute("aria-current") == "true"
        assert not errors, errors


def _long_text_contract(matter: Matter, clauses: int) -> Contract:
    active_playbook(organisation=matter.organisation, source=STRICT)
    contract = ingested_contract(matter=matter, text=_long_contract_text(clauses))
    review_scan(contract_id=contract.pk, enqueue=False)
    return Contract.objects.get(pk=contract.pk)


def _loaded(page) -> list[int]:
    return page.eval_on_selector_all(
        "#passages > li", "(items) => items.map((li) => +li.dataset.index)"
    )


def _in_list(page, index: int) -> None:
    page.wait_for_function(
        """(index) => {
          const pane = document.getElementById('passage-scroll').getBoundingClientRect();
          const item = document.getElementById('passage-' + index);
          if (!item || !item.classList.contains('active')) return false;
          const box = item.getBoundingClientRect();
          return box.top >= pane.top - 1 && box.top < pane.bottom;
        }""",
        arg=index,
    )


def test_long_contract_loads_as_it_scrolls_and_opens_at_a_deep_link(browser, tmp_path):
    passwords = demo_seed()
    matter = Matter.objects.get(name="Demo matter")
    contract = in_thread(_long_text_contract, matter, 300)
    total = contract.passages.count()
    with web_server(tmp_path / "web.log") as url:
        page = browser.new_page(viewport=VIEWPORT)
        errors: list[str] = []
        page.on("pageerror", lambda error: errors.append(str(error)))
        sign_in(page, url, "reviewer", passwords["reviewer"])
        page.goto(f"{url}/contracts/{contract.pk}/")
        page.wait_for_selector("#document[data-ready='1'] .text-doc")
        page.wait_for_function(DOCUMENT_IN_VIEW)
        assert _loaded(page) == list(range(PAGE_SIZE))

        # Scrolling the list to its end brings the next passages, in order, none twice.
        for _ in range(3):
            count = len(_loaded(page))
            page.eval_on_selector("#passage-scroll", "(p) => { p.scrollTop = p.scrollHeight; }")
            page.wait_for_function(
                "(n) => document.querySelectorAll('#passages > li').length > n", arg=count
            )
        loaded = _loaded(page)
        assert loaded == list(range(len(loaded))) and len(loaded) >= 3 * PAGE_SIZE

        # A deep link to a passage far beyond the loaded window opens its window, selected,
        # in the list and in the document.
        page.goto(f"{url}/contracts/{contract.pk}/#passage-250")
        _in_list(page, 250)
        page.wait_for_function(IN_VIEWER, arg="#doc-passage-250")
        assert page.evaluate("window.scrollY") == 0
        # ... and scrolling up from there brings the passages before it.
        assert 200 not in _loaded(page)
        for _ in range(4):
            page.eval_on_selector("#passage-scroll", "(p) => { p.scrollTop = 0; }")
            page.wait_for_timeout(300)
        page.wait_for_selector("#passage-200", state="attached")
        loaded = _loaded(page)
        assert loaded == sorted(loaded) and len(set(loaded)) == len(loaded)

        # The query form does the same, served in the first response.
        page.goto(f"{url}/contracts/{contract.pk}/?passage=120")
        _in_list(page, 120)
        page.wait_for_function(IN_VIEWER, arg="#doc-passage-120")

        # A filter is applied over the whole contract, not the loaded window.
        page.select_option("#filters select[name=state]", "REJECTED")
        rejected = sorted(
            contract.passages.filter(state="REJECTED").values_list("index", flat=True)
        )
        page.wait_for_function(
            "(n) => +document.getElementById('passages').dataset.total === n", arg=len(rejected)
        )
        assert _loaded(page) == rejected and total > PAGE_SIZE
        assert not errors, errors
