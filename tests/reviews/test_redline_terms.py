"""A redline's proposal fits the clause: the shipped playbook's standard wording names the parties
by the contract's own defined terms, replaces only the sentence the rule flagged behind the
clause's number and heading, and the editor says who wrote what."""

from __future__ import annotations

import pytest

from reviewapp.accounts.models import Membership, Role
from reviewapp.reviews.acting_for.services import contract_acting_for_set
from reviewapp.reviews.redlines.services import redline_accept, redline_proposal, redline_save
from reviewapp.reviews.services import review_scan
from tests.factories import ingested_contract

pytestmark = pytest.mark.django_db

SUPPLY = (
    "SUPPLY AGREEMENT\n\n"
    "This Supply Agreement is made between Borealis Retail Ltd., a company organized and existing "
    'under the laws of England ("Buyer"), and Acme Widgets Inc., a Delaware corporation '
    '("Seller").\n\n'
    "1. Payment. Buyer shall pay each invoice within 30 days.\n\n"
    "7. Restrictions. Seller shall not solicit the employees of Buyer during the Term. Seller "
    "shall not sell competing products to any other retailer in the Territory. Buyer may audit "
    "the records of Seller once a year.\n"
)
FIRST = "Seller shall not solicit the employees of Buyer during the Term. "
LAST = " Buyer may audit the records of Seller once a year."
STANDARD_IN_TERMS = (
    "During the Term and for twelve (12) months after it, Seller shall not sell directly "
    "competing products in the Territory. Nothing in this clause restricts passive investments of "
    "less than five per cent (5%) or businesses acquired after the Effective Date."
)
ZH_SUPPLY = (
    "采购合同\n\n买方：北京北极星零售有限公司\n\n卖方：上海顶点制造有限公司\n\n"
    "第一条 付款。买方应支付全部货款。\n\n"
    "第二条 限制。合同期内，卖方不得向其他零售商销售与本合同产品相竞争的产品。"
    "买方有权每年查阅卖方账簿一次。\n"
)


@pytest.fixture
def lee(make_user, matter):
    lee = make_user("lee", first_name="Lee", last_name="Lawyer")
    Membership.objects.create(user=lee, matter=matter, role=Role.LAWYER)
    return lee


@pytest.fixture
def kim(make_user, matter):
    kim = make_user("kim")  # no full name: named by username
    Membership.objects.create(user=kim, matter=matter, role=Role.LAWYER)
    return kim


def scanned(matter, text, capture, name="supply.txt"):
    contract = ingested_contract(matter=matter, text=text, name=name)
    with capture(execute=True):
        return review_scan(contract_id=contract.pk, engine="offline")


@pytest.fixture
def supply(matter, django_capture_on_commit_callbacks):
    return scanned(matter, SUPPLY, django_capture_on_commit_callbacks)


def restrictions(review):
    return review.contract.passages.get(text__contains="Restrictions")


def test_the_proposal_names_buyer_and_seller_and_keeps_the_rest_of_the_clause(supply, lee):
    contract_acting_for_set(
        contract=supply.contract, name="Borealis Retail Ltd.", role="", set_by=lee
    )
    proposal = redline_proposal(review=supply, passage=restrictions(supply), category="Non-Compete")
    assert proposal.replacement == "7. Restrictions. " + FIRST + STANDARD_IN_TERMS + LAST
    assert "Supplier" not in proposal.replacement and "Customer" not in proposal.replacement
    assert proposal.swapped == (("Supplier", "Seller"),) and proposal.source == "playbook"


def test_until_the_party_acted_for_is_chosen_the_wording_stays_and_the_panel_says_so(
    client, supply, lee
):
    proposal = redline_proposal(review=supply, passage=restrictions(supply), category="Non-Compete")
    assert "Supplier shall not sell" in proposal.replacement and proposal.kept == ("Supplier",)
    client.force_login(lee)
    page = client.get(f"/contracts/{supply.contract_id}/redlines/").content.decode()
    assert "names the parties as the playbook does (“Supplier”): choose the party" in page
    chinese = client.get(
        f"/contracts/{supply.contract_id}/redlines/", HTTP_ACCEPT_LANGUAGE="zh-hans"
    ).content.decode()
    assert "标准措辞沿用范本对当事方的称呼（“Supplier”）" in chinese


