"""A reviewer opens the portfolio grid of a matter with several reviewed contracts, in
Chromium: a row fills in live as a document finishes, filter, sort, choose columns (kept
across a reload), open a passage from a cell, export XLSX and read it back; and the issue's
whole flow from a zip of 20 contracts dropped on the matter page.

The first test uploads through the upload service (`contract_upload`); both are reviewed by a
real Celery worker with the offline engine.
"""

from __future__ import annotations

import io
import time
import zipfile
from pathlib import Path

import pytest
from openpyxl import load_workbook

from reviewapp.accounts.models import Matter
from reviewapp.accounts.services import DEMO_MATTER, demo_seed
from reviewapp.contracts.models import Contract
from reviewapp.contracts.services import contract_upload
from reviewapp.reviews.models import Draft, DraftStatus
from tests.e2e.test_upload_flow import sign_in
from tests.processes import celery_worker, web_server

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

NAMES = ["alpha", "bravo", "charlie", "delta", "echo"]
TEXT = """MASTER SERVICES AGREEMENT ({name})

This Agreement is entered into as of {day} March 2021 by and between Acme Corp. and
{name} Ltd.

1. Assignment. Neither party may assign this Agreement without the other's prior written
consent.

2. Pricing. {pricing}

3. Governing Law. This Agreement is governed by the laws of the State of New York.

4. Term. This Agreement shall commence on the Effective Date and continue for {years} years.
"""
MFN = "Customer shall receive most favored nation pricing on every order."
PLAIN = "Prices are set out in Schedule 1."


def upload(matter: Matter, name: str, number: int) -> Contract:
    text = TEXT.format(
        name=name.title(), day=number + 1, pricing=MFN if number % 2 else PLAIN, years=number + 1
    ).encode()
    contract, _ = contract_upload(
        matter=matter, file=io.BytesIO(text), name=f"{name}.txt", size=len(text)
    )
    return contract


def wait_reviewed(names: list[str], timeout: float = 120) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        done = Draft.objects.filter(
            review__contract__original_name__in=[f"{n}.txt" for n in names],
            status=DraftStatus.COMPLETE,
        ).count()
        if done == len(names):
            return
        time.sleep(0.5)
    raise AssertionError(f"only {done} of {len(names)} contracts were reviewed")


def grid_names(page) -> list[str]:
    return page.locator("#grid tbody tr[data-contract-id] td[data-key=name]").all_inner_texts()


def header_labels(page) -> list[str]:
    return [
        text.rstrip(" ▲▼")
        for text in page.locator("#grid thead tr:first-child th button.sort").all_inner_texts()
    ]


def test_reviewer_filters_sorts_chooses_columns_and_exports_the_grid(browser, tmp_path):
    passwords = demo_seed()
    matter = Matter.objects.get(name=DEMO_MATTER)
    with celery_worker(tmp_path / "worker.log"), web_server(tmp_path / "web.log") as url:
        for number, name in enumerate(NAMES[:4]):
            upload(matter, name, number)
        wait_reviewed(NAMES[:4])

        page = browser.new_page(accept_downloads=True)
        sign_in(page, url, "reviewer", passwords["reviewer"])
        page.goto(f"{url}/matters/{matter.pk}/")
        page.click("#portfolio-grid-link")
        page.wait_for_function("() => document.getElementById('portfolio')?.dataset.loaded")
        page.wait_for_function("() => document.body.dataset.live === 'connected'")
        assert grid_names(page) == [f"{n}.txt" for n in NAMES[:4]]

        # A document that finishes while the grid is open gets its row, live.
        upload(matter, NAMES[4], 4)
        page.wait_for_function(
            "() => document.querySelector('#grid tr[data-contract-id] td[data-key=name]')"
            " && [...document.querySelectorAll('#grid tbody tr[data-contract-id]')]"
            ".some((tr) => tr.textContent.includes('echo.txt') && tr.dataset.reviewStatus)",
            timeout=90_000,
        )
        assert len(grid_names(page)) == 5

        # Filter: words in any shown column, and one column's own filter.
        page.fill("#grid-filter", "charlie")
        assert grid_names(page) == ["charlie.txt"]
        page.fill("#grid-filter", "")
        page.fill("#grid thead input.column-filter[data-key=name]", "o")
        assert grid_names(page) == ["bravo.txt", "echo.txt"]
        page.fill("#grid thead input.column-filter[data-key=name]", "")
        mfn = "category:Most Favored Nation"
        assert page.locator(f"#grid thead th[data-key='{mfn}']").count() == 1
        page.fill(f"#grid thead input.column-filter[data-key='{mfn}']", "not found")
        assert grid_names(page) == ["alpha.txt", "charlie.txt", "echo.txt"]
        page.fill(f"#grid thead input.column-filter[data-key='{mfn}']", "")

        # A date reads as its value, in one format; the contract's words are its tooltip, and
        # the filter finds them too.
        alpha = page.locator("#grid tbody tr[data-contract-id]").filter(has_text="alpha.txt")
        date_link = alpha.locator("td[data-key='fact:Agreement Date'] a")
        assert date_link.inner_text() == "March 1, 2021"
        assert date_link.get_attribute("title") == "1 March 2021"
        page.fill("#grid-filter", "1 march 2021")
        assert grid_names(page) == ["alpha.txt"]
        page.fill("#grid-filter", "")

        # Sort: by name (descending on a second click), then worst state first.
        page.click("#grid thead th[data-key=name] button.sort")
        assert grid_names(page) == [f"{n}.txt" for n in reversed(NAMES)]
        page.click(f"#grid thead th[data-key='{mfn}'] button.sort")
        assert grid_names(page)[:2] == ["bravo.txt", "delta.txt"]  # rejected, found first

        # Choose columns: hide two, and the choice outlives a reload.
        page.click("#grid-columns summary")
        page.uncheck("#grid-column-list input[value=playbook_version]")
        page.uncheck("#grid-column-list input[value=open_items]")
        shown = header_labels(page)
        assert (
            "Playbook" not in shown and "Open items" not in shown and "Most Favored Nation" in shown
        )
        page.reload()
        page.wait_for_function("() => document.getElementById('portfolio')?.dataset.loaded")
        assert header_labels(page) == shown

        # Export XLSX of the shown columns and read it back.
        with page.expect_download() as download:
            page.click("#export-xlsx")
        workbook = load_workbook(io.BytesIO(Path(download.value.path()).read_bytes()))
        facts = workbook["Facts"]
        header = [cell.value for cell in facts[1]]
        # the shown columns, each date column followed by its qualifier column
        assert [label for label in header if not label.endswith(": qualifier")] == shown
        dates = ("Agreement Date", "Effective Date", "Expiration Date")
        assert [label[: -len(": qualifier")] for label in header if label.endswith(": qualifier")]
        assert all(
            header[n + 1] == f"{label}: qualifier"
            for n, label in enumerate(header)
            if label in dates
        )
        exported = sorted(facts.cell(row, 1).value for row in range(2, facts.max_row + 1))
        assert exported == [f"{n}.txt" for n in NAMES]
        column = header.index("Most Favored Nation") + 1
        bravo = next(
            r for r in range(2, facts.max_row + 1) if facts.cell(r, 1).value == "bravo.txt"
        )
        assert facts.cell(bravo, column).value not in ("", "not found")
        assert "#passage-" in facts.cell(bravo, column).hyperlink.target
        issues = workbook["Issues"]
        assert ("bravo.txt", "Most Favored Nation") in {
            (issues.cell(r, 1).value, issues.cell(r, 4).value) for r in range(2, issues.max_row + 1)
        }

        # A cell opens its passage on the review page.
        page.fill("#grid-filter", "bravo")
        link = page.locator(f"#grid tbody td[data-key='{mfn}'] a")
        href = link.get_attribute("href")
        assert "#passage-" in href
        link.click()
        page.wait_for_url(f"{url}{href}")


