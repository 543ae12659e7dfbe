from __future__ import annotations

import time

import pytest

from reviewapp.text.contract_type import detect_contract_type, detect_language
from reviewapp.text.engine import (
    CONFIRMED,
    PENDING,
    REJECTED,
    RuleError,
    RuleHit,
    SimplePassage,
    compile_playbook,
    extract_facts,
    lint_rule,
    load_playbook,
    load_playbook_data,
    offline_verdict,
    passage_states,
    scan,
)
from reviewapp.text.engine.model import Near, Rule
from reviewapp.text.engine.scanner import PREFILTER_MAX_BYTES

PLAYBOOKS = (
    "reviewapp/rules/playbooks/commercial-en.yaml",
    "reviewapp/rules/playbooks/commercial-zh.yaml",
)


def playbook(*rules: dict, name: str = "test", version: str = "1", language: str = "en"):
    base = {"category": "Anti-Assignment", "severity": "medium", "action": "verify"}
    return load_playbook_data(
        {
            "name": name,
            "version": version,
            "language": language,
            "rules": [{**base, **rule} for rule in rules],
        }
    )


def passages(*texts: str, headings: tuple[str, ...] = ()) -> tuple[str, list[SimplePassage]]:
    """Join ``texts`` with blank lines; one passage per text, with optional headings."""
    document, segments = "", []
    for i, text in enumerate(texts):
        if document:
            document += "\n\n"
        heading = headings[i] if i < len(headings) else ""
        segments.append(SimplePassage(i, len(document), len(document) + len(text), heading))
        document += text
    return document, segments


def fired(pb, *texts: str, headings: tuple[str, ...] = (), contract_type=None) -> list[RuleHit]:
    document, segments = passages(*texts, headings=headings)
    return scan(compile_playbook(pb), document, segments, contract_type=contract_type)


# --------------------------------------------------------------------------- rule features


def test_regex_pattern_fires_with_absolute_offsets():
    pb = playbook({"id": "t.assign", "patterns": [r"without (?:the )?prior written consent"]})
    document, segments = passages(
        "The parties agree as follows.",
        "Neither party may assign this Agreement without the prior written consent of the other.",
    )
    hits = scan(compile_playbook(pb), document, segments)
    assert [(h.rule_id, h.segment_index) for h in hits] == [("t.assign", 1)]
    hit = hits[0]
    assert document[hit.match_start : hit.match_end] == "without the prior written consent"


def test_patterns_are_case_insensitive():
    pb = playbook({"id": "t.assign", "patterns": ["may not assign"]})
    assert fired(pb, "LICENSEE MAY NOT ASSIGN THIS AGREEMENT.")


def test_offsets_are_characters_not_bytes_in_non_ascii_text():
    pb = playbook({"id": "t.fee", "patterns": ["违约金"]}, language="zh")
    document, segments = passages("甲方与乙方 — “重要”条款。", "乙方应支付违约金。")
    hit = scan(compile_playbook(pb), document, segments)[0]
    assert document[hit.match_start : hit.match_end] == "违约金"


def test_proximity_fires_within_n_words_and_not_beyond():
    pb = playbook(
        {
            "id": "t.near",
            "near": [{"terms_a": ["assign"], "terms_b": ["consent"], "within": 5}],
        }
    )
    close = "Licensee may assign this contract only with consent."  # 4 words apart
    far = "Licensee may assign this contract to a purchaser of the business with consent."
    assert fired(pb, close)
    assert not fired(pb, far)


def test_proximity_works_in_either_order_and_counts_chinese_characters_as_words():
    pb = playbook(
        {"id": "t.near", "near": [{"terms_a": ["转让"], "terms_b": ["同意"], "within": 6}]},
        language="zh",
    )
    assert fired(pb, "未经甲方书面同意，乙方不得转让。")  # 同意 ... 转让: 5 characters between
    assert not fired(pb, "未经甲方书面同意，乙方不得将本合同项下的任何权利转让。")