def test_the_editor_says_who_wrote_what_in_english_and_chinese(client, supply, lee, kim):
    contract_acting_for_set(
        contract=supply.contract, name="Borealis Retail Ltd.", role="", set_by=lee
    )
    url = f"/contracts/{supply.contract_id}/redlines/"
    client.force_login(lee)
    page = client.get(url).content.decode()
    assert "standard wording, not yet reviewed" in page
    assert "Parties named as this contract defines them: “Supplier” → “Seller”." in page
    assert "Seller shall not sell directly" in page
    zh = client.get(url, HTTP_ACCEPT_LANGUAGE="zh-hans").content.decode()
    assert (
        "标准措辞，尚未审阅" in zh and "当事方已按本合同的定义称呼：“Supplier” → “Seller”。" in zh
    )

    passage = restrictions(supply)
    redline = redline_save(
        review=supply,
        passage=passage,
        category="Non-Compete",
        replacement=passage.text.replace("any other retailer", "any retailer in Ruritania"),
        user=lee,
    )
    redline_accept(redline_id=redline.pk, user=kim)
    page = client.get(url).content.decode()
    assert "edited by Lee Lawyer" in page and "accepted by kim" in page
    assert "not yet reviewed" not in page and "Parties named" not in page
    zh = client.get(url, HTTP_ACCEPT_LANGUAGE="zh-hans").content.decode()
    assert "由 Lee Lawyer 修改" in zh and "由 kim 接受" in zh


def test_an_untouched_proposal_saved_and_accepted_is_the_playbooks_accepted_by_its_lawyer(
    client, supply, lee
):
    contract_acting_for_set(contract=supply.contract, name="Acme Widgets Inc.", role="", set_by=lee)
    passage = restrictions(supply)
    proposal = redline_proposal(review=supply, passage=passage, category="Non-Compete")
    assert "Seller shall not sell directly" in proposal.replacement  # acting for the seller too
    client.force_login(lee)
    saved = client.post(
        f"/api/reviews/{supply.pk}/redlines/",
        {"passage": passage.pk, "category": "Non-Compete", "replacement": proposal.replacement},
        content_type="application/json",
    ).json()
    assert saved["source"] == "playbook"
    assert saved["source_label"] == "standard wording, not yet reviewed"
    accepted = client.post(f"/api/redlines/{saved['id']}/accept/").json()
    assert accepted["accepted_label"] == "accepted by Lee Lawyer"
    assert accepted["source_label"] == "Playbook's standard wording"


def test_a_chinese_proposal_names_the_contracts_buyer_and_seller(
    matter, lee, django_capture_on_commit_callbacks
):
    review = scanned(matter, ZH_SUPPLY, django_capture_on_commit_callbacks, name="zh.txt")
    contract_acting_for_set(
        contract=review.contract, name="北京北极星零售有限公司", role="", set_by=lee
    )
    passage = review.contract.passages.get(text__contains="第二条")
    proposal = redline_proposal(review=review, passage=passage, category="Non-Compete")
    assert proposal.replacement.startswith("第二条 限制。")
    assert "卖方不得在约定区域内销售" in proposal.replacement and "乙方" not in proposal.replacement
    assert proposal.replacement.endswith("买方有权每年查阅卖方账簿一次。")


ZH_JIA_SELLS = (
    "采购合同\n\n甲方（卖方）：上海顶点制造有限公司\n\n乙方（买方）：北京北极星零售有限公司\n\n"
    "第一条 付款。乙方应支付全部货款。\n\n"
    "第二条 限制。合同期内，甲方不得向其他零售商销售与本合同产品相竞争的产品。"
    "乙方有权每年查阅甲方账簿一次。\n"
)


def test_a_chinese_contracts_jia_and_yi_take_the_side_its_preamble_gives_them(
    client, matter, lee, django_capture_on_commit_callbacks
):
    """The playbook writes 乙方 for the supplier; this contract's supplier is its 甲方."""
    review = scanned(matter, ZH_JIA_SELLS, django_capture_on_commit_callbacks, name="jia.txt")
    contract_acting_for_set(
        contract=review.contract, name="北京北极星零售有限公司", role="", set_by=lee
    )
    passage = review.contract.passages.get(text__contains="第二条")
    proposal = redline_proposal(review=review, passage=passage, category="Non-Compete")
    assert "甲方不得在约定区域内销售" in proposal.replacement
    assert proposal.swapped == (("乙方", "甲方"),)
    client.force_login(lee)
    page = client.get(
        f"/contracts/{review.contract_id}/redlines/", HTTP_ACCEPT_LANGUAGE="zh-hans"
    ).content.decode()
    assert (
        "甲方不得在约定区域内销售" in page
        and "当事方已按本合同的定义称呼：“乙方” → “甲方”。" in page
    )


def test_without_a_side_for_jia_and_yi_the_playbooks_yi_stays_and_the_panel_says_so(
    client, matter, lee, django_capture_on_commit_callbacks
):
    plain = ZH_JIA_SELLS.replace("（卖方）", "").replace("（买方）", "")
    review = scanned(matter, plain, django_capture_on_commit_callbacks, name="plain.txt")
    contract_acting_for_set(
        contract=review.contract, name="北京北极星零售有限公司", role="", set_by=lee
    )
    passage = review.contract.passages.get(text__contains="第二条")
    proposal = redline_proposal(review=review, passage=passage, category="Non-Compete")
    assert "乙方不得在约定区域内销售" in proposal.replacement and proposal.kept == ("乙方",)
    client.force_login(lee)
    page = client.get(f"/contracts/{review.contract_id}/redlines/").content.decode()
    assert "which party of this contract each one is cannot be told from their roles" in page
