"""The contract review page: passages with their rules, counts, the viewer's data, live status."""

from __future__ import annotations

import io
import json
import re

import pytest
from django.core.cache import cache

from reviewapp.accounts.models import Membership, Role
from reviewapp.contracts.models import PassageState
from reviewapp.contracts.services import contract_ingest, contract_upload
from reviewapp.queue.models import QueueItem
from reviewapp.queue.services import queue_item_claim, queue_item_decide
from reviewapp.realtime.models import Event
from reviewapp.reviews.models import RuleFiring
from reviewapp.reviews.review_page import MAX_ISSUES_SHOWN, PAGE_SIZE
from reviewapp.reviews.services import review_scan
from tests.factories import CONTRACT, STRICT, active_playbook, ingested_contract

pytestmark = pytest.mark.django_db


@pytest.fixture
def blocked_contract(matter):
    active_playbook(organisation=matter.organisation, source=STRICT)
    contract = ingested_contract(matter=matter, text=CONTRACT)
    review_scan(contract_id=contract.pk, enqueue=False)
    return contract


def _page(client, user, contract) -> str:
    client.force_login(user)
    response = client.get(f"/contracts/{contract.pk}/")
    assert response.status_code == 200
    return response.content.decode()


def _json_script(page: str, element_id: str):
    match = re.search(
        rf'<script id="{element_id}" type="application/json">(.*?)</script>', page, re.S
    )
    assert match, element_id
    return json.loads(match.group(1))


def test_passages_show_state_category_rule_and_severity(client, reviewer, blocked_contract):
    page = _page(client, reviewer, blocked_contract)
    assert "Most Favored Nation" in page and "en.strict.mfn" in page
    assert 'data-severity="critical"' in page
    assert 'data-categories="Anti-Assignment"' in page
    assert '<option value="Most Favored Nation">' in page


def test_counts_per_state_match_the_state_register(client, reviewer, blocked_contract):
    page = _page(client, reviewer, blocked_contract)
    review = blocked_contract.review
    api = client.get(f"/api/reviews/{review.pk}/state/").json()["counts"]
    shown = dict(re.findall(r'data-count="(\w+)">(\d+)<', page))
    assert {state: int(n) for state, n in shown.items()} == api
    assert api[PassageState.REJECTED] == 1


def test_blocked_review_shows_the_banner(client, reviewer, blocked_contract):
    page = _page(client, reviewer, blocked_contract)
    banner = re.search(r'<p class="banner" role="alert" id="review-banner"([^>]*)>', page)
    assert banner and "hidden" not in banner.group(1)
    assert re.search(r'id="review-complete" hidden', page)


def test_text_document_is_read_by_the_viewer_after_the_page(client, reviewer, blocked_contract):
    page = _page(client, reviewer, blocked_contract)
    data = _json_script(page, "viewer-data")
    assert not data["isPdf"] and "text" not in data  # the page stays small
    doc = client.get(f"/contracts/{blocked_contract.pk}/document-text/").json()
    assert doc["text"] == CONTRACT
    passages = {p.index: p for p in blocked_contract.passages.all()}
    assert [span[0] for span in doc["spans"]] == sorted(passages)
    for index, start, end in doc["spans"]:
        assert CONTRACT[start:end] == passages[index].text
    assert set(doc["flagged"].values()) == {"PENDING", "REJECTED"}


def test_decision_shows_who_decided(client, reviewer, make_user, matter, blocked_contract):
    # Rendered once before: the cached window gives way to the decision's events.
    assert "accepted by lee" not in _page(client, reviewer, blocked_contract)
    lawyer = make_user("lee")
    Membership.objects.create(user=lawyer, matter=matter, role=Role.LAWYER)
    item = QueueItem.objects.get(passage__contract=blocked_contract)
    queue_item_claim(item_id=item.pk, user=lawyer)
    queue_item_decide(item_id=item.pk, user=lawyer, decision="accept", note="Market standard.")
    page = _page(client, reviewer, blocked_contract)
    assert "Lawyer decision: accepted by lee — Market standard." in page
    banner = re.search(r'id="review-banner"([^>]*)>', page)
    assert banner and "hidden" in banner.group(1)


