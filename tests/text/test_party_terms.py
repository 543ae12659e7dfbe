"""The playbook's standard wording in the contract's own terms for its parties."""

from pathlib import Path

import pytest

from reviewapp.text.engine import load_playbook
from reviewapp.text.engine.party_terms import (
    CUSTOMER,
    SUPPLIER,
    deal_sides,
    in_contract_terms,
    playbook_roles,
    role_kind,
)
from reviewapp.text.facts.parties import Party

PLAYBOOKS = Path(__file__).resolve().parents[2] / "reviewapp" / "rules" / "playbooks"
BUYER = Party("Borealis Retail Ltd.", "Buyer")
SELLER = Party("Acme GmbH", "Seller")
NON_COMPETE = (
    "During the Term and for twelve (12) months after it, Supplier shall not sell directly "
    "competing products in the Territory."
)


@pytest.mark.parametrize(
    ("text", "rewritten"),
    [
        (NON_COMPETE, NON_COMPETE.replace("Supplier", "Seller")),
        (
            "Either party may terminate. Customer shall pay for services performed.",
            "Either party may terminate. Buyer shall pay for services performed.",
        ),
        ("and are the Customer's sole remedy.", "and are the Buyer's sole remedy."),
        # a generic noun is not a party's defined term
        (
            "compared with customers buying comparable volumes",
            "compared with customers buying comparable volumes",
        ),
        (
            "Each party shall keep the other's information.",
            "Each party shall keep the other's information.",
        ),
    ],
)
def test_english_standard_wording_takes_the_contracts_terms(text, rewritten):
    assert in_contract_terms(text, deal_sides(BUYER, SELLER)).text == rewritten


def test_the_sides_do_not_depend_on_whom_the_firm_acts_for():
    """Acting for the seller, the playbook's Supplier is still the seller."""
    terms = in_contract_terms(NON_COMPETE, deal_sides(SELLER, BUYER))
    assert "Seller shall not sell" in terms.text
    assert terms.swapped == (("Supplier", "Seller"),) and terms.kept == ()


def test_a_party_without_a_role_is_the_other_side_of_a_two_party_contract():
    sides = deal_sides(Party("Borealis Retail Ltd."), Party("Acme GmbH", "Licensor"))
    assert sides == {
        SUPPLIER: Party("Acme GmbH", "Licensor"),
        CUSTOMER: Party("Borealis Retail Ltd."),
    }
    # a name takes no "the"
    assert in_contract_terms("the Customer's remedy", sides).text == "Borealis Retail Ltd.'s remedy"


@pytest.mark.parametrize(
    ("client", "counterparty"),
    [
        (Party("Alpha Ltd.", "Company"), Party("Beta Ltd.", "Consultant Partner")),  # no side told
        (Party("Alpha Ltd.", "Buyer"), Party("Beta Ltd.", "Customer")),  # both the same side
        (None, None),  # no party chosen
        (Party("Alpha Ltd.", "Company"), None),
    ],
)
def test_when_the_sides_cannot_be_told_the_playbooks_words_stay_and_are_reported(
    client, counterparty
):
    terms = in_contract_terms(NON_COMPETE, deal_sides(client, counterparty))
    assert terms.text == NON_COMPETE
    assert terms.kept == ("Supplier",) and terms.swapped == ()


def test_a_side_known_alone_is_rewritten_and_the_other_kept():
    """Acting for the buyer of a contract of three parties: no single counterparty."""
    terms = in_contract_terms(
        "Supplier shall deliver; Customer shall pay.", deal_sides(BUYER, None)
    )
    assert terms.text == "Supplier shall deliver; Buyer shall pay."
    assert terms.kept == ("Supplier",)


def test_words_are_swapped_in_one_pass():
    sides = deal_sides(Party("A", "Customer"), Party("B", "Supplier"))
    assert in_contract_terms("Supplier and Customer.", sides).text == "Supplier and Customer."
    reversed_words = deal_sides(Party("A", "Seller"), Party("B", "Buyer"))
    assert in_contract_terms("Buyer pays Seller.", reversed_words).text == "Buyer pays Seller."


ZH_WORDING = (
    "在本合同有效期内及期满后十二个月内，乙方不得在约定区域内销售竞争产品；"
    "被授权方未达到年度最低采购量的，授予方有权变更；买方逾期付款的，应向卖方支付逾期利息。"
)