def test_heading_scope_matches_the_heading_not_the_passage():
    pb = playbook(
        {"id": "t.audit", "category": "Audit Rights", "scope": "heading", "patterns": ["audit"]}
    )
    hits = fired(
        pb,
        "Licensor may review the books once a year.",
        "The auditor shall be independent.",
        headings=("12. Audit > 12.1 Records", "13. Notices"),
    )
    assert [h.segment_index for h in hits] == [0]


def test_heading_scope_hit_points_at_the_whole_passage():
    pb = playbook({"id": "t.audit", "scope": "heading", "patterns": ["audit"]})
    document, segments = passages("Licensor may review the books.", headings=("Audit",))
    hit = scan(compile_playbook(pb), document, segments)[0]
    assert (hit.match_start, hit.match_end) == (segments[0].start, segments[0].end)


def test_either_scope_matches_heading_or_passage():
    pb = playbook({"id": "t.ins", "scope": "either", "patterns": ["insurance"]})
    hits = fired(
        pb,
        "Supplier shall maintain insurance.",
        "Limits are set out in Schedule 3.",
        "Payment is due in thirty days.",
        headings=("", "9. Insurance", "10. Payment"),
    )
    assert [h.segment_index for h in hits] == [0, 1]


def test_passage_scope_ignores_the_heading():
    pb = playbook({"id": "t.ins", "patterns": ["insurance"]})
    assert not fired(pb, "Limits are set out in Schedule 3.", headings=("9. Insurance",))


def test_exception_suppresses_the_rule_in_that_passage():
    pb = playbook(
        {
            "id": "t.assign",
            "patterns": ["assign"],
            "exceptions": ["assignment for the benefit of creditors"],
        }
    )
    hits = fired(
        pb,
        "Either party may terminate if the other makes an assignment for the benefit of creditors.",
        "Neither party may assign this Agreement.",
    )
    assert [h.segment_index for h in hits] == [1]


def test_contract_types_select_rules_and_no_type_applies_all():
    pb = playbook(
        {"id": "t.all", "patterns": ["minimum"]},
        {"id": "t.supply", "patterns": ["minimum"], "contract_types": ["Supply", "Distributor"]},
    )
    text = "Distributor shall purchase a minimum of 100 units per year."
    assert {h.rule_id for h in fired(pb, text, contract_type="Supply")} == {"t.all", "t.supply"}
    assert {h.rule_id for h in fired(pb, text, contract_type="License")} == {"t.all"}
    assert {h.rule_id for h in fired(pb, text)} == {"t.all", "t.supply"}


CITATION_RULE = {
    "id": "t.cite",
    "category": "Legal Citation",
    "patterns": ["《[^《》]{1,40}法(?:典)?》"],
    "requires_nearby": ["第[零一二三四五六七八九十百千\\d]+条", "(?:19|20)\\d{2}年"],
    "nearby_chars": 30,
}


def test_requires_nearby_fires_on_a_citation_missing_its_date():
    pb = playbook(CITATION_RULE, language="zh")
    assert fired(pb, "依据《民法典》第1184条，按损失发生时的市场价格计算。")
    assert fired(pb, "本合同依据《中华人民共和国民法典》订立。")


def test_requires_nearby_is_silent_when_article_and_date_are_present():
    pb = playbook(CITATION_RULE, language="zh")
    assert not fired(pb, "依据《民法典》第1184条（2021年1月1日起施行），按市场价格计算。")


def test_requires_nearby_checks_every_citation_in_the_passage():
    pb = playbook(CITATION_RULE, language="zh")
    document, segments = passages(
        "依据《民法典》第1184条（2021年1月1日起施行）计算；另见《公司法》的有关规定。"
    )
    hit = scan(compile_playbook(pb), document, segments)[0]
    assert document[hit.match_start : hit.match_end] == "《公司法》"


