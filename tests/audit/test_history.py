"""A contract's history in the app: who did what and when, with passages named by their number
and first words, for the matter's members only."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from reviewapp.accounts.models import Membership, Role
from reviewapp.audit.pages.history import contract_history_page
from tests.factories import STRICT
from tests.reviews.test_exports import decide, reviewed

pytestmark = pytest.mark.django_db

MFN_RULE = "en.strict.mfn"


@pytest.fixture
def review(matter, lawyer, django_capture_on_commit_callbacks):
    review = reviewed(matter, django_capture_on_commit_callbacks)
    decide(review, lawyer, rule_id=MFN_RULE, decision="reject", note="Unacceptable MFN.")
    return review


def history_html(client, user, contract_id):
    client.force_login(user)
    return client.get(f"/contracts/{contract_id}/history/")


def rows_of(html: str) -> list[str]:
    return [row.split("</tr>")[0] for row in html.split('<tr class="audit-event"')[1:]]


def test_history_names_the_decision_its_lawyer_and_the_passage_words(client, reviewer, review):
    response = history_html(client, reviewer, review.contract_id)
    assert response.status_code == 200
    html = response.content.decode()
    decision = next(row for row in rows_of(html) if "Decision made" in row)
    assert "lee" in decision and "clause not acceptable" in decision
    assert "Customer shall receive most favored nation pricing." in decision
    assert f"?passage={review.contract.passages.get(firings__rule_id=MFN_RULE).index}" in decision


def test_rule_ids_and_states_are_in_words(client, reviewer, review):
    html = history_html(client, reviewer, review.contract_id).content.decode()
    scan = next(row for row in rows_of(html) if "en.strict.mfn" in row and "Trigger rules" in row)
    assert "Most Favored Nation (en.strict.mfn)" in scan
    assert "new → Rejected" in scan
    assert "Contract uploaded" not in html or "msa.txt" in html
    # The passage nothing fired on is counted, not listed.
    assert "The trigger scan confirmed 1 passage that no rule fired on" in html


def test_history_is_in_chinese_for_a_chinese_reader(client, reviewer, review):
    client.force_login(reviewer)
    response = client.get(
        f"/contracts/{review.contract_id}/history/", HTTP_ACCEPT_LANGUAGE="zh-hans"
    )
    html = response.content.decode()
    assert "历史" in html and "Decision made" not in html and "Passage state changed" not in html


def test_a_user_outside_the_matter_gets_a_404(client, make_user, review):
    outsider = make_user("otto")
    assert history_html(client, outsider, review.contract_id).status_code == 404


def test_a_removed_member_gets_a_404(client, make_user, matter, review):
    former = make_user("fred")
    membership = Membership.objects.create(user=former, matter=matter, role=Role.LAWYER)
    assert history_html(client, former, review.contract_id).status_code == 200
    membership.delete()
    for path in (f"/contracts/{review.contract_id}/history/", f"/contracts/{review.contract_id}/"):
        response = client.get(path)
        assert response.status_code == 404
        page = response.content.decode()
        assert "Page not found" in page and "a matter you are not a member of" in page
        assert "URLconf" not in page  # not Django's debug page


@pytest.mark.slow  # starts a Python process
def test_the_embedded_default_runs_with_debug_off_unless_asked():
    def debug_with(**env: str) -> str:
        environment = {k: v for k, v in os.environ.items() if k != "DJANGO_DEBUG"} | env
        environment["DJANGO_SETTINGS_MODULE"] = "reviewapp.settings.local"
        code = (
            "import django; django.setup(); from django.conf import settings; print(settings.DEBUG)"
        )
        result = subprocess.run(
            [sys.executable, "-c", code], env=environment, capture_output=True, text=True
        )
        return result.stdout.strip() or result.stderr[-2000:]

    assert debug_with() == "False"
    assert debug_with(DJANGO_DEBUG="1") == "True"


def test_history_page_reads_a_fixed_number_of_queries(
    matter, lawyer, django_capture_on_commit_callbacks
):
    def queries_for(passages: int, name: str, playbook: str | None = None) -> int:
        text = "\n\n".join(
            f"{n}. Pricing. Customer shall receive most favored nation pricing."
            for n in range(1, passages + 1)
        )
        review = reviewed(
            matter, django_capture_on_commit_callbacks, text=text, name=name, playbook=playbook
        )
        with CaptureQueriesContext(connection) as queries:
            page = contract_history_page(contract=review.contract)
            assert len(page.lines) >= min(passages * 2, 50)  # a transition and a queue item each
        return len(queries)

    small = queries_for(3, "small.txt", STRICT)
    assert queries_for(40, "large.txt") <= small