def test_chinese_standard_wording_takes_the_contracts_roles():
    sides = deal_sides(
        Party("北京北极星零售有限公司", "买方"), Party("上海顶点制造有限公司", "卖方")
    )
    assert in_contract_terms(ZH_WORDING, sides).text == (
        "在本合同有效期内及期满后十二个月内，卖方不得在约定区域内销售竞争产品；"
        "买方未达到年度最低采购量的，卖方有权变更；买方逾期付款的，应向卖方支付逾期利息。"
    )
    licence = deal_sides(Party("甲公司", "被许可方"), Party("乙公司", "许可方"))
    assert in_contract_terms("乙方不得销售", licence).text == "许可方不得销售"


def test_a_contracts_jia_and_yi_tell_no_side():
    """甲方 and 乙方 of a contract say nothing of who sells: the playbook's 乙方 is kept."""
    sides = deal_sides(
        Party("北京北极星零售有限公司", "甲方"), Party("上海顶点制造有限公司", "乙方")
    )
    terms = in_contract_terms("乙方不得销售竞争产品。", sides)
    assert terms.text == "乙方不得销售竞争产品。" and terms.kept == ("乙方",)
    assert (
        role_kind("甲方") is None
        and role_kind("卖方") == SUPPLIER
        and role_kind("buyer") == CUSTOMER
    )


def test_every_generic_party_word_of_the_shipped_standard_wording_is_rewritten():
    buyer_seller = deal_sides(BUYER, SELLER)
    zh_sides = deal_sides(
        Party("北京北极星零售有限公司", "买方"), Party("上海顶点制造有限公司", "卖方")
    )
    seen = set()
    for name, sides, generic in (
        ("commercial-en", buyer_seller, ("Supplier", "Customer")),
        ("commercial-zh", zh_sides, ("甲方", "乙方", "授予方", "被授权方")),
    ):
        playbook = load_playbook(PLAYBOOKS / f"{name}.yaml")
        for rule in playbook.rules:
            terms = in_contract_terms(rule.fallback_clause, sides)
            seen.update(playbook_roles(rule.fallback_clause))
            assert terms.kept == (), rule.id
            assert not any(word in terms.text for word in generic), (rule.id, terms.text)
    assert {"Supplier", "Customer", "乙方", "被授权方", "授予方", "买方", "卖方"} <= seen


@pytest.mark.parametrize(
    ("preamble", "role", "kind"),
    [
        (
            "甲方（买方）：北京北极星零售有限公司\n乙方（卖方）：上海顶点制造有限公司",
            "甲方",
            CUSTOMER,
        ),
        (
            "甲方（买方）：北京北极星零售有限公司\n乙方（卖方）：上海顶点制造有限公司",
            "乙方",
            SUPPLIER,
        ),
        ("出卖人（以下简称“甲方”）：上海顶点制造有限公司", "甲方", SUPPLIER),
        ("Party A (Seller): ZTO Express Co., Ltd.", "Party A", SUPPLIER),
        ("甲方：北京北极星零售有限公司\n乙方：上海顶点制造有限公司", "甲方", None),
        # a deal word in the body, not beside the role where the preamble defines it
        ("甲方：北京\n乙方：上海\n甲方应在收到货物后（买方）付款", "甲方", None),
    ],
)
def test_a_role_that_tells_no_side_takes_the_one_written_beside_it(preamble, role, kind):
    assert role_kind(role, preamble) == kind


def test_the_playbooks_yi_becomes_the_contracts_jia_when_its_jia_sells():
    preamble = "甲方（卖方）：上海顶点制造有限公司\n乙方（买方）：北京北极星零售有限公司\n"
    sides = deal_sides(
        Party("北京北极星零售有限公司", "乙方"),
        Party("上海顶点制造有限公司", "甲方"),
        preamble=preamble,
    )
    terms = in_contract_terms("乙方不得销售竞争产品；甲方应按期付款。", sides)
    assert terms.text == "甲方不得销售竞争产品；乙方应按期付款。"
    assert terms.swapped == (("乙方", "甲方"), ("甲方", "乙方"))


def test_the_preamble_is_read_only_where_the_roles_leave_a_side_open():
    """Roles that tell both sides stand, whatever the preamble says beside them."""
    told = deal_sides(BUYER, Party("Acme GmbH", "Party B"), preamble="Party B (Buyer): Acme GmbH")
    assert told == {CUSTOMER: BUYER, SUPPLIER: Party("Acme GmbH", "Party B")}
