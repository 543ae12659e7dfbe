"""The offline engine settles a passage from the rules' confirm_if / reject_if patterns."""

import io

import pytest
from docx import Document

from reviewapp.contracts.models import PassageState
from reviewapp.reviews.model_work import verifications_run
from reviewapp.reviews.models import Verification
from reviewapp.reviews.services import review_scan
from tests.factories import active_playbook, ingested_contract

pytestmark = pytest.mark.django_db

PLAYBOOK = """
name: strict
version: "1"
language: en
rules:
  - id: en.test.cap
    category: Cap On Liability
    severity: high
    action: verify
    patterns: ['liability']
    confirm_if: ['shall not exceed the (?:total )?fees']
    reject_if: ['unlimited liability']
  - id: en.test.context
    category: Uncapped Liability
    severity: medium
    action: verify
    only_with: [Cap On Liability]
    patterns: ['liability']
"""


def _settle(matter, text: str) -> Verification:
    return _settle_with(matter, PLAYBOOK, text)


def test_primary_confirm_settles_although_a_secondary_rule_fired(matter):
    verification = _settle(
        matter, "9. Limits. Each party's liability shall not exceed the fees paid in a year.\n"
    )
    assert verification.outcome == PassageState.CONFIRMED
    assert "shall not exceed the fees" in verification.quote
    assert verification.passage.state == PassageState.CONFIRMED


def test_reject_if_rejects(matter):
    verification = _settle(matter, "9. Limits. Supplier accepts unlimited liability for data.\n")
    assert verification.outcome == PassageState.REJECTED


def test_no_pattern_leaves_it_to_a_lawyer(matter):
    verification = _settle(matter, "9. Limits. Liability is as agreed between the parties.\n")
    assert verification.outcome == PassageState.NEEDS_HUMAN_REVIEW


HUMAN_CONTEXT = PLAYBOOK.replace(
    "    only_with: [Cap On Liability]\n", "    action: human\n    only_with: [Cap On Liability]\n"
).replace("    action: verify\n    action: human\n", "    action: human\n")


def test_a_secondary_rule_never_sends_a_passage_to_a_lawyer(matter):
    # The context rule says "human" but only adds a question: the routing rule decides.
    assert "action: human" in HUMAN_CONTEXT
    text = "9. Limits. Each party's liability shall not exceed the fees paid in a year.\n"
    verification = _settle_with(matter, HUMAN_CONTEXT, text)
    assert verification.outcome == PassageState.CONFIRMED
    assert verification.reason != "RULE_REQUIRES_HUMAN"


def test_a_routing_rule_with_action_human_still_goes_to_a_lawyer(matter):
    source = PLAYBOOK.replace(
        "    severity: high\n    action: verify\n", "    severity: high\n    action: human\n"
    )
    verification = _settle_with(matter, source, "9. Limits. Liability shall not exceed the fees.\n")
    assert verification.outcome == PassageState.NEEDS_HUMAN_REVIEW
    assert verification.reason == "RULE_REQUIRES_HUMAN"


def _settle_with(matter, source: str, text: str) -> Verification:
    active_playbook(organisation=matter.organisation, source=source)
    review = review_scan(contract_id=ingested_contract(matter=matter, text=text).pk, enqueue=False)
    pending = list(Verification.objects.filter(review=review).values_list("pk", flat=True))
    verifications_run(review_id=review.pk, verification_ids=pending)
    return Verification.objects.get(review=review)


