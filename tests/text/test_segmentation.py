"""Splitting contract text into passages (reviewapp.text.segmentation)."""

from __future__ import annotations

import dataclasses
import json
import random
import re
from pathlib import Path

import pytest

from reviewapp.text.segmentation import MAX_PASSAGE_CHARS, Segment, segment

CUAD_DIR = Path(__file__).resolve().parents[2].parent / "shared" / "data" / "cuad"


def passages(text: str, page_spans: list[tuple[int, int]] | None = None) -> list[str]:
    return [text[s.start : s.end] for s in segment(text, page_spans)]


def find(segments: list[Segment], text: str, prefix: str) -> Segment:
    for s in segments:
        if text[s.start : s.end].startswith(prefix):
            return s
    raise AssertionError(f"no passage starts with {prefix!r}: {passages(text)}")


# Invisible characters that normalisation drops may fall between passages.
INVISIBLE = str.maketrans("", "", "\u200b\u200c\u200d\u2060\ufeff")


def assert_partition(text: str, segments: list[Segment]) -> None:
    """Passages are disjoint, in order, trimmed, and hold every visible character once."""
    position = 0
    for number, s in enumerate(segments):
        assert s.index == number
        assert position <= s.start < s.end <= len(text)
        assert not text[position : s.start].translate(INVISIBLE).strip(), "text left out"
        passage = text[s.start : s.end]
        assert passage == passage.strip()
        position = s.end
    assert not text[position:].translate(INVISIBLE).strip(), "text left out at the end"


# --- numbering styles ------------------------------------------------------------------------

ENGLISH_STYLES = [
    ("1.", "Preamble text.\n1. The Licensee shall pay the fees.\n2. The term is one year."),
    ("1.1", "Intro.\n1.1 The Licensee shall pay the fees.\n1.2 The term is one year."),
    ("1.1.1", "Intro.\n1.1.1 The Licensee shall pay.\n1.1.2 The term is one year."),
    ("(a)", "The Licensee shall:\n(a) pay the fees;\n(b) keep records."),
    ("(i)", "The Licensee shall:\n(i) pay the fees;\n(ii) keep records."),
    ("(A)", "The Licensee shall:\n(A) Pay the fees.\n(B) Keep records."),
    ("a)", "The Licensee shall:\na) pay the fees;\nb) keep records."),
    ("ARTICLE V", "Intro.\nARTICLE V\nThe Licensee shall pay the fees."),
    ("Article 5", "Intro.\nArticle 5 Payment\nThe Licensee shall pay the fees."),
    (
        "Section 12.3",
        "Intro.\nSection 12.3 Governing Law. This Agreement is governed by Delaware law.",
    ),
    ("SECTION 2", "Intro.\nSECTION 2. TERM\nThe term is one year."),
    ("Schedule A", "The parties sign below.\nSchedule A\nList of Products"),
    ("Exhibit B", "The parties sign below.\n\nExhibit B\n\nForm of Purchase Order"),
]


@pytest.mark.parametrize(("number", "text"), ENGLISH_STYLES, ids=[n for n, _ in ENGLISH_STYLES])
def test_each_english_numbering_style_opens_a_passage(number: str, text: str) -> None:
    segments = segment(text)
    assert number in [s.number for s in segments]
    opened = next(s for s in segments if s.number == number)
    assert text[opened.start :].startswith(number)


CHINESE_STYLES = [
    ("第一条", "本合同由双方签订。\n第一条 甲方应当按期付款。\n第二条 乙方应当按期交货。"),
    ("第十二条", "双方同意如下。\n第十二条 本合同自签字之日起生效。"),
    ("第1条", "双方同意如下。\n第1条 本合同自签字之日起生效。"),
    ("一、", "双方同意如下：\n一、甲方应当按期付款。\n二、乙方应当按期交货。"),
    ("（一）", "付款方式如下：\n（一）甲方应当按期付款。\n（二）乙方应当按期交货。"),
    ("(一)", "付款方式如下：\n(一)甲方应当按期付款。\n(二)乙方应当按期交货。"),
    ("1、", "付款方式如下：\n1、甲方应当按期付款。\n2、乙方应当按期交货。"),
]


