"""The reviewer watches the Claude draft stream in and verifications arrive, in Chromium."""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest

from reviewapp.accounts.services import demo_seed
from tests.e2e.test_upload_flow import sign_in
from tests.fakes.messages_server import Brain, BrainRequest, Pacing, ScriptedBrain, running_server
from tests.processes import celery_worker, web_server

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

CONTRACT = """SERVICES AGREEMENT

1. Services. The Supplier shall provide the Services described in Schedule 1.

2. Assignment. Neither party may assign this Agreement without the prior written consent of the
other party.

3. Audit. The Customer may audit the books and records of the Supplier once per year.

4. Liability. The Supplier's aggregate liability shall not exceed the fees paid in the prior
twelve months.
"""

WATCH_STREAM = """
window.__stream = [];
const box = document.getElementById('draft-stream');
if (box) new MutationObserver(() => window.__stream.push(box.textContent.length))
  .observe(box, {childList: true, characterData: true, subtree: true});
"""


@contextmanager
def contract_page(
    browser, tmp_path, pacing: Pacing, brain: Brain | None = None, text: str = CONTRACT
) -> Iterator[tuple[Any, Any]]:
    """Sign in, upload the contract with Claude as the engine, and open its page."""
    passwords = demo_seed()
    contract = tmp_path / "services.txt"
    contract.write_text(text)
    with running_server(brain, pacing=pacing) as fake:
        engine = {
            "REVIEW_ENGINE": "anthropic",
            "ANTHROPIC_API_KEY": "test-key",
            "ANTHROPIC_BASE_URL": fake.url,
            "LLM_FIRST_TOKEN_TIMEOUT_S": "10",
        }
        with (
            celery_worker(tmp_path / "worker.log", **engine),
            web_server(tmp_path / "web.log") as url,
        ):
            page = browser.new_page()
            sign_in(page, url, "reviewer", passwords["reviewer"])
            page.click("text=Demo matter")
            page.wait_for_function("() => document.body?.dataset.live === 'connected'")
            page.set_input_files("#file-input", str(contract))
            page.locator("li.upload >> text=Open").wait_for(timeout=60_000)
            page.locator("li.upload >> text=Open").click()
            page.wait_for_selector("#draft-engine")
            page.wait_for_function("() => document.body?.dataset.live === 'connected'")
            page.evaluate(WATCH_STREAM)
            yield page, fake


def test_draft_streams_in_pieces_then_shows_complete(browser, tmp_path):
    pacing = Pacing(first_token_s=6.0, delta_s=0.08, chunk_chars=12)
    with contract_page(browser, tmp_path, pacing) as (page, fake):
        page.wait_for_function("() => (window.__stream || []).length >= 3", timeout=30_000)
        lengths = page.evaluate("window.__stream")
        assert lengths == sorted(lengths) and lengths[-1] > lengths[0] > 0
        page.wait_for_selector(".summary", timeout=60_000)  # the page reloads when complete
        assert "Draft by Claude" in page.inner_text("#draft-engine")
    assert any(request.stream for request in fake.requests)


def test_verifications_arrive_and_say_which_engine_checked(browser, tmp_path):
    with contract_page(browser, tmp_path, Pacing()) as (page, _fake):
        page.wait_for_function(
            "() => [...document.querySelectorAll('.verification')]"
            ".filter((box) => box.textContent.includes('Checked by Claude')).length >= 2",
            timeout=60_000,
        )


DATED = """SUPPLY AGREEMENT

This Supply Agreement is made as of March 1, 2019 between Acme Widgets, Inc. and Beta Stores LLC.

1. Term. This Agreement shall continue for a period of three (3) years from the Effective Date.

2. Assignment. Neither party may assign this Agreement without the prior written consent of the
other party.
"""


def _dated_draft(request: BrainRequest) -> str:
    start = next(i for i, text in request.passages.items() if "made as of" in text)
    term = next(i for i, text in request.passages.items() if text.startswith("1. Term"))
    facts = {
        "effective_date": {"text": "March 1, 2019", "passage": start, "quote": "March 1, 2019"},
        "expiration_date": {
            "text": "three (3) years from the Effective Date",
            "passage": term,
            "quote": "continue for a period of three (3) years",
        },
    }
    return json.dumps({"summary": "A supply agreement.", "key_facts": facts, "issues": []})


def test_the_live_draft_shows_a_counted_expiration_as_a_date(browser, tmp_path):
    """The draft arrives live (no reload): a date the app counted from the term is shown as the
    date, as the reloaded page would show it, not as the term's words."""
    pacing = Pacing(first_token_s=3.0)
    with contract_page(browser, tmp_path, pacing, ScriptedBrain(draft=_dated_draft), DATED) as (
        page,
        _fake,
    ):
        page.evaluate("window.__samePage = true")
        page.wait_for_selector("#draft dl.facts", timeout=60_000)
        facts = page.inner_text("#draft dl.facts")
        assert page.evaluate("window.__samePage === true"), "the page reloaded: nothing shown live"
        assert "March 1, 2022" in facts and "three (3) years" not in facts
