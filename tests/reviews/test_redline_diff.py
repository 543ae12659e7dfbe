"""A redline cut into the edits the Word file tracks (redlines.diff.word_edits)."""

from __future__ import annotations

from reviewapp.reviews.redlines.diff import Edit, tokens, word_edits

CLAUSE = (
    "The Licensee may renew for one year at a time, which the Licensor may grant in its sole "
    "discretion, on notice."
)
EDITED = (
    "The Licensee may renew for six (6) months at a time, which the Licensor shall not "
    "unreasonably withhold, on notice."
)


def applied(original: str, edits: list[Edit]) -> str:
    for edit in sorted(edits, key=lambda e: -e.start):
        original = original[: edit.start] + edit.replacement + original[edit.end :]
    return original


def test_words_numbers_spaces_and_punctuation_are_each_a_token():
    assert tokens("six (6) months, 12weeks") == [
        "six",
        " ",
        "(",
        "6",
        ")",
        " ",
        "months",
        ",",
        " ",
        "12",
        "weeks",
    ]
    assert tokens("违约金为30%") == ["违", "约", "金", "为", "30", "%"]


def test_two_edits_in_one_clause_are_two_edits_and_the_words_between_stay():
    edits = word_edits(CLAUSE, EDITED)
    assert [(CLAUSE[e.start : e.end], e.replacement) for e in edits] == [
        ("one year", "six (6) months"),
        ("may grant in its sole discretion", "shall not unreasonably withhold"),
    ]
    assert applied(CLAUSE, edits) == EDITED


def test_insertions_deletions_and_chinese():
    assert word_edits("a b", "a b") == []
    assert word_edits("", "new words") == [Edit(0, 0, "new words")]
    assert applied("pay within five days", word_edits("pay within five days", "pay days")) == (
        "pay days"
    )
    original, new = "违约金为合同总额的百分之三十。", "违约金为合同总额的百分之十。"
    (edit,) = word_edits(original, new)
    assert (original[edit.start : edit.end], edit.replacement) == ("三", "")