@pytest.mark.parametrize(("number", "text"), CHINESE_STYLES, ids=[n for n, _ in CHINESE_STYLES])
def test_each_chinese_numbering_style_opens_a_passage(number: str, text: str) -> None:
    assert number in [s.number for s in segment(text)]


def test_chinese_clauses_run_together_on_one_line_are_split_after_full_stops() -> None:
    text = "第一条 甲方应当按期付款。第二条 乙方应当按期交货。第三条 本合同自签字之日起生效。"
    assert [s.number for s in segment(text)] == ["第一条", "第二条", "第三条"]


def test_chinese_article_cross_reference_is_not_a_clause() -> None:
    text = "甲方应当依照\n第三条的约定付款，并承担违约责任。"
    assert passages(text) == [text]


def test_clauses_run_together_in_flattened_pdf_text_are_split() -> None:
    text = (
        "The Parties hereby agree as follows: 1. Services. 1.1 Provision of Services. "
        "(a) Provider agrees to provide the Services. (b) Recipient may assign its rights. "
        "1.2 Standard of Service. Provider shall act in good faith."
    )
    segments = segment(text)
    # The titles "1. Services." and "1.1 Provision of Services." open the passage of (a).
    assert [text[s.start : s.end][:12] for s in segments] == [
        "The Parties ",
        "1. Services.",
        "(b) Recipien",
        "1.2 Standard",
    ]
    assert [s.number for s in segments] == ["", "(a)", "(b)", "1.2"]
    assert segments[1].heading == "1. Services > 1.1 Provision of Services"


def test_lowercase_list_items_inside_a_sentence_stay_in_the_sentence() -> None:
    text = (
        "Notwithstanding Section 1.2: (a) the Provider is liable; and (b) the Recipient may audit."
    )
    assert passages(text) == [text]


# --- headings --------------------------------------------------------------------------------

CONTRACT = """MASTER SERVICES AGREEMENT

ARTICLE V – TERMINATION

5.1 Term. This Agreement starts on the Effective Date and lasts two years.
5.2 Termination for Cause. Either party may terminate this Agreement if the other party
materially breaches it:
(a) the breaching party fails to cure within
30 days after written notice; or
(b) the breaching party becomes insolvent.
5.3 Either party may terminate for convenience on ninety days' notice.

ARTICLE VI
GOVERNING LAW
6.1 This Agreement is governed by the laws of the State of New York.
"""


def test_heading_lines_open_the_passage_of_the_clause_below_and_name_it() -> None:
    segments = segment(CONTRACT)
    # The title and the article heading above 5.1 have no text of their own: they open 5.1.
    term = find(segments, CONTRACT, "MASTER SERVICES AGREEMENT\n\nARTICLE V – TERMINATION\n\n5.1")
    assert not term.is_heading
    assert term.number == "5.1"
    assert term.heading == "ARTICLE V – TERMINATION > 5.1 Term"
    assert not any(s.is_heading for s in segments)


def test_nested_clauses_carry_the_titles_of_their_parents() -> None:
    segments = segment(CONTRACT)
    item = find(segments, CONTRACT, "(a) the breaching party")
    assert item.number == "(a)"
    assert item.heading == "ARTICLE V – TERMINATION > 5.2 Termination for Cause"
    assert find(segments, CONTRACT, "(b) the breaching").heading == item.heading


def test_a_new_clause_closes_the_title_of_the_previous_one() -> None:
    segments = segment(CONTRACT)
    assert find(segments, CONTRACT, "5.3 Either party").heading == "ARTICLE V – TERMINATION"


def test_title_on_the_clause_line_is_a_passage_not_a_heading() -> None:
    segments = segment(CONTRACT)
    clause = find(segments, CONTRACT, "5.2 Termination for Cause.")
    assert clause.number == "5.2"
    assert not clause.is_heading
    assert "Either party may terminate" in CONTRACT[clause.start : clause.end]


