"""One normalised text for rules and segmentation, offsets kept (reviewapp.text.normalise)."""

from __future__ import annotations

import random

import pytest

from reviewapp.text.engine import Rule, compile_playbook, extract_facts, offline_verdict, scan
from reviewapp.text.engine.model import FactExtractor, Playbook, SimplePassage
from reviewapp.text.normalise import normalise

# --- each kind of change -----------------------------------------------------------------------


@pytest.mark.parametrize(
    "space", ["\u00a0", "\u2002", "\u2003", "\u2009", "\u200a", "\u202f", "\u3000", "\t", "\x00"]
)
def test_unicode_spaces_become_plain_spaces_in_place(space: str) -> None:
    text = f"Governing{space}Law.\nThis{space}Agreement"
    normalised = normalise(text)
    assert normalised.text == "Governing Law.\nThis Agreement"
    assert not normalised.edited  # same length: every offset is unchanged


def test_line_breaks_stay_line_breaks() -> None:
    assert normalise("one\ntwo\u2028three\r\nfour").text == "one\ntwo\nthree\r\nfour"


def test_zero_width_characters_are_removed() -> None:
    text = "\ufeffCon\u200bfiden\u200dtial\u2060 information"
    assert normalise(text).text == "Confidential information"


@pytest.mark.parametrize(
    ("glyph", "letters"),
    [("\ufb00", "ff"), ("\ufb01", "fi"), ("\ufb02", "fl"), ("\ufb03", "ffi"), ("\ufb04", "ffl")],
)
def test_ligatures_are_expanded(glyph: str, letters: str) -> None:
    assert normalise(f"x{glyph}y").text == f"x{letters}y"


def test_word_hyphenated_at_a_line_end_is_joined_when_the_document_uses_the_word() -> None:
    text = "The corporation agrees. The corpo-\n  ration shall pay."
    assert normalise(text).text == "The corporation agrees. The corporation shall pay."


def test_compound_hyphenated_at_a_line_end_keeps_its_hyphen_on_one_line() -> None:
    text = "A non-\nexclusive licence. The then-\ncurrent term."
    assert normalise(text).text == "A non-exclusive licence. The then-current term."


def test_compound_the_document_writes_with_a_hyphen_keeps_it_even_if_joined_elsewhere() -> None:
    text = "a non-compete clause, noncompete; the non-\ncompete clause"
    assert normalise(text).text.endswith("the non-compete clause")


def test_soft_hyphen_used_as_a_visible_hyphen_becomes_one() -> None:
    # SEC filings spell hyphens as U+00AD ("need-to-know"); dropping them would join words.
    assert normalise("a need\u00adto\u00adknow basis").text == "a need-to-know basis"
    assert normalise("corporation; corpo\u00adration").text == "corporation; corporation"


def test_letter_spaced_words_are_joined_and_the_gaps_between_words_stay() -> None:
    assert normalise("W I T N E S S E T H:").text == "WITNESSETH:"
    assert normalise("J O H N S O N  A N D  S O N S").text == "JOHNSON  AND  SONS"
    assert normalise("o f  t h e  l a s t  d a y").text == "of  the  last  day"


def test_single_letter_words_of_ordinary_text_stay_apart() -> None:
    text = "Schedule A or B applies, as I said, to a party."
    assert normalise(text).text == text


def test_word_broken_by_the_extractor_is_joined_when_the_document_uses_the_word() -> None:
    text = (
        "Johnson shall deliver. JOHNSON agrees. Signed: JO HNSON. The corpor ation. A corporation."
    )
    assert normalise(text).text == (
        "Johnson shall deliver. JOHNSON agrees. Signed: JOHNSON. The corporation. A corporation."
    )


def test_small_capitals_split_from_their_capital_are_joined() -> None:
    text = "THE C HIROPRACTIC JOINT. Chiropractic services. C HIROPRACTIC CARE"
    assert (
        normalise(text).text == "THE CHIROPRACTIC JOINT. Chiropractic services. CHIROPRACTIC CARE"
    )


@pytest.mark.parametrize(
    "text",
    [
        "directly or indirectly, direct or indirect, the director",  # "or" is a word
        "the Help Desk; helpdesk support",  # two capitalised words are a name
        "any one of them; anyone; any party; one party",  # both pieces are words of their own
    ],
)
def test_words_that_stand_alone_elsewhere_are_not_joined(text: str) -> None:
    assert normalise(text).text == text


# --- offsets -----------------------------------------------------------------------------------

MESSY = (
    "\ufeffTHE C HIROPRACTIC JOINT\u00a0agrees.\u200b W I T N E S S E T H: the corpo-\n"
    "ration, a non-\nexclusive con\ufb01dential licence. Chiropractic. Signed: JO HNSON, "
    "Johnson.\u3000The corporation."
)