def test_a_zip_of_twenty_contracts_fills_the_grid_which_filters_and_exports(browser, tmp_path):
    """The issue's flow: a zip of 20 contracts through the matter page, the batch reaching 20
    of 20, the grid filling in, a filter, and the XLSX export read back."""
    names = [f"deal-{number:02}" for number in range(20)]
    data_room = tmp_path / "data room.zip"
    with zipfile.ZipFile(data_room, "w", zipfile.ZIP_DEFLATED) as archive:
        for number, name in enumerate(names):
            text = TEXT.format(
                name=name.title(), day=1 + number, pricing=MFN if number % 2 else PLAIN, years=2
            )
            archive.writestr(f"Data room/{name}.txt", text)
    passwords = demo_seed()
    matter = Matter.objects.get(name=DEMO_MATTER)
    with celery_worker(tmp_path / "worker.log"), web_server(tmp_path / "web.log") as url:
        page = browser.new_page(accept_downloads=True)
        sign_in(page, url, "reviewer", passwords["reviewer"])
        page.goto(f"{url}/matters/{matter.pk}/")
        page.wait_for_function("() => document.body?.dataset.live === 'connected'")
        page.set_input_files("#file-input", str(data_room))
        page.wait_for_function(
            "() => { const b = document.querySelector('#intake-batches .intake-batch');"
            " return b && b.dataset.total === '20' && b.dataset.done === '20'; }",
            timeout=300_000,
        )
        page.click("#portfolio-grid-link")
        page.wait_for_function(
            "() => document.querySelectorAll('#grid tbody tr[data-review-status]:not("
            '[data-review-status=""])\').length === 20',
            timeout=180_000,
        )
        page.fill("#grid-filter", "deal-07")
        assert grid_names(page) == ["deal-07.txt"]
        page.fill("#grid-filter", "")
        mfn = "category:Most Favored Nation"
        page.fill(f"#grid thead input.column-filter[data-key='{mfn}']", "not found")
        assert grid_names(page) == [f"{name}.txt" for name in names[::2]]
        with page.expect_download() as download:
            page.click("#export-xlsx")
        workbook = load_workbook(io.BytesIO(Path(download.value.path()).read_bytes()))
        facts = workbook["Facts"]
        exported = sorted(facts.cell(row, 1).value for row in range(2, facts.max_row + 1))
        assert exported == [f"{name}.txt" for name in names]
        header = [cell.value for cell in facts[1]]
        column = header.index("Most Favored Nation") + 1
        flagged = {
            facts.cell(row, 1).value
            for row in range(2, facts.max_row + 1)
            if facts.cell(row, column).value != "not found"
        }
        assert flagged == {f"{name}.txt" for name in names[1::2]}