def test_unless_nearby_drops_a_match_with_a_neighbouring_term():
    pb = playbook(
        {
            "id": "t.excl",
            "category": "Exclusivity",
            "patterns": ["exclusive"],
            "unless_nearby": ["non-exclusive", "exclusive of"],
            "nearby_chars": 10,
        }
    )
    assert not fired(pb, "Licensor grants a non-exclusive licence. Fees are exclusive of VAT.")
    assert fired(pb, "Licensor appoints Distributor as its exclusive distributor.")


def test_secondary_rule_fires_only_where_a_listed_category_fired():
    pb = playbook(
        {"id": "t.excl", "category": "Exclusivity", "patterns": ["exclusive distributor"]},
        {
            "id": "t.carve",
            "category": "Competitive Restriction Exception",
            "patterns": ["notwithstanding"],
            "only_with": ["Exclusivity"],
        },
    )
    hits = fired(
        pb,
        "Notwithstanding the above, X is the exclusive distributor except for online sales.",
        "Notwithstanding Section 4, invoices are due in thirty days.",
    )
    assert [(h.rule_id, h.segment_index) for h in hits] == [("t.excl", 0), ("t.carve", 0)]


def test_secondary_rules_do_not_enable_each_other():
    pb = playbook(
        {"id": "t.a", "category": "Exclusivity", "patterns": ["alpha"], "only_with": ["Insurance"]},
        {"id": "t.b", "category": "Insurance", "patterns": ["beta"], "only_with": ["Exclusivity"]},
    )
    assert fired(pb, "alpha beta") == []


def test_hostile_passage_still_finds_a_trigger_at_its_very_end():
    pb = playbook({"id": "t.assign", "patterns": ["without (?:the )?prior written consent"]})
    text = "lorem ipsum " * 120_000 + "no assignment without prior written consent."
    [hit] = fired(pb, text)
    assert text[hit.match_start : hit.match_end] == "without prior written consent"


# --------------------------------------------------------------------------- facts and detection


def test_facts_use_the_value_group_and_prefer_matching_headings():
    pb = load_playbook_data(
        {
            "name": "facts",
            "version": "1",
            "language": "en",
            "rules": [{"id": "t.x", "category": "Insurance", "patterns": ["insurance"]}],
            "facts": [
                {
                    "category": "Governing Law",
                    "prefer_headings": ["governing law"],
                    "patterns": [r"laws of (?:the )?(?P<value>(?:State of )?(?-i:[A-Z]\w+))"],
                },
                {"category": "Document Name", "first_chars": 40, "patterns": ["agreement"]},
            ],
        }
    )
    document, segments = passages(
        "Each party complies with the laws of Texas where it operates.",
        "This Agreement is governed by the laws of the State of Delaware.",
        headings=("3. Compliance", "14. Governing Law"),
    )
    facts = extract_facts(compile_playbook(pb), document, segments)
    law = facts["Governing Law"]
    assert law["value"] == "State of Delaware"
    assert document[law["start"] : law["end"]] == "State of Delaware"
    assert "Document Name" not in facts  # "Agreement" first appears after the first 40 chars


def test_detect_contract_type_from_the_title():
    assert detect_contract_type("EXHIBIT 10.2\n\nEXCLUSIVE DISTRIBUTOR AGREEMENT\n\n...") == (
        "Distributor"
    )
    assert detect_contract_type("SOFTWARE LICENSE AND HOSTING AGREEMENT\n") == "Hosting"
    assert detect_contract_type("Minutes of the board meeting held on Monday.") == "Other"


def test_detect_contract_type_of_a_chinese_contract():
    assert detect_contract_type("技术服务合同\n\n甲方：某某有限公司\n") == "Service"
    assert detect_contract_type("独家经销协议\n\n第一条 经销区域\n") == "Distributor"
    assert detect_contract_type("软件许可及技术服务合同\n") == "Service"
    assert detect_contract_type("商标使用许可合同\n") == "License"
    assert detect_contract_type("会议纪要：双方讨论了下一步工作。") == "Other"