def test_article_label_and_title_on_two_lines_form_one_heading() -> None:
    segments = segment(CONTRACT)
    governed = find(segments, CONTRACT, "ARTICLE VI")
    assert CONTRACT[governed.start : governed.end].startswith(
        "ARTICLE VI\nGOVERNING LAW\n6.1 This Agreement"
    )
    assert governed.heading == "ARTICLE VI GOVERNING LAW"


@pytest.mark.parametrize(
    "line", ["ARTICLE V", "5. TERMINATION", "TERMINATION", "第五条 合同解除", "一、付款方式"]
)
def test_short_title_line_opens_the_passage_below_and_names_it(line: str) -> None:
    text = f"The parties agree.\n{line}\nThe Buyer shall pay the price in full. 买方应当付款。"
    segments = segment(text)
    assert [text[s.start : s.end] for s in segments] == ["The parties agree.", text[19:]]
    assert not segments[1].is_heading
    assert segments[1].heading == line.rstrip(".")


@pytest.mark.parametrize(
    "heading",
    ["9. LIMITATION OF LIABILITY", "ARTICLE V – TERMINATION", "第五条 排他合作", "Confidentiality"],
)
def test_a_bare_heading_is_never_a_passage_of_its_own(heading: str) -> None:
    text = f"Intro text ends here.\n\n{heading}\n\nThe Supplier shall not be liable for loss.\n"
    segments = segment(text)
    assert not any(s.is_heading for s in segments)
    clause = find(segments, text, heading)
    assert text[clause.start : clause.end].endswith("liable for loss.")


def test_headings_in_a_row_open_the_first_passage_with_content() -> None:
    text = "Intro.\nARTICLE 5\n5.1 Definitions\n(a) “Fee” means the fee.\n(b) “Term” means a year."
    segments = segment(text)
    assert [text[s.start : s.end] for s in segments] == [
        "Intro.",
        "ARTICLE 5\n5.1 Definitions\n(a) “Fee” means the fee.",
        "(b) “Term” means a year.",
    ]
    assert segments[1].number == "(a)"
    # "ARTICLE 5" alone and the title below it read as one heading.
    assert segments[1].heading == segments[2].heading == "ARTICLE 5 5.1 Definitions"


def test_a_heading_with_nothing_after_it_stays_alone() -> None:
    text = "1. The Buyer shall pay.\n\nSCHEDULE A\n"
    last = segment(text)[-1]
    assert (text[last.start : last.end], last.is_heading) == ("SCHEDULE A", True)


def test_a_table_of_contents_becomes_passages_of_headings_and_the_last_opens_the_clause() -> None:
    entries = [f"{n}. {title}" for n, title in enumerate(["DEFINITIONS", "TERM", "FEES"] * 12, 1)]
    text = "\n".join(["TABLE OF CONTENTS", *entries, "The Licensee shall pay the fees."])
    segments = segment(text)
    assert_partition(text, segments)
    assert all(s.end - s.start <= MAX_PASSAGE_CHARS for s in segments)
    assert len(segments) >= 2 and all(s.is_heading for s in segments[:-1])
    clause = segments[-1]
    assert not clause.is_heading
    # Only the last few headings open the clause's passage.
    assert 0 < clause.text.index("The Licensee") <= 200


def test_a_clause_that_its_heading_would_take_over_the_limit_is_split_shorter() -> None:
    sentence = "The Supplier shall deliver the Goods to the Buyer at the agreed place. "
    text = "Intro.\n\n12. DELIVERY AND ACCEPTANCE OF THE GOODS\n\n" + sentence * 8
    segments = segment(text)
    assert text[segments[1].start : segments[1].end].startswith("12. DELIVERY")
    assert all(s.end - s.start <= MAX_PASSAGE_CHARS for s in segments)