def test_offline_draft_lists_each_issue_once_per_passage(matter):
    from reviewapp.reviews.drafting import offline_draft

    # A passage rule and a heading rule of one category both fire: one issue, not two; the
    # secondary rule (another category) only adds its question for the verifier.
    text = "9. Limitation of Liability.\n\nEach party's liability shall not exceed the fees.\n"
    heading_rule = (
        "  - id: en.test.cap-heading\n    category: Cap On Liability\n    severity: high\n"
        "    action: verify\n    scope: heading\n    patterns: ['liability']\n"
    )
    source = PLAYBOOK.replace(
        "  - id: en.test.context\n", heading_rule + "  - id: en.test.context\n"
    )
    active_playbook(organisation=matter.organisation, source=source)
    review = review_scan(contract_id=ingested_contract(matter=matter, text=text).pk, enqueue=False)
    body = review.contract.passages.get(text__contains="Each party")
    fired = set(review.firings.filter(passage=body).values_list("rule_id", flat=True))
    assert fired == {"en.test.cap", "en.test.cap-heading", "en.test.context"}
    issues = [(i["passage"], i["title"]) for i in offline_draft(review)["issues"]]
    assert issues.count((body.index, "Cap On Liability")) == 1
    assert {title for _, title in issues} == {"Cap On Liability"}


def test_offline_draft_of_a_chinese_contract_is_written_in_chinese(matter):
    from reviewapp.reviews.drafting import offline_draft

    text = "技术服务合同\n\n第一条 违约责任\n任何一方违约的，应支付合同总金额百分之二十的违约金。\n"
    review = review_scan(contract_id=ingested_contract(matter=matter, text=text).pk, enqueue=False)
    draft = offline_draft(review)
    assert draft["summary"].startswith("合同（类型：服务）")
    assert "离线引擎" in draft["summary"]
    assert "Liquidated Damages" in {issue["title"] for issue in draft["issues"]}


SECONDARY_CRITICAL = """
name: strict
version: "1"
language: en
rules:
  - id: en.test.cap
    category: Cap On Liability
    severity: low
    action: verify
    patterns: ['liability']
  - id: en.test.context
    category: Uncapped Liability
    severity: critical
    action: verify
    only_with: [Cap On Liability]
    patterns: ['liability']
"""


def test_a_secondary_rule_neither_raises_priority_nor_counts_as_the_issue(client, matter, reviewer):
    from reviewapp.queue.models import QueueItem

    text = "9. Limits. Liability is as the parties agree from time to time.\n"
    verification = _settle_with(matter, SECONDARY_CRITICAL, text)
    assert verification.outcome == PassageState.NEEDS_HUMAN_REVIEW
    item = QueueItem.objects.get(passage=verification.passage)
    assert item.severity == "low"  # the routing rule's, not the secondary rule's "critical"
    client.force_login(reviewer)
    page = client.get(f"/contracts/{verification.passage.contract_id}/").content.decode()
    assert '<span class="category">Cap on Liability</span>' in page
    assert '<span class="category">Uncapped Liability</span>' not in page
    assert "also: Uncapped Liability" in page
    assert 'data-categories="Cap On Liability|Uncapped Liability"' in page