def test_unblocking_publishes_the_review_status(make_user, matter, blocked_contract):
    lawyer = make_user("lee")
    Membership.objects.create(user=lawyer, matter=matter, role=Role.LAWYER)
    item = QueueItem.objects.get(passage__contract=blocked_contract)
    queue_item_claim(item_id=item.pk, user=lawyer)
    queue_item_decide(item_id=item.pk, user=lawyer, decision="reject")  # state stays REJECTED
    event = Event.objects.filter(type="review.status").latest("pk")
    assert event.payload == {
        "contract_id": blocked_contract.pk,
        "review_id": blocked_contract.review.pk,
        "status": "IN_REVIEW",  # the assignment passage still waits for its verification
    }


def test_page_resumes_live_events_from_before_its_data(client, reviewer, blocked_contract):
    seq = Event.objects.latest("pk").pk
    page = _page(client, reviewer, blocked_contract)
    assert f'data-last-seq="{seq}"' in page


def test_pdf_is_served_inline_for_the_viewer(client, reviewer, matter, cuad_dir):
    labels = [json.loads(line) for line in (cuad_dir / "labels.jsonl").open()]
    pdf = (cuad_dir / sorted(labels, key=lambda d: d["id"])[0]["pdf"]).read_bytes()
    contract, _ = contract_upload(
        matter=matter, file=io.BytesIO(pdf), name="c.pdf", size=len(pdf), enqueue=False
    )
    contract_ingest(contract_id=contract.pk, enqueue=False)
    contract.refresh_from_db()
    client.force_login(reviewer)
    response = client.get(f"/api/contracts/{contract.pk}/download/?inline=1")
    assert response["Content-Type"] == "application/pdf"
    assert response["Content-Disposition"].startswith("inline")
    assert b"".join(response.streaming_content) == pdf
    data = _json_script(client.get(f"/contracts/{contract.pk}/").content.decode(), "viewer-data")
    assert data["isPdf"] and "text" not in data
    assert len(data["pageSpans"]) == contract.page_count


def test_highlights_are_read_per_run_of_pdf_pages(client, reviewer, matter, cuad_dir):
    labels = [json.loads(line) for line in (cuad_dir / "labels.jsonl").open()]
    pdf = (cuad_dir / sorted(labels, key=lambda d: d["id"])[3]["pdf"]).read_bytes()
    contract, _ = contract_upload(
        matter=matter, file=io.BytesIO(pdf), name="c.pdf", size=len(pdf), enqueue=False
    )
    contract_ingest(contract_id=contract.pk, enqueue=False)
    contract.refresh_from_db()
    flagged = set(
        RuleFiring.objects.filter(passage__contract=contract).values_list(
            "passage__index", flat=True
        )
    )
    client.force_login(reviewer)
    seen = set()
    for first in range(1, contract.page_count + 1, 10):
        url = f"/contracts/{contract.pk}/highlights/?first={first}&last={first + 9}"
        for row in client.get(url).json()["flagged"]:
            passage = contract.passages.get(index=row["index"])
            assert (row["text"], row["state"], row["page"]) == (
                passage.text,
                passage.state,
                passage.page,
            )
            span_start = contract.page_spans[first - 1][0]
            span_end = contract.page_spans[min(first + 9, contract.page_count) - 1][1]
            assert row["start"] < span_end and row["end"] > span_start
            seen.add(row["index"])
    assert seen == flagged and flagged


def test_text_document_is_never_served_inline(client, reviewer, blocked_contract):
    blocked_contract.file.save("c.txt", io.BytesIO(CONTRACT.encode()))
    client.force_login(reviewer)
    response = client.get(f"/api/contracts/{blocked_contract.pk}/download/?inline=1")
    assert response["Content-Disposition"].startswith("attachment")
    assert response["Content-Type"] == "application/octet-stream"


