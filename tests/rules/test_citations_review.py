"""End to end under the offline engine: a Chinese contract's citations checked against the law
in force, as a lawyer reads the outcome (English and Chinese)."""

from __future__ import annotations

import pytest
from django.utils import translation

from reviewapp.contracts.models import PassageState
from reviewapp.queue.models import QueueItem
from reviewapp.reviews.model_work import verifications_run
from reviewapp.reviews.models import Verification
from reviewapp.reviews.reasons import rationale_kind, rationale_shown
from reviewapp.reviews.services import review_scan
from reviewapp.reviews.verdicts import verification_payload
from tests.factories import ingested_contract

pytestmark = pytest.mark.django_db

CONTRACT = """技术服务合同

第一条 违约
乙方未按期交付的，应依据《合同法》第一百零七条承担责任。

第二条 损失计算
损失的计算依据《民法典》第1300条确定。

第三条 损失赔偿
因本合同产生的损失，按《民法典》第584条计算。
"""


@pytest.fixture(autouse=True)
def _rules_alone(monkeypatch):
    """The citations alone: the Chinese router, a model, would add its own flags (Liquidated
    Damages on a damages clause) to these passages, which is not what these tests look at."""
    monkeypatch.setattr("reviewapp.reviews.services.router_for", lambda **kwargs: (None, ""))


def _reviewed(matter) -> dict[str, Verification]:
    review = review_scan(
        contract_id=ingested_contract(matter=matter, text=CONTRACT).pk, enqueue=False
    )
    assert review.engine == "offline"
    pending = list(Verification.objects.filter(review=review).values_list("pk", flat=True))
    verifications_run(review_id=review.pk, verification_ids=pending)
    settled = Verification.objects.filter(review=review).select_related("passage")
    return {
        key: next(v for v in settled if key in v.passage.text)
        for key in ("第一百零七条", "第1300条", "第584条")
    }


def test_a_repealed_law_is_flagged_naming_its_repeal_and_successor(matter):
    repealed = _reviewed(matter)["第一百零七条"]
    assert repealed.rule_ids == ["zh.legal-citation.incomplete"]
    assert repealed.outcome == PassageState.REJECTED
    assert repealed.quote == "《合同法》第一百零七条"
    assert repealed.rationale == (
        "Citation check: 《合同法》 is no longer in force since 2021-01-01, replaced by 《民法典》."
    )
    assert QueueItem.objects.filter(passage=repealed.passage).exists()
    with translation.override("zh-hans"):
        assert (
            rationale_shown(repealed)
            == "法条核对： 《合同法》已于2021-01-01废止，由《民法典》取代。"
        )


def test_an_article_beyond_the_last_is_flagged(matter):
    beyond = _reviewed(matter)["第1300条"]
    assert beyond.outcome == PassageState.REJECTED
    assert "《民法典》第1300条: beyond the last article (1260) of 《民法典》." in beyond.rationale
    with translation.override("zh-hans"):
        assert "超出《民法典》的最后一条（第1260条）" in rationale_shown(beyond)


def test_a_law_in_force_with_a_valid_article_is_settled_without_a_lawyer(matter):
    valid = _reviewed(matter)["第584条"]
    assert valid.outcome == PassageState.CONFIRMED
    assert valid.passage.state == PassageState.CONFIRMED
    assert valid.quote == "《民法典》第584条"
    assert not QueueItem.objects.filter(passage=valid.passage).exists()


def test_the_lawyers_queue_says_it_in_the_readers_language(client, matter, lawyer):
    verifications = _reviewed(matter)
    contract_id = verifications["第584条"].passage.contract_id
    client.force_login(lawyer)
    english = client.get(f"/queue/?contract={contract_id}").content.decode()
    assert "《合同法》 is no longer in force since 2021-01-01, replaced by 《民法典》." in english
    assert "beyond the last article (1260)" in english
    queued = QueueItem.objects.filter(passage__contract_id=contract_id)
    assert sorted(item.passage.index for item in queued) == [
        verifications["第一百零七条"].passage.index,
        verifications["第1300条"].passage.index,
    ]  # the settled citation (第584条) reaches no lawyer
    chinese = client.get(
        f"/queue/?contract={contract_id}", HTTP_ACCEPT_LANGUAGE="zh-CN,zh;q=0.9"
    ).content.decode()
    assert "《合同法》已于2021-01-01废止，由《民法典》取代。" in chinese


def test_the_live_event_carries_the_findings_for_the_page_to_say(matter):
    repealed = _reviewed(matter)["第一百零七条"]
    payload = verification_payload(repealed)
    assert payload["rationale_kind"] == "citation"
    (finding,) = payload["citations"]
    assert finding["wording"] == "repealed"
    assert (finding["law"], finding["date"], finding["successor"]) == (
        "《合同法》",
        "2021-01-01",
        "《民法典》",
    )


def test_an_ordinary_offline_match_is_still_said_as_a_match():
    kind = rationale_kind(
        model="offline", outcome="CONFIRMED", reason="", rationale="Matched the rule's ..."
    )
    assert kind == "match"


def test_the_translated_sentences_are_the_stored_ones_in_english():
    from reviewapp.reviews import reasons
    from reviewapp.text.citations import WORDING

    with translation.override("en"):
        assert {key: str(label) for key, label in reasons._CITATION.items()} == WORDING