def test_detect_language():
    assert detect_language("The Licensee shall pay royalties quarterly.") == "en"
    assert detect_language("乙方应按季度向甲方支付许可费。") == "zh"


# --------------------------------------------------------------------------- states


def hit(segment_index: int, action: str) -> RuleHit:
    return RuleHit("r." + action, "Anti-Assignment", action, "medium", segment_index, 0, 1)


def test_passage_states_reject_wins_over_verify_and_no_hit_is_confirmed():
    _document, segments = passages("a", "b", "c", "d")
    hits = [hit(1, "verify"), hit(2, "verify"), hit(2, "reject"), hit(3, "human")]
    assert passage_states(segments, hits) == [CONFIRMED, PENDING, REJECTED, PENDING]


def test_offline_verdict_prefers_reject_then_confirm():
    pb = playbook(
        {
            "id": "t.assign",
            "patterns": ["assign"],
            "confirm_if": ["not be unreasonably withheld"],
            "reject_if": ["sole discretion"],
        }
    )
    compiled = compile_playbook(pb)
    ok = offline_verdict(compiled, "t.assign", "Consent shall not be unreasonably withheld.")
    assert (ok.state, ok.quote) == ("CONFIRMED", "not be unreasonably withheld")
    bad = offline_verdict(
        compiled, "t.assign", "Consent in its sole discretion, not be unreasonably withheld."
    )
    assert bad.state == "REJECTED"
    assert offline_verdict(compiled, "t.assign", "Assignment needs consent.") is None


# --------------------------------------------------------------------------- lint


def lint(**fields) -> list[str]:
    base = {"id": "t.rule", "category": "Anti-Assignment", "severity": "medium", "language": "en"}
    return lint_rule(Rule(**{**base, **fields}))


def test_lint_accepts_a_sound_rule():
    assert lint(patterns=("without (?:the )?prior written consent",)) == []


def test_lint_rejects_lookahead_with_a_clear_message():
    [problem] = lint(patterns=("assign(?!ment)",))
    assert problem.startswith("patterns[0]: uses a lookaround (`(?!`)")
    assert "RE2 does not support" in problem


def test_lint_rejects_lookbehind_and_backreference():
    assert "lookaround" in lint(patterns=("(?<=non-)exclusive",))[0]
    assert "backreference" in lint(patterns=(r"(\w+) and \1",))[0]


def test_lint_rejects_a_pattern_matching_the_empty_string():
    assert lint(patterns=("(?:assign)?",)) == [
        "patterns[0]: matches the empty string; require at least one character"
    ]


def test_lint_rejects_a_pattern_that_matches_ordinary_boilerplate():
    [problem] = lint(patterns=(r"\bthe\b|[。，]",))
    assert "too broad" in problem


def test_lint_rejects_unbounded_proximity():
    [problem] = lint(near=(Near(("assign",), ("consent",), 500),))
    assert problem == "near[0].within: must be between 1 and 50 words, got 500"


def test_lint_rejects_a_rule_that_can_never_fire():
    assert lint() == ["patterns: a rule needs at least one pattern or near clause"]


def test_lint_reports_invalid_regex_in_exceptions():
    [problem] = lint(patterns=("assign",), exceptions=("(unclosed",))
    assert problem.startswith("exceptions[0]: does not compile")


# --------------------------------------------------------------------------- loading


def test_validation_error_names_the_rule_and_field():
    with pytest.raises(RuleError, match=r"rule t\.bad: severity: 'urgent' is not one of"):
        playbook({"id": "t.bad", "severity": "urgent", "patterns": ["x"]})


def test_validation_error_names_the_rule_for_a_bad_pattern():
    with pytest.raises(RuleError, match=r"rule t\.look: patterns\[1\]: uses a lookaround"):
        playbook({"id": "t.look", "patterns": ["assign", "assign(?=ment)"]})