def test_other_matters_contracts_are_not_shown(client, make_user, blocked_contract):
    client.force_login(make_user("stranger"))
    assert client.get(f"/contracts/{blocked_contract.pk}/").status_code == 404


def test_open_items_show_their_due_time_and_escalation(client, reviewer, blocked_contract):
    from datetime import timedelta

    from django.utils import timezone

    from reviewapp.queue.models import QueueItem
    from reviewapp.queue.services import queue_escalate_overdue

    item = QueueItem.objects.get(review__contract=blocked_contract)
    assert f"due {item.due_at:%Y-%m-%d %H:%M} UTC" in _page(client, reviewer, blocked_contract)
    QueueItem.objects.filter(pk=item.pk).update(due_at=timezone.now() - timedelta(hours=1))
    queue_escalate_overdue()
    assert "Escalated: overdue since" in _page(client, reviewer, blocked_contract)


def test_due_times_are_written_in_the_readers_chosen_zone_in_both_languages(
    client, reviewer, make_user, matter, blocked_contract
):
    from datetime import timedelta

    from reviewapp.accounts.profile.services import profile_time_zone_set

    item = QueueItem.objects.get(review__contract=blocked_contract)
    utc = f"due {item.due_at:%Y-%m-%d %H:%M} UTC"
    shanghai = f"{item.due_at + timedelta(hours=8):%Y-%m-%d %H:%M} Asia/Shanghai"
    assert utc in _page(client, reviewer, blocked_contract)  # the window is cached now
    lena = make_user("lena")
    Membership.objects.create(user=lena, matter=matter, role=Role.REVIEWER)
    profile_time_zone_set(user=lena, time_zone="Asia/Shanghai")
    page = _page(client, lena, blocked_contract)
    assert f"due {shanghai}" in page and utc not in page  # not the cached window of a UTC reader
    assert 'data-time-zone="Asia/Shanghai"' in page
    assert _json_script(page, "review-labels")["due"] == "due %(due)s %(zone)s"
    window = client.get(f"/contracts/{blocked_contract.pk}/passages/?around=1").json()["html"]
    assert f"due {shanghai}" in window
    client.post("/i18n/setlang/", {"language": "zh-hans"})
    assert f"截止 {shanghai}" in client.get(f"/contracts/{blocked_contract.pk}/").content.decode()


# ---- a long contract: one window at a time, bounded queries and size ----------------------------


def _long_contract_text(clauses: int) -> str:
    """Numbered clauses; every third can be assigned (verify), every fiftieth is MFN (reject)."""
    body = []
    for n in range(1, clauses + 1):
        if n % 50 == 0:
            words = "Customer shall receive most favored nation pricing on every order."
        elif n % 3 == 0:
            words = "Neither party may assign this Agreement without the other's consent."
        else:
            words = "The parties shall act in good faith and keep records of the services."
        body.append(f"{n}. Clause {n}. {words} " + "Further words of the clause. " * 6)
    return "\n\n".join(body) + "\n"


def _long_contract(matter, clauses: int):
    active_playbook(organisation=matter.organisation, source=STRICT)
    contract = ingested_contract(matter=matter, text=_long_contract_text(clauses))
    review_scan(contract_id=contract.pk, enqueue=False)
    return contract


def _indexes(html: str) -> list[int]:
    return [int(n) for n in re.findall(r'<li class="passage[^"]*" id="passage-(\d+)"', html)]


def test_first_response_holds_one_window_whatever_the_contract_size(client, reviewer, matter):
    contract = _long_contract(matter, 600)
    page = _page(client, reviewer, contract)
    assert _indexes(page) == list(range(PAGE_SIZE))
    assert 'data-has-after="1"' in page and 'data-has-before=""' in page
    assert f'data-total="{contract.passages.count()}"' in page
    # Counts still cover the whole contract.
    shown = {state: int(n) for state, n in re.findall(r'data-count="(\w+)">(\d+)<', page)}
    assert shown["REJECTED"] == 12 and shown["PENDING"] == 196


