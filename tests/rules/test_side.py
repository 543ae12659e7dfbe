"""The side the firm acts for: the playbooks' wording names the parties, a clause's plain
wording says whom it binds, and the playbook says what becomes of a clause that only protects
the client."""

import re
from pathlib import Path

import pytest

from reviewapp.text.engine import load_playbook, load_playbook_data
from reviewapp.text.engine.bounded_yaml import load_bounded
from reviewapp.text.engine.model import RuleError
from reviewapp.text.engine.side import (
    obligation_direction,
    passage_policy,
    protecting_words,
    protects_client_policy,
    severity_for_side,
    speak_for,
)

PLAYBOOKS = Path(__file__).resolve().parents[2] / "reviewapp" / "rules" / "playbooks"


@pytest.mark.parametrize(
    ("text", "spoken"),
    [
        (
            "Is each party's IP left the property of the other, and does our client keep its "
            "background IP?",
            "Is each party's IP left the property of the other, and does Buyer keep its "
            "background IP?",
        ),
        (
            "Our client may terminate for convenience on 30 days' notice; the counterparty may "
            "not.",
            "Buyer may terminate for convenience on 30 days' notice; Seller may not.",
        ),
        (
            "Improvements to our client's IP belong to our client.",
            "Improvements to Buyer's IP belong to Buyer.",
        ),
        ("The counterparty's IP infringement.", "Seller's IP infringement."),
        (
            "Does a party promise the other better terms?",
            "Does a party promise the other better terms?",
        ),
    ],
)
def test_english_wording_names_the_parties_by_their_defined_names(text, spoken):
    assert speak_for(text, client="Buyer", counterparty="Seller") == spoken


def test_without_a_single_counterparty_the_counterparty_keeps_its_word():
    spoken = speak_for("Our client may; the counterparty may not.", client="Buyer")
    assert spoken == "Buyer may; the counterparty may not."


@pytest.mark.parametrize(
    ("text", "spoken"),
    [
        ("我方不承担最惠义务。", "甲方不承担最惠义务。"),
        (
            "我方可提前三十日书面通知解除；对方不享有任意解除权。",
            "甲方可提前三十日书面通知解除；乙方不享有任意解除权。",
        ),
        # 一方 ... 对方: "one party ... the other", not the counterparty
        ("本条是否限制一方从事与对方相竞争的业务？", "本条是否限制一方从事与对方相竞争的业务？"),
        (
            "任何一方转让须经对方同意。可接受对方转让须经我方同意。",
            "任何一方转让须经对方同意。可接受乙方转让须经甲方同意。",
        ),
    ],
)
def test_chinese_wording_names_the_parties_by_their_defined_names(text, spoken):
    assert speak_for(text, client="甲方", counterparty="乙方") == spoken


@pytest.mark.parametrize(("name", "client", "other", "left"), [
    ("commercial-en", "Buyer", "Seller", r"(?i)\bour client|\bthe counterparty"),
    ("commercial-zh", "甲方", "乙方", r"我方"),
])  # fmt: skip
def test_no_rule_of_the_shipped_playbooks_still_speaks_of_our_client(name, client, other, left):
    playbook = load_playbook(PLAYBOOKS / f"{name}.yaml")
    spoken = [
        speak_for(getattr(rule, field), client=client, counterparty=other)
        for rule in playbook.rules
        for field in ("question", "standard_position", "fallback")
    ]
    assert [text for text in spoken if re.search(left, text)] == []
    assert any(client in text for text in spoken)


@pytest.mark.parametrize(
    ("clause", "direction"),
    [
        ("Buyer shall pay each invoice within 30 days.", "binds_client"),
        ("Buyer agrees not to resell the Products outside the Territory.", "binds_client"),
        ("The Seller shall not sell the Products to any other retailer.", "protects_client"),
        ("Seller shall indemnify Buyer against all claims.", "protects_client"),
        ("Buyer and Seller shall keep the terms confidential.", None),
        ("Buyer shall pay the price and Seller shall deliver the goods.", None),
        ("Neither party shall assign this Agreement.", None),
        ("Seller shall be entitled to suspend deliveries.", None),  # a right, not a duty
        ("Products ordered by Buyer shall be delivered DDP.", None),
    ],
)
def test_english_obligations_say_whom_they_bind(clause, direction):
    assert obligation_direction(clause, client_role="Buyer", counterparty_role="Seller") == (
        direction
    )