def test_validation_rejects_unknown_fields_and_duplicate_ids():
    with pytest.raises(RuleError, match=r"rule t\.x: pattern: unknown field"):
        playbook({"id": "t.x", "pattern": "assign"})
    with pytest.raises(RuleError, match=r"rule t\.x: id: duplicate rule id"):
        playbook({"id": "t.x", "patterns": ["a1"]}, {"id": "t.x", "patterns": ["b2"]})


def test_validation_rejects_a_rule_without_id_by_position():
    with pytest.raises(RuleError, match=r"rule #2: id: missing"):
        playbook({"id": "t.x", "patterns": ["assign"]}, {"patterns": ["consent"]})


@pytest.mark.parametrize("path", PLAYBOOKS)
def test_default_playbooks_load_and_lint_clean(path):
    pb = load_playbook(path)
    assert pb.rules
    assert all(lint_rule(rule) == [] for rule in pb.rules)


def test_load_playbook_reads_yaml(tmp_path):
    path = tmp_path / "p.yaml"
    path.write_text(
        "name: p\nversion: 2\nlanguage: en\nrules:\n"
        "  - id: p.a\n    category: Insurance\n    patterns: ['insurance']\n",
        encoding="utf-8",
    )
    pb = load_playbook(path)
    assert (pb.name, pb.version, pb.rules[0].severity, pb.rules[0].action) == (
        "p",
        "2",
        "medium",
        "verify",
    )


# --------------------------------------------------------------------------- compile cache


def test_compile_is_cached_by_name_and_version():
    first = playbook({"id": "t.a", "patterns": ["assign"]}, name="cache", version="1")
    same = playbook({"id": "t.a", "patterns": ["assign"]}, name="cache", version="1")
    assert compile_playbook(first) is compile_playbook(same)
    newer = playbook({"id": "t.a", "patterns": ["assign"]}, name="cache", version="2")
    assert compile_playbook(newer) is not compile_playbook(first)


def test_the_compile_cache_keeps_only_the_most_recently_used():
    from reviewapp.text.engine import compiler

    kept = playbook({"id": "t.a", "patterns": ["assign"]}, name="kept", version="1")
    first = compile_playbook(kept)
    for n in range(3 * compiler._CACHE_SIZE):
        compile_playbook(playbook({"id": "t.a", "patterns": ["assign"]}, name=f"n{n}"))
        compile_playbook(kept)  # used all along: never the one evicted
    assert len(compiler._CACHE) == compiler._CACHE_SIZE
    assert compile_playbook(kept) is first
    assert ("n0", "1") not in compiler._CACHE


def test_an_edited_playbook_with_the_same_version_is_not_served_stale():
    old = playbook({"id": "t.a", "patterns": ["assign"]}, name="edited", version="1")
    new = playbook({"id": "t.a", "patterns": ["transfer"]}, name="edited", version="1")
    compile_playbook(old)
    assert fired(new, "No transfer without consent.")


# --------------------------------------------------------------------------- hostile input

HOSTILE = {
    "one letter": "a" * 10**6,
    "repeated keywords": "assign consent exclusive insurance audit minimum " * 20000,
    "nested parentheses": "(" * 500_000 + ")" * 500_000,
    "chinese": "甲方应当保密，未经同意不得转让，违约金为《民法典》规定的数额。" * 30000,
    "citations without dates": "《民法典》" * 200_000,
}


@pytest.mark.timeout(60)
@pytest.mark.parametrize("path", PLAYBOOKS)
@pytest.mark.parametrize("kind", sorted(HOSTILE))
def test_hostile_one_megabyte_passage_scans_in_under_a_second(path, kind):
    text = HOSTILE[kind][: 10**6]
    compiled = compile_playbook(load_playbook(path))
    assert len(text.encode("utf-8")) > PREFILTER_MAX_BYTES
    started = time.thread_time()  # CPU time: other processes on a busy machine do not count
    scan(compiled, text, [SimplePassage(0, 0, len(text), heading=text[:5000])])
    assert time.thread_time() - started < 1.0
