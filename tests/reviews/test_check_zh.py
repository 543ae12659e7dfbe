"""A Chinese contract's review runs the Chinese check: the shipped commercial-zh playbook, router
and check-zh, with the categories it drops and those that stand."""

from __future__ import annotations

import pytest

from reviewapp.contracts.models import PassageState
from reviewapp.reviews.models import RuleFiring
from reviewapp.reviews.services import review_scan
from reviewapp.rules.learned.versions import router_sync_shipped
from reviewapp.rules.services import playbook_sync_defaults
from tests.factories import ingested_contract

pytestmark = pytest.mark.django_db

CONTRACT = """第一条 合同标的
甲方向乙方购买钢材一千吨，单价每吨人民币四千元。

第二条 违约责任
乙方逾期交货的，每逾期一日应按合同总价的千分之三向甲方支付违约金。

第三条 审计
甲方有权在正常工作时间内查阅乙方与本合同有关的账簿和记录。

第四条 其他
本合同一式两份，双方各执一份，具有同等法律效力。
"""


@pytest.fixture
def reviewed(matter):
    playbook_sync_defaults()
    router_sync_shipped()
    contract = ingested_contract(matter=matter, text=CONTRACT, name="合同.txt")
    return contract, review_scan(contract_id=contract.pk, enqueue=False)


def _firings(contract, words: str) -> dict[str, RuleFiring]:
    passage = contract.passages.get(text__contains=words)
    return {f.category: f for f in RuleFiring.objects.filter(passage=passage)}


def test_a_chinese_review_keeps_the_clauses_and_drops_what_only_rode_along(reviewed):
    contract, review = reviewed
    assert review.check_version.startswith("check-zh@")
    penalty = _firings(contract, "违约金")
    assert not penalty["Liquidated Damages"].dropped
    assert (
        penalty["Liquidated Damages"].check_score >= penalty["Liquidated Damages"].check_threshold
    )
    audit = _firings(contract, "账簿")
    assert not audit["Audit Rights"].dropped
    assert any(f.dropped for f in {**penalty, **audit}.values())  # a category named in passing
    for firing in {**penalty, **audit}.values():
        assert firing.check_score is not None  # the check read every named category


def test_chinese_boilerplate_is_left_alone(reviewed):
    contract, _ = reviewed
    counterparts = contract.passages.get(text__contains="一式两份")
    assert counterparts.state == PassageState.CONFIRMED
    assert not RuleFiring.objects.filter(passage=counterparts).exists()