@pytest.mark.parametrize(
    ("clause", "direction"),
    [
        ("甲方应支付全部货款。", "binds_client"),
        ("甲方应当在收货后十日内验收。", "binds_client"),
        ("乙方不得向其他零售商供货。", "protects_client"),
        ("乙方应向甲方支付违约金。", "protects_client"),
        ("甲乙双方应对本合同内容保密。", None),
        ("甲方应付款，乙方应交货。", None),
        ("乙方应甲方要求提供资料。", None),
    ],
)
def test_chinese_obligations_say_whom_they_bind(clause, direction):
    assert obligation_direction(clause, client_role="甲方", counterparty_role="乙方") == direction


def test_without_a_counterparty_nothing_is_said():
    assert (
        obligation_direction("Seller shall not.", client_role="Buyer", counterparty_role=None)
        is None
    )


SIDE = """
name: side
version: "1"
language: en
side:
  protects_client: lower
  categories:
    Non-Compete: settle
    Cap On Liability: lawyer
rules:
  - id: en.side.mfn
    category: Most Favored Nation
    severity: high
    patterns: ['most favou?red nation']
"""


def _playbook(source: str):
    return load_playbook_data(load_bounded(source))


def test_the_playbook_says_per_category_what_becomes_of_a_clause_that_only_protects_the_client():
    playbook = _playbook(SIDE)
    assert protects_client_policy(playbook, "Most Favored Nation") == "lower"
    assert protects_client_policy(playbook, "Non-Compete") == "settle"
    assert protects_client_policy(playbook, "Cap On Liability") == "lawyer"


def test_without_a_side_setting_a_lawyer_sees_it_as_any_other():
    playbook = load_playbook(PLAYBOOKS / "commercial-en.yaml")
    assert protects_client_policy(playbook, "Non-Compete") == "lawyer"


@pytest.mark.parametrize(
    "bad",
    [
        "side: {protects_client: ignore}",
        "side: {categories: {Non-Compete: maybe}}",
        "side: {protect_client: lower}",
        "side: lower",
    ],
)
def test_a_side_setting_that_is_not_understood_is_refused(bad):
    with pytest.raises(RuleError, match="side"):
        _playbook(SIDE.split("side:")[0] + bad + "\nrules:" + SIDE.split("rules:")[1])


@pytest.mark.parametrize(
    ("severity", "direction", "policy", "shown"),
    [
        ("high", "protects_client", "lower", "medium"),
        ("critical", "protects_client", "lower", "high"),
        ("low", "protects_client", "lower", "low"),
        ("high", "binds_client", "lower", "high"),
        ("high", None, "lower", "high"),
        ("high", "protects_client", "lawyer", "high"),
    ],
)
def test_lower_takes_one_severity_step_off_a_clause_that_only_protects_the_client(
    severity, direction, policy, shown
):
    assert severity_for_side(severity, direction=direction, policy=policy) == shown


@pytest.mark.parametrize(
    ("categories", "policy"),
    [
        (["Non-Compete"], "settle"),
        (["Non-Compete", "Most Favored Nation"], "lower"),
        (["Non-Compete", "Cap On Liability"], "lawyer"),
        ([], "lawyer"),
    ],
)
def test_a_passage_of_several_categories_follows_the_strictest_policy(categories, policy):
    assert passage_policy(_playbook(SIDE), categories) == policy


@pytest.mark.parametrize(
    ("text", "quote"),
    [
        (
            "2. Exclusivity. Seller shall not sell the Products to any other retailer. "
            "Buyer may resell.",
            "Seller shall not sell the Products to any other retailer",
        ),
        (
            "The Products are sold to Buyer. Seller agrees not to compete; and more",
            "Seller agrees not to compete",
        ),
        ("Seller shall deliver and Buyer shall pay.", None),  # both bound
        ("Buyer and Seller shall meet monthly.", None),  # joint
    ],
)
def test_the_words_that_show_a_clause_protects_the_client_are_quoted_verbatim(text, quote):
    found = protecting_words(text, client_role="Buyer", counterparty_role="Seller")
    assert found == quote
    assert found is None or found in text


def test_a_chinese_clause_s_protecting_words_end_at_its_sentence():
    text = "第二条 独家。乙方不得向其他零售商供货。甲方可以转售。"
    assert protecting_words(text, client_role="甲方", counterparty_role="乙方") == (
        "乙方不得向其他零售商供货"
    )
