"""Citations of PRC law: Chinese numerals, finding citations, the table, and each judgement."""

from __future__ import annotations

from datetime import date

import pytest

from reviewapp.text.citations import (
    BEYOND_LAST_ARTICLE,
    IN_FORCE,
    NO_ARTICLE,
    NO_LAW_NAMED,
    NOT_YET_IN_FORCE,
    REPEALED,
    UNKNOWN_LAW,
    check_citations,
    chinese_number,
    citation_verdict,
    find_citations,
    law_table,
    problem_span,
    read_laws,
)

TODAY = date(2026, 12, 3)


@pytest.mark.parametrize(
    ("numeral", "number"),
    [
        ("一百零七", 107),
        ("二十", 20),
        ("十", 10),
        ("十二", 12),
        ("二十一", 21),
        ("一百一十", 110),
        ("五百八十四", 584),
        ("一千二百六十", 1260),
        ("一千零五十", 1050),
        ("一千零五", 1005),
        ("两千", 2000),
        ("两百", 200),
        ("三百五", 350),
        ("一〇七", 107),
        ("零", 0),
        ("〇", 0),
        ("壹佰零柒", 107),
        ("贰拾", 20),
        ("1300", 1300),
        ("１２", 12),
        ("１３００", 1300),
        (" 十二 ", 12),
    ],
)
def test_chinese_numerals_read_as_numbers(numeral, number):
    assert chinese_number(numeral) == number


@pytest.mark.parametrize("text", ["", "条", "一二十", "十十", "百百", "零十", "12a", "一千两千"])
def test_what_is_not_one_number_reads_as_none(text):
    assert chinese_number(text) is None


def _found(text):
    return [(c.text, c.law.name if c.law else None, c.articles) for c in find_citations(text)]


CIVIL_CODE = "中华人民共和国民法典"
CONTRACT_LAW = "中华人民共和国合同法"


@pytest.mark.parametrize(
    ("text", "found"),
    [
        (
            "本合同依照《中华人民共和国合同法》订立。",
            [("《中华人民共和国合同法》", CONTRACT_LAW, ())],
        ),
        (
            "依据《合同法》第一百零七条承担责任。",
            [("《合同法》第一百零七条", CONTRACT_LAW, (107,))],
        ),
        ("依据《民法典》第584条赔偿。", [("《民法典》第584条", CIVIL_CODE, (584,))]),
        ("按《合同法》第107条第2款处理。", [("《合同法》第107条第2款", CONTRACT_LAW, (107,))]),
        (
            "按《民法典》第 五百八十四 条第一款第（二）项",
            [
                ("《民法典》第 五百八十四 条第一款第（二）项", CIVIL_CODE, (584,)),
            ],
        ),
        (
            "《民法典》合同编第五百七十七条",
            [("《民法典》合同编第五百七十七条", CIVIL_CODE, (577,))],
        ),
        (
            "《民法典》第五百八十四条、第五百八十五条",
            [
                ("《民法典》第五百八十四条、第五百八十五条", CIVIL_CODE, (584, 585)),
            ],
        ),
        ("《民法典》第577条至第584条", [("《民法典》第577条至第584条", CIVIL_CODE, (577, 584))]),
        ("《民法典》第１２条", [("《民法典》第１２条", CIVIL_CODE, (12,))]),
        ("依据民法典第五百八十四条计算。", [("民法典第五百八十四条", CIVIL_CODE, (584,))]),
        ("根据中华人民共和国合同法订立。", [("中华人民共和国合同法", CONTRACT_LAW, ())]),
        ("依照合同法的有关规定执行。", [("合同法", CONTRACT_LAW, ())]),
        (
            "《公司法（2023年修订）》第266条",
            [
                ("《公司法（2023年修订）》第266条", "中华人民共和国公司法", (266,)),
            ],
        ),
    ],
)
def test_citations_are_found_in_their_many_forms(text, found):
    assert _found(text) == found


def test_several_laws_in_one_sentence_each_keep_their_own_articles():
    text = "依据《合同法》第107条及《中华人民共和国公司法》第二十条、《个人信息保护法》的规定。"
    assert _found(text) == [
        ("《合同法》第107条", CONTRACT_LAW, (107,)),
        ("《中华人民共和国公司法》第二十条", "中华人民共和国公司法", (20,)),
        ("《个人信息保护法》", "中华人民共和国个人信息保护法", ()),
    ]