def test_segments_read_the_normalised_text_with_offsets_into_the_original() -> None:
    text = (
        "Intro.\n\n9.\u00a0LIMITATION\u00a0OF\u00a0LIABILITY\n\nThe con\ufb01dential corpo-\n"
        "ration is liable. The corporation pays.\n\n10.\u00a0NOTICES\n\nNotices are written."
    )
    segments = segment(text)
    assert_partition(text, segments)
    liability = find(segments, text, "9.\u00a0LIMITATION")
    assert liability.heading == "9. LIMITATION OF LIABILITY"
    assert liability.text == (
        "9. LIMITATION OF LIABILITY\n\nThe confidential corporation is liable. "
        "The corporation pays."
    )
    assert text[liability.end - len("pays.") : liability.end] == "pays."
    assert find(segments, text, "10.\u00a0NOTICES").number == "10."


def test_roman_items_nest_under_letters_but_letter_i_follows_h() -> None:
    text = (
        "9. General.\n(a) Payment. The Buyer shall pay.\n(i) Invoices. Invoices are monthly.\n"
        "(h) Notices. Notices are written.\n(i) Waiver. No waiver is implied."
    )
    segments = segment(text)
    assert find(segments, text, "(i) Invoices").heading == "9. General > (a) Payment > (i) Invoices"
    assert find(segments, text, "(i) Waiver").heading == "9. General > (i) Waiver"


def test_chinese_headings_nest() -> None:
    text = "第五条 合同解除\n一、解除条件\n（一）乙方逾期交货超过三十日的，甲方可以解除合同。"
    [item] = segment(text)
    assert item.heading == "第五条 合同解除 > 一、解除条件"
    assert item.number == "（一）"


def test_heading_path_is_kept_short() -> None:
    titles = [
        "ARTICLE I " + "GENERAL " * 9,
        "1. " + "DEFINITIONS " * 6,
        "1.1 " + "INTERPRETATION " * 5,
        "1.1.1 " + "CONSTRUCTION " * 5,
    ]
    text = "\n".join(titles) + "\n(a) The Licensee shall pay the fees."
    item = segment(text)[-1]
    assert sum(len(title) for title in titles) > 200
    assert 0 < len(item.heading) <= 200
    assert item.heading.endswith("1.1.1 " + " ".join(["CONSTRUCTION"] * 5))


def test_running_page_header_does_not_reset_heading_context() -> None:
    pages = [
        "Acme Confidential\n5.1 Scope. The Supplier shall deliver the Goods.",
        "Acme Confidential\n5.2 Price. The Buyer shall pay the price.",
        "Acme Confidential\n5.3 Risk. Risk passes on delivery.",
    ]
    text = "ARTICLE 5 SUPPLY\n" + "\n".join(pages)
    segments = segment(text)
    assert not any(s.is_heading for s in segments if "Confidential" in text[s.start : s.end])
    assert find(segments, text, "5.3 Risk").heading.startswith("ARTICLE 5 SUPPLY")


# --- line breaks from PDF extraction ---------------------------------------------------------


def test_lines_wrapped_mid_sentence_stay_one_passage() -> None:
    text = (
        "1.3 “Affiliate” means, with respect to a particular Party, a Person that controls, is\n"
        "controlled by or is under common control with such Party. For the purposes of this\n"
        "definition, the word “control” means the actual power, either directly or indirectly\n"
        "through one (1) or more intermediaries, to direct the management of such entity.\n"
        "1.4 “Agreement” has the meaning set forth in the preamble."
    )
    assert [s.number for s in segment(text)] == ["1.3", "1.4"]


def test_number_at_the_start_of_a_wrapped_line_is_not_a_clause() -> None:
    text = (
        "The Licensee shall pay each invoice within\n"
        "30 days after receipt, and any amount set out in Section\n"
        "12.3 hereof, and the fee for\n"
        "2. Edition copies as stated in\n"
        "Schedule A attached hereto."
    )
    assert passages(text) == [text]


