from reviewapp.reviews.output_rules import draft_flags

CONTRACT = "The Supplier shall indemnify the Buyer against all losses arising from defects."


def test_quote_not_in_the_contract_is_flagged():
    draft = 'Clause 4 says "the Buyer may terminate at any time without notice".'
    flags = draft_flags(draft, CONTRACT)
    assert [f["kind"] for f in flags] == ["QUOTE_NOT_IN_CONTRACT"]


def test_quote_found_despite_different_line_breaks_is_not_flagged():
    draft = "It says “the Supplier shall indemnify\n the Buyer against all losses”."
    assert draft_flags(draft, CONTRACT) == []


def test_statute_without_article_and_date_is_flagged():
    flags = draft_flags("This may breach the Consumer Rights Act.", CONTRACT)
    assert flags[0]["kind"] == "CITATION_INCOMPLETE"
    assert "article number and effective date" in flags[0]["message"]


def test_statute_with_section_and_year_passes():
    assert draft_flags("See the Consumer Rights Act 2015, section 31.", CONTRACT) == []


def test_chinese_citation_needs_article_and_date():
    assert (
        draft_flags("根据《民法典》的规定，违约金过高。", CONTRACT)[0]["kind"]
        == "CITATION_INCOMPLETE"
    )
    assert draft_flags("根据《民法典》第585条（2021年1月1日施行）。", CONTRACT) == []
