"""The rule key ``citation_check: prc``: loading, the scan, and the offline verdict."""

from __future__ import annotations

import pytest

from reviewapp.text.engine import (
    RuleError,
    SimplePassage,
    compile_playbook,
    load_playbook,
    offline_verdict,
    scan,
)
from tests.text.test_engine import CITATION_RULE, fired, playbook

CHECKED = {**CITATION_RULE, "citation_check": "prc"}
ZH_PLAYBOOK = "reviewapp/rules/playbooks/commercial-zh.yaml"
ZH_RULE = "zh.legal-citation.incomplete"


def test_the_key_takes_prc_or_nothing():
    assert playbook(CHECKED, language="zh").rules[0].citation_check == "prc"
    assert (
        playbook({**CITATION_RULE, "citation_check": "none"}, language="zh").rules[0].citation_check
        == ""
    )
    with pytest.raises(RuleError, match=r"rule t.cite: citation_check: 'us' is not one of prc"):
        playbook({**CITATION_RULE, "citation_check": "us"}, language="zh")


def test_a_secondary_rule_may_not_check_citations():
    secondary = {**CHECKED, "id": "t.cite.context", "only_with": ["Legal Citation"]}
    with pytest.raises(RuleError, match="citation_check: a wrong citation routes a passage"):
        playbook(CHECKED, secondary, language="zh")


def test_the_shipped_chinese_playbook_checks_its_citations():
    assert load_playbook(ZH_PLAYBOOK).rule(ZH_RULE).citation_check == "prc"


def test_a_repealed_law_fires_even_with_article_and_date():
    text = "依据《合同法》第一百零七条（1999年10月1日起施行）承担违约责任。"
    assert not fired(playbook(CITATION_RULE, language="zh"), text)  # it lacks nothing
    (hit,) = fired(playbook(CHECKED, language="zh"), text)
    assert text[hit.match_start : hit.match_end] == "《合同法》第一百零七条"


def test_a_repealed_law_fires_without_brackets_or_the_rules_patterns():
    text = "本合同根据中华人民共和国中外合作经营企业法订立。"
    (hit,) = fired(playbook(CHECKED, language="zh"), text)
    assert text[hit.match_start : hit.match_end] == "中华人民共和国中外合作经营企业法"


def test_an_article_beyond_the_last_fires_even_with_a_date():
    text = "依据《民法典》第1300条（2021年1月1日起施行）计算。"
    assert [h.rule_id for h in fired(playbook(CHECKED, language="zh"), text)] == ["t.cite"]


def test_a_valid_citation_with_its_date_does_not_fire():
    text = "依据《民法典》第584条（2021年1月1日起施行）赔偿损失。"
    assert not fired(playbook(CHECKED, language="zh"), text)


def test_an_exception_still_silences_the_check():
    rule = {**CHECKED, "exceptions": ["仅供参考"]}
    assert not fired(playbook(rule, language="zh"), "仅供参考：《合同法》第107条（1999年）。")


def _verdict(text: str, rule_id: str = ZH_RULE):
    compiled = compile_playbook(load_playbook(ZH_PLAYBOOK))
    assert rule_id in {h.rule_id for h in scan(compiled, text, [SimplePassage(0, 0, len(text))])}
    return offline_verdict(compiled, rule_id, text)


def test_offline_a_repealed_law_is_rejected_with_its_repeal_and_successor():
    verdict = _verdict("乙方违约的，应依据《合同法》第一百零七条承担违约责任。")
    assert verdict is not None and verdict.state == "REJECTED"
    assert verdict.quote == "《合同法》第一百零七条"
    (finding,) = verdict.findings
    assert (finding.kind, finding.date, finding.successor) == (
        "repealed",
        "2021-01-01",
        "《民法典》",
    )


def test_offline_an_article_beyond_the_last_is_rejected():
    verdict = _verdict("赔偿范围依据《民法典》第1300条确定。")
    assert verdict is not None and verdict.state == "REJECTED"
    assert [(f.kind, f.last_article) for f in verdict.findings] == [("beyond_last_article", 1260)]


def test_offline_a_law_in_force_with_a_valid_article_is_confirmed():
    text = "损失赔偿额依据《民法典》第584条确定。"
    verdict = _verdict(text)
    assert verdict is not None and verdict.state == "CONFIRMED"
    assert verdict.quote == "《民法典》第584条" and verdict.quote in text


def test_offline_a_law_without_an_article_is_left_to_a_lawyer_as_before():
    assert _verdict("根据《中华人民共和国民法典》的相关规定，乙方应承担违约责任。") is None


def test_offline_a_law_the_table_does_not_know_is_left_to_a_lawyer():
    assert _verdict("依据《深圳市投资信托基金管理暂行规定》第五条执行。") is None


def test_offline_the_quote_is_the_passages_own_wording():
    text = "依据《民法典》第\u00a0584\u00a0条确定。"  # no-break spaces, which normalising changes
    verdict = _verdict(text)
    assert verdict is not None and verdict.state == "CONFIRMED" and verdict.quote in text
