"""A party's defined role, read where the contract introduces the party."""

import pytest

from reviewapp.text.facts.parties import Party, chinese_parties, defined_role, party_named

PREAMBLE = (
    "This Supply Agreement is made between Borealis Retail Ltd., a company organized and "
    'existing under the laws of England ("Buyer"), and Acme Widgets Inc. (the "Seller").'
)


@pytest.mark.parametrize(
    ("text", "name", "role"),
    [
        (PREAMBLE, "Borealis Retail Ltd.", "Buyer"),
        (PREAMBLE, "Acme Widgets Inc.", "Seller"),
        ('Gamma Corp, hereinafter referred to as "Licensee", and', "Gamma Corp", "Licensee"),
        ("甲方：北京某某科技有限公司\n乙方：上海某某有限公司", "上海某某有限公司", "乙方"),
        (
            "本合同由北京某某科技有限公司（以下简称“甲方”）与上海某某有限公司（以下简称“乙方”）签订。",
            "北京某某科技有限公司",
            "甲方",
        ),
        ("许可方（授权方）：深圳某某软件有限公司", "深圳某某软件有限公司", "许可方"),
    ],
)
def test_the_role_is_read_where_the_contract_defines_it(text, name, role):
    assert defined_role(text, name) == role


def test_a_role_defined_for_the_next_party_is_not_this_ones():
    assert defined_role('Alpha LLC and Beta Inc. ("Seller")', "Alpha LLC") == ""


def test_a_defined_term_that_is_no_party_is_no_role():
    assert defined_role('Alpha LLC (the "Agreement Date") agrees', "Alpha LLC") == ""


def test_a_name_the_contract_does_not_contain_has_no_role():
    assert defined_role(PREAMBLE, "Globex Corp.") == ""


def test_labelled_chinese_parties_need_no_between():
    assert chinese_parties("甲方：北京某某科技有限公司\n乙方：上海某某有限公司\n") == [
        {"name": "北京某某科技有限公司", "role": "甲方"},
        {"name": "上海某某有限公司", "role": "乙方"},
    ]


def test_a_party_is_found_by_its_name_whatever_the_case_and_spacing():
    parties = [Party("Borealis Retail Ltd.", "Buyer")]
    assert party_named(parties, "borealis  retail ltd.") == parties[0]
    assert party_named(parties, "Borealis") is None
    assert parties[0].term == "Buyer" and Party("Acme").term == "Acme"
    assert parties[0].shown() == "Borealis Retail Ltd. (Buyer)"