def test_label_after_a_finished_line_starts_a_passage() -> None:
    text = "The Licensee shall pay each invoice.\n2. Delivery. The Licensor shall deliver."
    assert [s.number for s in segment(text)] == ["", "2."]


def test_numbered_title_after_a_short_unfinished_line_starts_a_passage() -> None:
    # PDF text: a notices block's last address line, then the next article's title.
    text = (
        "Notices shall be sent by courier or by fax to the addresses below, and a notice sent by\n"
        "fax is received on the day it is sent, if that is a business day where it is received.\n"
        "Boivin Desbiens Senecal\n"
        "Attention: Thomas Desbiens\n"
        "10. Term and Termination.\n"
        "10.1 This Development Agreement will begin on the Effective Date and continue for four\n"
        "(4) years unless earlier terminated pursuant to Section 10.2 of this Agreement."
    )
    term = find(segment(text), text, "10. Term and Termination.")
    assert term.heading == "10. Term and Termination"
    assert "10.1 This Development" in term.text and "Attention" not in term.text


def test_blank_lines_separate_paragraphs() -> None:
    text = "WHEREAS, the Licensor owns the Marks.\n\nWHEREAS, the Licensee wishes to use them."
    assert passages(text) == [
        "WHEREAS, the Licensor owns the Marks.",
        "WHEREAS, the Licensee wishes to use them.",
    ]


def test_short_last_line_of_a_wrapped_paragraph_ends_it() -> None:
    line = "The Licensee shall use the Marks only in the form approved by the Licensor in writing"
    text = f"{line}\nand for no other purpose.\n{line}\nand in no other territory."
    assert len(segment(text)) == 2


def test_wrapped_cross_reference_to_a_schedule_is_not_a_heading() -> None:
    text = (
        "1.4 “Affinity” means the articles identified in detail in\n"
        "Schedule A.\n"
        "1.5 “Article” is defined in Section 2.2(i) hereof."
    )
    segments = segment(text)
    assert [s.number for s in segments] == ["1.4", "1.5"]
    assert not any(s.is_heading for s in segments)


def test_sentence_broken_by_a_running_footer_stays_one_passage() -> None:
    footer = "Source: ACME CORP, 10-K, 8/22/2019"
    text = (
        f"1. Scope. The Supplier shall deliver the Goods.\n\n{footer}\n\n"
        "2. Price. The Buyer shall pay the price stated in the purchase order, together with\n\n"
        f"{footer}\n\n"
        "Taxes and duties, within thirty days.\n\n"
        f"{footer}\n\n3. Risk. Risk passes on delivery."
    )
    price = find(segment(text), text, "2. Price.")
    assert text[price.start : price.end].endswith("within thirty days.")


def test_capitalised_title_run_in_with_its_text_becomes_a_heading() -> None:
    text = (
        "The parties agree as follows: ARTICLE 1 DEFINITIONS 1.1 “AAA” has the meaning set "
        "forth in Section 12.3. RECITALS A. Recipient wishes to engage the Provider."
    )
    segments = segment(text)
    assert [(text[s.start : s.end][:24], s.number) for s in segments] == [
        ("The parties agree as fol", ""),
        ("ARTICLE 1 DEFINITIONS 1.", "1.1"),
        ("RECITALS A. Recipient wi", "A."),
    ]
    assert segments[1].heading == "ARTICLE 1 DEFINITIONS"
    assert segments[2].heading.endswith("RECITALS")


def test_greek_question_mark_from_pdf_extraction_ends_a_list_item() -> None:
    text = "6.1 Actively promote the Products\u037e\n6.2 Employ adequate staff\u037e and"
    assert [s.number for s in segment(text)] == ["6.1", "6.2"]


def test_non_breaking_spaces_do_not_hide_labels() -> None:
    text = "Intro.\n1.1\u00a0“Sale” is defined in Section\u00a011.8.\n1.2\u00a0“Fee” is the fee."
    assert [s.number for s in segment(text)] == ["", "1.1", "1.2"]


# --- fragments -------------------------------------------------------------------------------