def test_an_article_of_the_contract_itself_is_not_the_laws():
    assert _found("依据《民法典》第584条及本合同第5条赔偿。") == [
        ("《民法典》第584条", CIVIL_CODE, (584,))
    ]


def test_an_implementing_regulation_is_not_the_law_it_implements():
    text = "《中华人民共和国中外合资经营企业法》和《中华人民共和国中外合资经营企业法实施条例》"
    assert [law for _, law, _ in _found(text)] == [
        "中华人民共和国中外合资经营企业法",
        "中华人民共和国中外合资经营企业法实施条例",
    ]


def test_an_interpretation_names_the_law_it_interprets_inside_its_own_name():
    for quotes in ("〈〉", "《》"):
        inner = f"{quotes[0]}中华人民共和国民法典{quotes[1]}"
        text = f"依据《最高人民法院关于适用{inner}合同编通则若干问题的解释》第二十条"
        (citation,) = find_citations(text)
        assert citation.law is not None and citation.law.name.endswith("合同编通则若干问题的解释")
        assert citation.articles == (20,)


@pytest.mark.parametrize(
    "text",
    [
        "由公司法定代表人签字。",
        "遵守劳动法律法规。",
        "《风险揭示书》的全部内容",
        "买卖合同法律关系",
    ],
)
def test_words_that_only_contain_a_name_are_no_citation(text):
    assert find_citations(text) == []


def test_a_reference_that_names_no_law_is_found_as_such():
    (citation,) = find_citations("费用按国家有关规定执行。")
    assert citation.text == "国家有关规定" and not citation.named and citation.law is None
    (finding,) = check_citations("按照有关法律、法规的规定办理。", today=TODAY)
    assert finding.kind == NO_LAW_NAMED


def test_a_statute_not_in_the_table_is_found_but_not_resolved():
    (citation,) = find_citations("按《深圳市投资信托基金管理暂行规定》执行。")
    assert citation.law is None
    assert check_citations(citation.text, today=TODAY)[0].kind == UNKNOWN_LAW


# ------------------------------------------------------------------------------ judgements


def _judged(text, today=TODAY):
    (finding,) = check_citations(text, today=today)
    return finding


def test_a_repealed_law_is_no_longer_in_force_and_names_its_successor():
    finding = _judged("依据《合同法》第一百零七条承担违约责任。")
    assert finding.kind == REPEALED and finding.is_problem
    assert finding.date == "2021-01-01" and finding.successor == "《民法典》"
    assert finding.describe() == (
        "《合同法》 is no longer in force since 2021-01-01, replaced by 《民法典》."
    )


@pytest.mark.parametrize(
    "law", ["民法通则", "民法总则", "物权法", "担保法", "婚姻法", "继承法", "收养法", "侵权责任法"]
)
def test_the_laws_the_civil_code_replaced(law):
    finding = _judged(f"《{law}》第一条")
    assert (finding.kind, finding.date, finding.successor) == (REPEALED, "2021-01-01", "《民法典》")


def test_a_chain_of_successors_names_the_law_in_force_now():
    finding = _judged("《中华人民共和国技术合同法》")
    assert (finding.date, finding.successor, finding.current) == (
        "1999-10-01",
        "《合同法》",
        "《民法典》",
    )
    assert "the law in force now is 《民法典》" in finding.describe()


def test_the_foreign_investment_enterprise_laws_gave_way_to_the_foreign_investment_law():
    for law in ("中外合资经营企业法", "中外合作经营企业法", "外资企业法"):
        finding = _judged(f"《中华人民共和国{law}》")
        assert (finding.date, finding.successor) == ("2020-01-01", "《外商投资法》")


def test_a_citation_is_judged_as_of_its_date():
    before = _judged("《合同法》第107条", today=date(2020, 6, 1))
    assert before.kind == IN_FORCE
    assert _judged("《增值税法》第一条", today=date(2025, 6, 1)).kind == NOT_YET_IN_FORCE
    assert _judged("《增值税法》第一条", today=date(2026, 1, 1)).kind == IN_FORCE


def test_an_article_beyond_the_last_is_flagged():
    finding = _judged("《民法典》第1300条")
    assert (finding.kind, finding.article, finding.last_article) == (
        BEYOND_LAST_ARTICLE,
        1300,
        1260,
    )
    assert "beyond the last article (1260)" in finding.describe()
    assert _judged("《民法典》第一千二百六十条").kind == IN_FORCE
    assert _judged("《民法典》第577条至第1261条").kind == BEYOND_LAST_ARTICLE