def test_query_count_does_not_grow_with_the_passage_count(
    client, reviewer, matter, django_assert_max_num_queries
):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    small, large = _long_contract(matter, 30), _long_contract_text(400)
    large = ingested_contract(matter=matter, text=large, name="large.txt")
    review_scan(contract_id=large.pk, enqueue=False)
    client.force_login(reviewer)
    counts = []
    for contract in (small, large):
        for url in (
            f"/contracts/{contract.pk}/",
            f"/contracts/{contract.pk}/passages/?after=20&state=FLAGGED",
            f"/contracts/{contract.pk}/highlights/?first=1&last=10",
        ):
            client.get(url)  # warm: sessions, content types
            cache.clear()  # measure a rendering, not the cached window
            with CaptureQueriesContext(connection) as queries:
                assert client.get(url).status_code == 200
            counts.append(len(queries))
    assert counts[:3] == counts[3:], counts
    cache.clear()
    with django_assert_max_num_queries(25):
        client.get(f"/contracts/{large.pk}/")


def test_first_page_of_a_long_contract_stays_small(client, reviewer, matter):
    contract = _long_contract(matter, 2000)
    client.force_login(reviewer)
    response = client.get(f"/contracts/{contract.pk}/")
    assert len(response.content) < 200_000, len(response.content)
    assert len(_indexes(response.content.decode())) == PAGE_SIZE


def test_windows_page_through_every_passage_once(client, reviewer, matter):
    contract = _long_contract(matter, 130)
    client.force_login(reviewer)
    url = f"/contracts/{contract.pk}/passages/"
    seen, after = [], None
    while True:
        query = {"limit": 25} if after is None else {"limit": 25, "after": after}
        data = client.get(url, query).json()
        seen += _indexes(data["html"])
        assert data["total"] == contract.passages.count()
        if not data["hasAfter"]:
            break
        after = data["last"]
    assert seen == sorted(contract.passages.values_list("index", flat=True))
    back = client.get(url, {"before": 50, "limit": 10}).json()
    assert _indexes(back["html"]) == list(range(40, 50)) and back["hasBefore"]


def test_filters_are_applied_by_the_server_over_the_whole_contract(client, reviewer, matter):
    contract = _long_contract(matter, 300)
    client.force_login(reviewer)
    url = f"/contracts/{contract.pk}/passages/"
    rejected = client.get(url, {"state": "REJECTED"}).json()
    expected = sorted(contract.passages.filter(state="REJECTED").values_list("index", flat=True))
    assert _indexes(rejected["html"]) == expected and rejected["total"] == 6
    assert not rejected["hasAfter"]
    flagged = client.get(url, {"state": "FLAGGED", "limit": 200}).json()
    assert flagged["total"] == 100 + 6 - 2  # clauses 150 and 300 are both
    critical = client.get(url, {"severity": "critical"}).json()
    assert _indexes(critical["html"]) == expected
    assignment = client.get(url, {"category": "Anti-Assignment", "limit": 1}).json()
    assert assignment["total"] == 98 and assignment["hasAfter"]
    counts_only = client.get(url, {"limit": 0}).json()
    assert counts_only["html"].strip() == "" and counts_only["counts"]["REJECTED"] == 6


def test_deep_link_opens_the_window_holding_the_passage(client, reviewer, matter):
    contract = _long_contract(matter, 400)
    client.force_login(reviewer)
    page = client.get(f"/contracts/{contract.pk}/?passage=350").content.decode()
    indexes = _indexes(page)
    assert 350 in indexes and indexes[0] < 350 and len(indexes) == PAGE_SIZE
    assert re.search(r'<li class="passage[^"]* active" id="passage-350"', page)
    assert 'data-has-before="1"' in page and 'data-selected="350"' in page
    around = client.get(f"/contracts/{contract.pk}/passages/", {"around": 350}).json()
    assert _indexes(around["html"]) == indexes