def test_lone_label_is_joined_to_the_text_that_follows() -> None:
    text = "The Licensee shall:\n\n(a)\n\nPay the fees when due.\n\n(b)\n\nKeep accurate records."
    segments = segment(text)
    assert [text[s.start : s.end] for s in segments][1:] == [
        "(a)\n\nPay the fees when due.",
        "(b)\n\nKeep accurate records.",
    ]
    assert [s.number for s in segments] == ["", "(a)", "(b)"]


def test_stray_page_number_joins_the_passage_before_it() -> None:
    text = "1. The Licensee shall pay the fees.\n\n3\n\n2. The Licensor shall deliver."
    assert passages(text) == [
        "1. The Licensee shall pay the fees.\n\n3",
        "2. The Licensor shall deliver.",
    ]


# --- long passages ---------------------------------------------------------------------------


def sentence(n: int, length: int = 120) -> str:
    words = f"The Supplier shall perform obligation number {n} in a timely manner"
    return (words + " and" * ((length - len(words)) // 4))[: length - 1].rstrip() + "."


def test_long_paragraph_is_split_at_sentence_ends_within_the_limit() -> None:
    sentences = [sentence(n) for n in range(60)]
    text = "7.1 " + " ".join(sentences)
    segments = segment(text)
    assert len(segments) > 1
    assert all(s.end - s.start <= MAX_PASSAGE_CHARS for s in segments)
    assert segments[0].number == "7.1"
    assert all(s.number == "" for s in segments[1:])
    for s in segments:
        assert text[s.start : s.end].endswith(".")
        assert text[s.start : s.end].startswith(("7.1", "The Supplier"))


def test_single_very_long_sentence_stays_whole() -> None:
    long_sentence = "The Licensee shall " + "keep and maintain the records, " * 100 + "always."
    assert len(long_sentence) > 3000
    text = f"{sentence(1)} {long_sentence} {sentence(2)}"
    assert long_sentence in passages(text)


@pytest.mark.parametrize(
    "abbreviation",
    ["Acme Inc. Holdings", "Acme Ltd. Holdings", "No. 5 Warehouse", "U.S. Patent Office", "Sec. 5"],
)
def test_abbreviations_are_not_sentence_ends(abbreviation: str) -> None:
    before = " ".join(sentence(n) for n in range(11))
    after = " ".join(sentence(n) for n in range(11, 14))
    text = f"{before} The Goods go to {abbreviation} Building on request. {after}"
    tail = abbreviation.split(". ")[1]
    for passage in passages(text):
        assert not passage.startswith(tail)


def test_initials_and_latin_abbreviations_are_not_sentence_ends() -> None:
    filler = " ".join(sentence(n) for n in range(12))
    text = f"{filler} Notices go to J. Smith, e.g. By courier, i.e. Not by e-mail. {filler}"
    for passage in passages(text):
        assert not passage.startswith(("Smith", "By courier", "Not by"))


def test_long_chinese_paragraph_is_split_at_full_stops() -> None:
    text = "乙方应当按照合同约定的时间和地点交付货物并承担运输费用。" * 80
    pieces = passages(text)
    assert len(pieces) > 1
    assert all(len(p) <= MAX_PASSAGE_CHARS and p.endswith("。") for p in pieces)


# --- pages and offsets -----------------------------------------------------------------------


def test_pages_come_from_page_spans() -> None:
    page_one = "1. The Licensee shall pay the fees."
    page_two = "2. The Licensor shall deliver the Goods.\n3. Risk passes on delivery."
    text = page_one + "\n" + page_two
    spans = [(0, len(page_one)), (len(page_one) + 1, len(text))]
    assert [s.page for s in segment(text, spans)] == [1, 2, 2]


def test_without_page_spans_everything_is_on_page_one() -> None:
    assert {s.page for s in segment(CONTRACT)} == {1}


def test_label_at_the_top_of_a_page_starts_a_passage_after_a_footer() -> None:
    page_one = "1.7 “WAC” means the wholesale acquisition cost.\nSource: ACME INC., 10-Q, 1/9/2020"
    page_two = "1.8 “API” means an active ingredient."
    text = f"{page_one}\n{page_two}"
    segments = segment(text, [(0, len(page_one)), (len(page_one) + 1, len(text))])
    assert find(segments, text, "1.8").page == 2


def test_offsets_point_into_the_original_text() -> None:
    text = "  \n\n  ARTICLE I  \n\n 1.1  The Licensee shall pay.  \n\n\n(a) On time.   "
    segments = segment(text)
    assert_partition(text, segments)
    assert [text[s.start : s.end] for s in segments] == [
        "ARTICLE I  \n\n 1.1  The Licensee shall pay.",
        "(a) On time.",
    ]


def test_segments_are_immutable() -> None:
    segments = segment("1. The Licensee shall pay.")
    with pytest.raises(dataclasses.FrozenInstanceError):
        segments[0].start = 5  # type: ignore[misc]


@pytest.mark.parametrize("text", ["", "   \n\n\t  ", "\n" * 1000])
def test_blank_text_has_no_passages(text: str) -> None:
    assert segment(text) == []


# --- covering the text -----------------------------------------------------------------------

PIECES = [
    "1.",
    "1.1",
    "(a)",
    "(iv)",
    "ARTICLE V",
    "Section 2.3",
    "第一条",
    "一、",
    "（二）",
    "1、",
    "The Licensee shall pay.",
    "within",
    "30 days",
    "Inc.",
    "U.S.",
    "TERMINATION",
    "。",
    "；",
    "\n",
    "\n\n",
    "  ",
    "\u00a0",
    "\f",
    "shall not",
    "Schedule A",
    "e.g.",
    "[***]",
    "“Fee”",
]


@pytest.mark.parametrize("seed", range(40))
def test_passages_cover_random_text_exactly_once(seed: int) -> None:
    rng = random.Random(seed)
    text = " ".join(rng.choice(PIECES) for _ in range(rng.randint(0, 400)))
    assert_partition(text, segment(text))


def test_passages_cover_the_sample_contract_exactly_once() -> None:
    assert_partition(CONTRACT, segment(CONTRACT))


def cuad_texts(count: int) -> list[str]:
    if not (CUAD_DIR / "labels.jsonl").is_file():
        pytest.skip(f"CUAD data not found at {CUAD_DIR} (expected ../shared/data/cuad)")
    with (CUAD_DIR / "labels.jsonl").open(encoding="utf-8") as handle:
        names = [json.loads(line)["txt"] for line in handle]
    chosen = random.Random(7).sample(names, count)
    return [(CUAD_DIR / name).read_text(encoding="utf-8") for name in chosen]


@pytest.mark.cuad
def test_passages_cover_cuad_contracts_exactly_once() -> None:
    for text in cuad_texts(10):
        segments = segment(text)
        assert_partition(text, segments)
        for s in segments:
            if s.end - s.start > MAX_PASSAGE_CHARS:
                inner = text[s.start : s.end - 1]
                assert not re.search(r"[a-z]{3}[.!?] +[A-Z][a-z]+ [a-z]+ ", inner), "splittable"


# --- hostile input ---------------------------------------------------------------------------

HOSTILE = {
    "one megabyte without newlines or punctuation": "word " * 200_000,
    "one megabyte of dotted numbers": "1." * 500_000,
    "one megabyte of spaced numbers": "1.1 " * 250_000,
    "a hundred thousand blank lines": "\n" * 100_000,
    "a hundred thousand blank lines between words": "x\n\n" * 100_000,
    "one megabyte without spaces": "a" * 1_000_000,
    "initials without end": "A. " * 300_000,
    "labels without text": "(a)\n" * 100_000,
}


@pytest.mark.timeout(20)
@pytest.mark.parametrize("name", HOSTILE)
def test_hostile_input_is_segmented_and_covered(name: str) -> None:
    text = HOSTILE[name]
    segments = segment(text)
    assert_partition(text, segments)