def test_a_law_without_an_article_number_is_incomplete():
    assert _judged("根据《中华人民共和国民法典》的相关规定").kind == NO_ARTICLE


def test_a_law_whose_article_count_is_unknown_is_not_range_checked():
    finding = _judged("《海商法》第九百条")
    assert finding.kind == IN_FORCE and finding.last_article == 0
    assert "not in the table" in finding.describe()


def test_a_valid_citation_is_fine():
    finding = _judged("依据《民法典》第584条")
    assert (finding.kind, finding.article, finding.is_problem) == (IN_FORCE, 584, False)


def test_the_verdict_rejects_on_any_wrong_citation_and_confirms_only_when_all_are_right():
    verdict = citation_verdict(
        check_citations("依据《民法典》第584条及《合同法》第107条。", today=TODAY)
    )
    assert verdict.state == "REJECTED"
    assert [f.kind for f in verdict.findings] == [REPEALED]
    confirmed = citation_verdict(
        check_citations("依据《民法典》第584条及国家有关规定。", today=TODAY)
    )
    assert confirmed.state == "CONFIRMED"
    assert [f.kind for f in confirmed.findings] == [IN_FORCE]
    for unsettled in (
        "依据《民法典》第584条及《公司法》。",
        "依据《某市条例》第5条。",
        "按国家有关规定。",
    ):
        assert citation_verdict(check_citations(unsettled, today=TODAY)).state is None


def test_the_problem_span_is_the_wrong_citation():
    text = "依据《民法典》第584条及《合同法》第107条。"
    start, end = problem_span(text, today=TODAY) or (0, 0)
    assert text[start:end] == "《合同法》第107条"
    assert problem_span("依据《民法典》第584条。", today=TODAY) is None


# ---------------------------------------------------------------------------------- table

REQUIRED = [
    "民法典", "合同法", "民法通则", "民法总则", "物权法", "担保法", "婚姻法", "继承法", "收养法",
    "侵权责任法", "经济合同法", "涉外经济合同法", "技术合同法", "公司法", "劳动合同法", "劳动法",
    "反垄断法", "反不正当竞争法", "专利法", "商标法", "著作权法", "个人信息保护法", "数据安全法",
    "网络安全法", "民事诉讼法", "仲裁法", "外商投资法", "中外合资经营企业法", "中外合作经营企业法",
    "外资企业法", "招标投标法", "政府采购法", "产品质量法", "消费者权益保护法", "电子商务法",
    "电子签名法", "票据法", "保险法", "证券法", "城市房地产管理法", "土地管理法", "建筑法",
    "海商法", "对外贸易法", "税收征收管理法", "企业所得税法", "个人所得税法", "增值税暂行条例",
]  # fmt: skip


def test_the_table_holds_the_laws_contracts_cite():
    table = law_table()
    missing = [name for name in REQUIRED if table.resolve(name) is None]
    assert missing == []
    code = table.resolve("民法典")
    assert code is not None and (code.effective, code.articles) == (date(2021, 1, 1), 1260)
    company = table.resolve("《中华人民共和国公司法》")
    assert company is not None and company.version == date(2024, 7, 1)


def test_every_row_of_the_table_is_consistent():
    laws = read_laws()
    table = law_table()
    names = {law.name for law in laws}
    assert len(names) == len(laws)
    for law in laws:
        assert law.name.startswith(("中华人民共和国", "最高人民法院")), law.name
        if law.version is not None:
            assert law.version >= law.effective, law.name
        if law.repealed is not None:
            assert law.repealed > law.effective, law.name
        assert law.successor == "" or law.repealed is not None, law.name
        if law.successor:
            assert law.successor in names, f"{law.name}: successor {law.successor}"
            successor = table.by_name[law.successor]
            assert successor.effective <= law.repealed, law.name  # type: ignore[operator]
        assert law.articles is None or law.articles > 0
        for short in law.short_names:
            assert table.resolve(short) == law, short


def test_a_bad_row_names_itself(tmp_path):
    path = tmp_path / "laws.csv"
    path.write_text(
        "# header\nname,short_names,kind,effective,version,repealed,successor,articles\n"
        "中华人民共和国某法,某法,law,2021-13-01,,,,\n",
        encoding="utf-8",
    )
    with pytest.raises(ValueError, match=r"row 2 \(中华人民共和国某法\)"):
        read_laws(path)