def test_issue_table_is_folded_away_and_capped(client, reviewer, matter):
    from reviewapp.reviews.models import Draft

    contract = _long_contract(matter, 150)
    issues = [
        {"passage": n, "risk": "high", "title": f"Issue {n}", "recommendation": "Negotiate."}
        for n in range(MAX_ISSUES_SHOWN + 20)
    ]
    Draft.objects.update_or_create(
        review=contract.review,
        defaults={
            "engine": "offline",
            "status": "COMPLETE",
            "data": {"summary": "A long contract.", "key_facts": {}, "issues": issues},
        },
    )
    page = _page(client, reviewer, contract)
    fold = re.search(r'<details class="issues-fold" id="issues-fold">(.*?)</details>', page, re.S)
    assert fold and f"{MAX_ISSUES_SHOWN + 20} issues in the draft" in fold.group(1)
    assert fold.group(1).count('<a href="#passage-') == MAX_ISSUES_SHOWN
    assert page.index('id="document"') < page.index('id="issues-fold"')


def test_the_issue_table_is_drawn_again_when_the_draft_changes_and_per_language(
    client, reviewer, matter
):
    from reviewapp.reviews.models import Draft

    contract = _long_contract(matter, 20)

    def draft(title: str) -> None:
        issue = {"passage": 3, "risk": "high", "title": title, "recommendation": "Negotiate."}
        Draft.objects.update_or_create(
            review=contract.review,
            defaults={
                "engine": "offline",
                "status": "COMPLETE",
                "data": {"summary": "A contract.", "key_facts": {}, "issues": [issue]},
            },
        )

    draft("Assignment")
    assert "<td>Assignment</td>" in _page(client, reviewer, contract)
    draft("Change of control")  # a re-run's new draft: the cached table is not shown again
    page = _page(client, reviewer, contract)
    assert "<td>Change of control</td>" in page and "<td>Assignment</td>" not in page
    client.post("/i18n/setlang/", {"language": "zh-hans"})
    chinese = client.get(f"/contracts/{contract.pk}/").content.decode()
    assert "风险" in chinese.split('id="issues-fold"')[1].split("</details>")[0]


def test_an_unsure_key_fact_links_its_competing_value_in_both_languages(client, reviewer, matter):
    from reviewapp.reviews.models import Draft

    contract = _long_contract(matter, 20)
    candidate = {"value": "2005-02-04", "display": "4 February 2005", "passage_index": 3,
                 "quote": "4 February 2005"}  # fmt: skip
    fact = {"value": "2019-03-12", "display": "12 March 2019", "passage_index": 1, "quote": "",
            "unsure": True, "candidate": candidate}  # fmt: skip
    Draft.objects.update_or_create(
        review=contract.review,
        defaults={
            "engine": "offline",
            "status": "COMPLETE",
            "data": {"summary": "A contract.", "key_facts": {"Agreement Date": fact}, "issues": []},
        },
    )

    def facts(page: str) -> str:
        return page.split('<dl class="facts">')[1].split("</dl>")[0]

    link = '<a class="fact-candidate" href="?passage=3#passage-3">'
    assert (
        f'<dd translate="no">12 March 2019 (unsure: also {link}4 February 2005, passage #3</a>)'
        in facts(_page(client, reviewer, contract))
    )
    client.post("/i18n/setlang/", {"language": "zh-hans"})
    chinese = facts(client.get(f"/contracts/{contract.pk}/").content.decode())
    assert f"12 March 2019（待核实：另有 {link}4 February 2005，第 3 段</a>）" in chinese
    # the link opens the window holding the competing passage
    assert 'id="passage-3"' in client.get(f"/contracts/{contract.pk}/?passage=3").content.decode()