def test_a_batch_settles_at_once_each_passage_moved_and_published_once(
    matter, django_capture_on_commit_callbacks, monkeypatch
):
    from reviewapp.realtime.models import Event
    from reviewapp.reviews import transitions
    from reviewapp.reviews.models import PassageTransition

    active_playbook(organisation=matter.organisation, source=PLAYBOOK)
    clauses = [
        "Each party's liability shall not exceed the fees paid in a year.",
        "Supplier accepts unlimited liability for data.",
        "Liability is as agreed between the parties.",
    ] * 3
    text = "".join(f"{n}. Limits. {clause}\n\n" for n, clause in enumerate(clauses, 1))
    review = review_scan(contract_id=ingested_contract(matter=matter, text=text).pk, enqueue=False)
    pending = list(Verification.objects.filter(review=review).values_list("pk", flat=True))
    assert len(pending) == 9
    counted = {"status": 0, "snapshot": 0}

    def count(name, real):
        def wrapped(*args, **kwargs):
            counted[name] += 1
            return real(*args, **kwargs)

        return wrapped

    monkeypatch.setattr(
        transitions, "review_refresh_status", count("status", transitions.review_refresh_status)
    )
    monkeypatch.setattr(
        transitions, "snapshot_refresh", count("snapshot", transitions.snapshot_refresh)
    )
    with django_capture_on_commit_callbacks(execute=True):
        assert verifications_run(review_id=review.pk, verification_ids=pending) == 9

    assert counted == {"status": 1, "snapshot": 1}  # not once per passage
    outcomes = list(
        Verification.objects.filter(review=review)
        .order_by("passage__index")
        .values_list("outcome", flat=True)
    )
    assert outcomes == [
        PassageState.CONFIRMED, PassageState.REJECTED, PassageState.NEEDS_HUMAN_REVIEW
    ] * 3  # fmt: skip
    assert (
        PassageTransition.objects.filter(review=review, from_state=PassageState.PENDING).count()
        == 9
    )
    states = Event.objects.filter(type="passage.state").values_list("payload", flat=True)
    assert sorted(p["passage"] for p in states) == sorted(
        review.contract.passages.filter(verification__isnull=False).values_list("index", flat=True)
    )
    review.refresh_from_db()
    assert {p["review_status"] for p in states} == {review.status}  # each with the final status
    # Delivered twice: nothing moves again.
    assert verifications_run(review_id=review.pk, verification_ids=pending) == 0
    assert (
        PassageTransition.objects.filter(review=review, from_state=PassageState.PENDING).count()
        == 9
    )


def test_the_offline_engines_own_sentences_are_in_the_readers_language(
    client, matter, reviewer, django_capture_on_commit_callbacks
):
    from reviewapp.realtime.models import Event
    from reviewapp.reviews.reasons import rationale_kind

    source = PLAYBOOK.replace(
        "  - id: en.test.context\n",
        "  - id: en.test.human\n    category: Audit Rights\n    severity: high\n"
        "    action: human\n    patterns: ['audit']\n  - id: en.test.context\n",
    )
    active_playbook(organisation=matter.organisation, source=source)
    text = (
        "1. Limits. Each party's liability shall not exceed the fees paid in a year.\n\n"
        "2. Audit. Customer may audit the Supplier once a year.\n"
    )
    review = review_scan(contract_id=ingested_contract(matter=matter, text=text).pk, enqueue=False)
    pending = list(Verification.objects.filter(review=review).values_list("pk", flat=True))
    with django_capture_on_commit_callbacks(execute=True):
        verifications_run(review_id=review.pk, verification_ids=pending)
    kinds = {
        e["passage"]: e["rationale_kind"]
        for e in Event.objects.filter(type="verification.done").values_list("payload", flat=True)
    }
    assert kinds == {0: "match", 1: "reason"}  # what the page script is told
    assert rationale_kind(model="claude-x", outcome="CONFIRMED", reason="") == "text"

    client.force_login(reviewer)
    url = f"/contracts/{review.contract_id}/"
    english = client.get(url).content.decode()
    assert "The rule&#x27;s wording for an acceptable clause matched (quoted)." in english
    assert "shall not exceed the fees" in english  # the matched words, quoted
    chinese = client.get(url, HTTP_ACCEPT_LANGUAGE="zh-hans").content.decode()
    assert "Matched the rule" not in chinese
    assert "The rule&#x27;s wording" not in chinese
    assert "always needs a lawyer" not in chinese  # said once, by the reason's label
    assert "规则中可接受条款的措辞已匹配" in chinese
    # and the Word memo says them as the page does
    memo = client.get(f"/reviews/{review.pk}/export.docx", HTTP_ACCEPT_LANGUAGE="zh-hans")
    document = Document(io.BytesIO(memo.content))
    said = "\n".join(
        [c.text for c in document.comments]
        + [cell.text for table in document.tables for row in table.rows for cell in row.cells]
    )
    assert "规则中可接受条款的措辞已匹配" in said and "Matched the rule" not in said
    assert "always needs a lawyer" not in said