def test_offsets_round_trip_at_every_boundary_outside_a_ligature() -> None:
    normalised = normalise(MESSY)
    ligature = MESSY.index("\ufb01")
    for i in range(len(normalised.text) + 1):
        j = normalised.to_source(i)
        assert 0 <= j <= len(MESSY)
        if j != ligature:
            assert normalised.from_source(j) == i
    assert normalised.to_source(len(normalised.text)) == len(MESSY)
    assert normalised.from_source(len(MESSY)) == len(normalised.text)


def test_kept_characters_map_onto_themselves() -> None:
    normalised = normalise(MESSY)
    for i, char in enumerate(normalised.text):
        start, end = normalised.span_to_source(i, i + 1)
        if end - start == 1 and char != " " and MESSY[start] != "\ufb01":
            assert MESSY[start] == char


@pytest.mark.parametrize(
    ("word", "original"),
    [
        ("CHIROPRACTIC", "C HIROPRACTIC"),
        ("WITNESSETH", "W I T N E S S E T H"),
        ("corporation,", "corpo-\nration,"),
        ("non-exclusive", "non-\nexclusive"),
        ("confidential", "con\ufb01dential"),
        ("JOHNSON", "JO HNSON"),
    ],
)
def test_a_span_of_the_normalised_text_covers_exactly_its_words_in_the_original(
    word: str, original: str
) -> None:
    normalised = normalise(MESSY)
    start = normalised.text.index(word)
    source_start, source_end = normalised.span_to_source(start, start + len(word))
    assert MESSY[source_start:source_end] == original


def test_random_text_maps_monotonically() -> None:
    rng = random.Random(5)
    alphabet = "ab cd-\n\u00a0\u200b\ufb01XY"
    for _ in range(200):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randrange(60)))
        normalised = normalise(text)
        sources = [normalised.to_source(i) for i in range(len(normalised.text) + 1)]
        assert sources == sorted(sources)
        assert sources[-1] == len(text)


def test_normalisation_of_a_long_contract_is_linear() -> None:
    import time

    text = (
        "The corpo-\nration shall pay\u00a0the fees. W I T N E S S E T H. " * 40
    ) + "corporation"
    started = time.perf_counter()
    normalise(text)
    small = time.perf_counter() - started
    started = time.perf_counter()
    normalise(text * 20 + "x")
    assert time.perf_counter() - started < max(1.0, 60 * small)


# --- rules and facts read the normalised text -------------------------------------------------


def _playbook() -> Playbook:
    rules = (
        Rule(
            id="lol",
            category="Cap On Liability",
            severity="high",
            language="en",
            patterns=(r"limitation\s+of\s+liability",),
        ),
        Rule(
            id="conf",
            category="Confidentiality",
            severity="medium",
            language="en",
            patterns=(r"confidential\s+information",),
        ),
    )
    facts = (FactExtractor(category="Parties", patterns=(r"between\s+(?P<value>[A-Z]+)\s+and",)),)
    return Playbook(name="t", version="1", language="en", rules=rules, facts=facts)


def test_rule_fires_through_no_break_spaces_and_highlights_the_original_words() -> None:
    text = "9.\u00a0LIMITATION\u00a0OF\u00a0LIABILITY. Neither party is liable."
    [hit] = scan(compile_playbook(_playbook()), text, [SimplePassage(0, 0, len(text))])
    assert text[hit.match_start : hit.match_end] == "LIMITATION\u00a0OF\u00a0LIABILITY"


def test_rule_fires_through_a_ligature_and_a_line_end_hyphen() -> None:
    text = "Each party keeps the con\ufb01dential in-\nformation. Confidential information."
    passage = SimplePassage(0, 0, text.index("."))
    [hit] = scan(compile_playbook(_playbook()), text, [passage])
    assert text[hit.match_start : hit.match_end] == "con\ufb01dential in-\nformation"


def test_facts_are_normalised_values_with_offsets_into_the_original() -> None:
    text = "This Agreement is made between J O H N S O N and the Buyer."
    fact = extract_facts(compile_playbook(_playbook()), text)["Parties"]
    assert fact["value"] == "JOHNSON"
    assert text[fact["start"] : fact["end"]] == "J O H N S O N"


def test_offline_verdict_reads_the_passage_normalised_and_quotes_its_own_words() -> None:
    rule = Rule(
        id="cap",
        category="Cap On Liability",
        severity="high",
        language="en",
        patterns=(r"liab",),
        confirm_if=(r"limited\s+to\s+the\s+fees",),
    )
    compiled = compile_playbook(Playbook(name="t", version="1", language="en", rules=(rule,)))
    passage = "Liability is limited\u00a0to\u00a0the\u00a0fees paid."
    verdict = offline_verdict(compiled, "cap", passage)
    assert verdict is not None and verdict.state == "CONFIRMED"
    assert verdict.quote == "limited\u00a0to\u00a0the\u00a0fees"
