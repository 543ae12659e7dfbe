"""One normalised text for every pattern that reads a contract, with offsets into the original.

PDF text layers differ from the same contract typed as plain text in ways that a pattern author
cannot foresee: no-break and other Unicode spaces (which RE2's ``\\s`` does not match), zero-width
characters, soft hyphens, ligature glyphs ("ﬁ"), words hyphenated at a line end, letters spaced
out by the layout ("W I T N E S S E T H") and words that the extractor broke in two
("C HIROPRACTIC", "Prop erty"). ``normalise`` undoes these and keeps a map between the two texts,
so that segmentation, rules and fact extraction all read the normalised text while every offset
the app stores (passages, rule firings, highlights in the PDF viewer) stays an offset into the
text as extracted.

Written by hand because no maintained library keeps offsets through such changes: ftfy and
``unicodedata.normalize("NFKC")`` return a new string only (ftfy's ``fix_and_explain`` lists the
steps, not where they applied), and NFKC would also rewrite characters a lawyer must see as
written (superscripts, fullwidth digits, "½"). Pure Python, linear in the size of the text; RE2
takes a first look so that a step with nothing to do costs almost nothing.

What counts as one word is decided by the document's own vocabulary, never by an external
dictionary. A hyphen at a line end (or a U+00AD, which SEC filings use as a visible hyphen:
"need-to-know") is dropped only when the document writes the joined word elsewhere and not the
hyphenated one; on the CUAD PDFs every other line-end hyphen belongs to a compound ("then-
current", "in-house"), so the line break goes and the hyphen stays. Two pieces one space apart
are joined when the document writes the joined word elsewhere and neither piece stands alone
("qual ity"; not "direct or", not "Help Desk").
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections import Counter
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

import re2

__all__ = ["NormalisedText", "normalise"]

# Same length replacements: every Unicode space becomes " ", line separators "\n". NUL becomes a
# space too, as it does in the stored contract text (PostgreSQL cannot hold it).
_SPACES = (
    "\x00\t\x1c\x1d\x1e\x1f\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008"
    "\u2009\u200a\u202f\u205f\u3000"
)
_LINE_BREAKS = "\x0b\x85\u2028\u2029"
_ONE_TO_ONE = {**dict.fromkeys(_SPACES, " "), **dict.fromkeys(_LINE_BREAKS, "\n")}
_ONE_TO_ONE_RE = re.compile(f"[{re.escape(_SPACES + _LINE_BREAKS)}]")

_LIGATURES = {
    "\ufb00": "ff",
    "\ufb01": "fi",
    "\ufb02": "fl",
    "\ufb03": "ffi",
    "\ufb04": "ffl",
    "\ufb05": "st",
    "\ufb06": "st",
}
_INVISIBLE = "\u200b\u200c\u200d\u2060\ufeff"
_INVISIBLE_OR_LIGATURE_RE = re.compile(f"[{_INVISIBLE}]+|[\ufb00-\ufb06]")

_LETTERS = r"[^\W\d_]"
_LINE_END_HYPHEN_RE = re.compile(r"[-\u00ad][ \r]*\n[ ]*")
_SOFT_HYPHEN_RE = re.compile("\u00ad")
_WORD_BEFORE_RE = re.compile(rf"{_LETTERS}+\Z")
_WORD_AFTER_RE = re.compile(rf"{_LETTERS}+")
# Single letters separated by single spaces: "R E C I T A L S", "o f".
_SPACED_LETTERS_RE = re.compile(rf"(?<![^\W_]){_LETTERS}(?: {_LETTERS})+(?![^\W_])")
_SPACED_WORD_GAP_RE = re.compile(r" {2,4}\Z")
_MIN_SPACED_LETTERS = 3
_PUNCTUATION = "\"'“”‘’()[]{}<>,.;:!?*«»"
# Tokens seen this rarely may be pieces of a broken word; more common ones are words.
_RARE_TOKEN = 2
# Bounds on the work spent on broken words in one document (hostile text).
_MAX_JOIN_CANDIDATES = 200

# RE2 gates: the same conditions, looser, to skip a step where it has nothing to do.
_ASCII_ONE_TO_ONE = "".join(char for char in _ONE_TO_ONE if char.isascii())
_SPECIAL_GATE = re2.compile(f"[{re.escape(_SPACES + _LINE_BREAKS)}]")
_INVISIBLE_OR_LIGATURE_GATE = re2.compile(f"[{_INVISIBLE}\ufb00-\ufb06]")
_LINE_END_HYPHEN_GATE = re2.compile(r"\pL[-\x{00ad}][ \r]*\n")
_SPACED_LETTERS_GATE = re2.compile(r"(?:^|[^\pL\pN_])\pL \pL \pL(?:[^\pL\pN_]|$)")
# A capital set apart from the rest of its word in small capitals: "C HIROPRACTIC".
_CAPITAL_SPLIT_GATE = re2.compile(r"\b([A-Z]) ([A-Z]{2,})\b")


@dataclass(frozen=True)
class NormalisedText:
    """``text`` and the map back to the original: each edit replaced ``original[s:e]``.

    Between edits the two texts are equal character for character. Round trips are exact at
    every character boundary except inside an expanded ligature (both of its letters map to it).
    """

    text: str
    source_length: int
    _source_starts: tuple[int, ...] = field(default=(), repr=False)
    _source_ends: tuple[int, ...] = field(default=(), repr=False)
    _starts: tuple[int, ...] = field(default=(), repr=False)
    _ends: tuple[int, ...] = field(default=(), repr=False)

    @property
    def edited(self) -> bool:
        """Whether any edit changed the length of the text (else offsets are the same)."""
        return bool(self._starts)

    def to_source(self, i: int) -> int:
        """Offset in the original of normalised offset ``i`` (after any removed characters)."""
        i = min(max(i, 0), len(self.text))
        k = bisect_right(self._starts, i) - 1
        if k < 0:
            return i
        start, end = self._starts[k], self._ends[k]
        source_start, source_end = self._source_starts[k], self._source_ends[k]
        if i < end:
            return (
                source_start + (i - start)
                if end - start == source_end - source_start
                else source_start
            )
        return source_end + (i - end)

    def end_to_source(self, i: int) -> int:
        """Like ``to_source`` for the end of a span: just after the last character's source."""
        i = min(max(i, 0), len(self.text))
        if i == 0:
            return 0
        last = i - 1
        k = bisect_right(self._starts, last) - 1
        if k < 0:
            return i
        start, end = self._starts[k], self._ends[k]
        source_start, source_end = self._source_starts[k], self._source_ends[k]
        if last < end:
            if end - start == source_end - source_start:
                return source_start + (last - start) + 1
            return source_end
        return source_end + (last - end) + 1

    def from_source(self, j: int) -> int:
        """Normalised offset of original offset ``j``; inside an edit, the edit's start."""
        j = min(max(j, 0), self.source_length)
        k = bisect_right(self._source_starts, j) - 1
        if k < 0:
            return j
        start, end = self._starts[k], self._ends[k]
        source_start, source_end = self._source_starts[k], self._source_ends[k]
        if j < source_end:
            if end - start == source_end - source_start:
                return start + (j - source_start)
            return start if j == source_start else end
        return end + (j - source_end)

    def span_to_source(self, start: int, end: int) -> tuple[int, int]:
        """Original span of normalised ``text[start:end]``: it covers every character matched."""
        return self.to_source(start), max(self.to_source(start), self.end_to_source(end))

    def span_from_source(self, start: int, end: int) -> tuple[int, int]:
        begin = self.from_source(start)
        return begin, max(begin, self.from_source(end))


def normalise(text: str) -> NormalisedText:
    """The normalised form of ``text``; the last few results are cached (scan, segmentation and
    fact extraction each ask for the same contract)."""
    return _normalise(text)


@lru_cache(maxsize=4)
def _normalise(text: str) -> NormalisedText:
    base = _replace_one_to_one(text)
    edits = _edits(base)
    if not edits:
        return NormalisedText(text=base, source_length=len(text))
    pieces: list[str] = []
    source_starts, source_ends, starts, ends = [], [], [], []
    position = length = 0
    for start, end, replacement in edits:
        pieces.append(base[position:start])
        length += start - position
        pieces.append(replacement)
        source_starts.append(start)
        source_ends.append(end)
        starts.append(length)
        length += len(replacement)
        ends.append(length)
        position = end
    pieces.append(base[position:])
    return NormalisedText(
        text="".join(pieces),
        source_length=len(text),
        _source_starts=tuple(source_starts),
        _source_ends=tuple(source_ends),
        _starts=tuple(starts),
        _ends=tuple(ends),
    )


def _replace_one_to_one(text: str) -> str:
    if text.isascii():
        found = {char for char in _ASCII_ONE_TO_ONE if char in text}
    else:
        found = set(_ONE_TO_ONE_RE.findall(text)) if _present(_SPECIAL_GATE, text) else set()
    for char in found:
        text = text.replace(char, _ONE_TO_ONE[char])
    return text


Edit = tuple[int, int, str]


def _edits(base: str) -> list[Edit]:
    """Non-overlapping edits in text order; where two overlap, the earlier kind wins."""
    vocabulary = _Vocabulary(base)
    kinds = [
        _line_end_hyphens(base, vocabulary),
        _soft_hyphens(base, vocabulary),
        _spaced_letters(base),
        _broken_words(base, vocabulary),
        _invisibles_and_ligatures(base),
    ]
    edits: list[Edit] = []
    taken: list[tuple[int, int]] = []
    for kind in kinds:
        for edit in kind:
            if not _overlaps(taken, edit[0], edit[1]):
                edits.append(edit)
        taken = sorted((start, end) for start, end, _ in edits)
    edits.sort()
    return _merged(edits)


def _overlaps(taken: list[tuple[int, int]], start: int, end: int) -> bool:
    k = bisect_right(taken, (start, end))
    before = taken[k - 1] if k else None
    after = taken[k] if k < len(taken) else None
    return bool(
        (before is not None and before[1] > start) or (after is not None and after[0] < end)
    )


def _merged(edits: list[Edit]) -> list[Edit]:
    """Adjacent removals become one edit, so each offset has one place in the map."""
    merged: list[Edit] = []
    for start, end, replacement in edits:
        if merged and merged[-1][1] == start and not merged[-1][2] and not replacement:
            merged[-1] = (merged[-1][0], end, "")
        else:
            merged.append((start, end, replacement))
    return merged


def _invisibles_and_ligatures(base: str) -> list[Edit]:
    if base.isascii() or not _present(_INVISIBLE_OR_LIGATURE_GATE, base):
        return []
    return [
        (match.start(), match.end(), _LIGATURES.get(match.group(), ""))
        for match in _INVISIBLE_OR_LIGATURE_RE.finditer(base)
    ]


class _Vocabulary:
    """The document's own words, lowercased, counted when first asked."""

    def __init__(self, base: str) -> None:
        self.base = base
        self._lower: str | None = None
        self._tokens: list[str] | None = None
        self._token_counts: Counter[str] | None = None
        self._words: set[str] | None = None
        self._counts: dict[str, int] = {}

    @property
    def lower(self) -> str:
        if self._lower is None:
            lowered = self.base.lower()
            # A few characters lowercase to two ("İ"); then offsets would drift.
            self._lower = lowered if len(lowered) == len(self.base) else self.base
        return self._lower

    @property
    def tokens(self) -> list[str]:
        """Whitespace-separated tokens, punctuation attached."""
        if self._tokens is None:
            self._tokens = self.lower.split()
        return self._tokens

    @property
    def token_counts(self) -> Counter[str]:
        if self._token_counts is None:
            self._token_counts = Counter(self.tokens)
        return self._token_counts

    @property
    def words(self) -> set[str]:
        """Tokens without the punctuation around them."""
        if self._words is None:
            self._words = {token.strip(_PUNCTUATION) for token in self.token_counts}
        return self._words

    def has_word(self, word: str) -> bool:
        return word in self.words

    def token_count(self, word: str) -> int:
        """About how often ``word`` is a token of its own, with punctuation around it."""
        counts = self.token_counts
        return counts.get(word, 0) + sum(
            counts.get(word + mark, 0) + counts.get(mark + word, 0) for mark in _PUNCTUATION
        )

    def count(self, word: str) -> int:
        """How often ``word`` stands alone as a word (letters on neither side)."""
        if word not in self._counts:
            self._counts[word] = len(self.spans(word))
        return self._counts[word]

    def spans(self, phrase: str) -> list[tuple[int, int]]:
        """Where ``phrase`` stands alone. The pattern starts with the phrase itself, so that re
        finds candidates with its fast substring search; the letter before is checked here."""
        lower = self.lower
        pattern = re.compile(re.escape(phrase) + r"(?![^\W_])")
        return [
            match.span()
            for match in pattern.finditer(lower)
            if not match.start() or not lower[match.start() - 1].isalnum()
        ]


def _line_end_hyphens(base: str, vocabulary: _Vocabulary) -> list[Edit]:
    """A hyphen at a line end: the word goes on after it, without the line break, and without
    the hyphen if the document writes the joined word elsewhere ("corpo-\nration"); compounds
    keep it ("non-\nexclusive" -> "non-exclusive")."""
    edits: list[Edit] = []
    if "\n" not in base or not _present(_LINE_END_HYPHEN_GATE, base):
        return edits
    for match in _LINE_END_HYPHEN_RE.finditer(base):
        hyphen, following = match.start(), match.end()
        before = _WORD_BEFORE_RE.search(base, max(0, hyphen - 40), hyphen)
        after = _WORD_AFTER_RE.match(base, following)
        if before is None or after is None:
            continue
        if _joins(before.group(), after.group(), vocabulary):
            edits.append((hyphen, following, ""))
        else:
            edits.append((hyphen, following, "-"))
    return edits


def _soft_hyphens(base: str, vocabulary: _Vocabulary) -> list[Edit]:
    """U+00AD inside a line. Filings use it as a visible hyphen ("need\xadto\xadknow"), so it
    becomes "-" unless the document writes the joined word elsewhere."""
    edits: list[Edit] = []
    if "\u00ad" not in base:
        return edits
    for match in _SOFT_HYPHEN_RE.finditer(base):
        hyphen = match.start()
        before = _WORD_BEFORE_RE.search(base, max(0, hyphen - 40), hyphen)
        after = _WORD_AFTER_RE.match(base, hyphen + 1)
        joined = before and after and _joins(before.group(), after.group(), vocabulary)
        edits.append((hyphen, hyphen + 1, "" if joined else "-"))
    return edits


def _joins(head: str, tail: str, vocabulary: _Vocabulary) -> bool:
    """Whether "head-" and "tail" are one word hyphenated: the document writes the joined word
    elsewhere, and not the compound. In the CUAD filings a line-end hyphen almost always belongs
    to a compound ("then-current", "in-house"), so nothing else is joined."""
    joined, compound = (head + tail).lower(), f"{head}-{tail}".lower()
    if vocabulary.lower.count(compound) > 0 and vocabulary.count(compound) > 0:
        return False
    return vocabulary.count(joined) > 0


def _spaced_letters(base: str) -> list[Edit]:
    """Letter-spaced words: the single spaces between letters go; wider gaps between words stay.

    A run of two letters ("o f") is joined only next to a run of at least three, so that
    ordinary single-letter words ("a", "I") are left alone.
    """
    edits: list[Edit] = []
    if not _present(_SPACED_LETTERS_GATE, base):
        return edits
    runs = [match.span() for match in _SPACED_LETTERS_RE.finditer(base)]
    group: list[tuple[int, int]] = []
    for run in runs:
        if group and not _SPACED_WORD_GAP_RE.fullmatch(base, group[-1][1], run[0]):
            _join_spaced_group(group, edits)
            group = []
        group.append(run)
    _join_spaced_group(group, edits)
    return edits


def _join_spaced_group(group: list[tuple[int, int]], edits: list[Edit]) -> None:
    letters = [(end - start + 1) // 2 for start, end in group]
    if not group or max(letters) < _MIN_SPACED_LETTERS:
        return
    for start, end in group:
        edits.extend((position, position + 1, "") for position in range(start + 1, end, 2))


def _broken_words(base: str, vocabulary: _Vocabulary) -> list[Edit]:
    """Two pieces with one space between them, joined where the document itself shows the word:
    the joined word occurs elsewhere and neither piece stands alone ("qual ity", "Gov ernmental";
    not "direct or", "Help Desk"). After a capital set apart from the rest of a word in small
    capitals ("C HIROPRACTIC"), only the rest must never stand alone."""
    pairs = dict.fromkeys(_rare_piece_pairs(vocabulary), False)
    if _present(_CAPITAL_SPLIT_GATE, base):
        for head, tail in _CAPITAL_SPLIT_GATE.findall(base):
            if vocabulary.has_word((head + tail).lower()):
                pairs[head.lower(), tail.lower()] = True
    edits: list[Edit] = []
    for (head, tail), capital in sorted(pairs.items())[:_MAX_JOIN_CANDIDATES]:
        bound = vocabulary.lower.count(f"{head} {tail}")
        elsewhere = (vocabulary.token_count(head) - bound, vocabulary.token_count(tail) - bound)
        if not _pieces_apart(elsewhere, capital):
            continue
        spans = vocabulary.spans(f"{head} {tail}")
        if not spans or vocabulary.count(head + tail) == 0:
            continue
        found = len(spans)
        if not _pieces_apart(
            (vocabulary.count(head) - found, vocabulary.count(tail) - found), capital
        ):
            continue
        edits.extend(
            (start + len(head), start + len(head) + 1, "")
            for start, _ in spans
            if capital or not _capitalised_phrase(base, start, len(head))
        )
    return edits


def _pieces_apart(elsewhere: tuple[int, int], capital: bool) -> bool:
    """Whether pieces seen alone this often elsewhere are pieces of a word, not words."""
    return elsewhere[1] <= 0 if capital else max(elsewhere) <= 0


def _capitalised_phrase(base: str, start: int, head_length: int) -> bool:
    """ "Red Hat", "PC Quote": in mixed case, a capital after the space starts a new word."""
    tail = base[start + head_length + 1]
    return tail.isupper() and not base[start : start + head_length].isupper()


def _rare_piece_pairs(vocabulary: _Vocabulary) -> set[tuple[str, str]]:
    """Rare tokens and a neighbour (at one of their occurrences) that make a word of the
    document together: the candidates that ``_broken_words`` checks."""
    tokens, counts = vocabulary.tokens, vocabulary.token_counts
    words = vocabulary.words
    last = dict(zip(tokens, range(len(tokens)), strict=True))
    candidates = []
    end = len(tokens) - 1
    for token in [token for token, count in counts.items() if count <= _RARE_TOKEN]:
        index = last[token]
        if index and (tokens[index - 1] + token).strip(_PUNCTUATION) in words:
            candidates.append((tokens[index - 1], token))
        if index < end and (token + tokens[index + 1]).strip(_PUNCTUATION) in words:
            candidates.append((token, tokens[index + 1]))
    pairs = set()
    for left, right in candidates[: 4 * _MAX_JOIN_CANDIDATES]:
        head, tail = left.lstrip(_PUNCTUATION), right.rstrip(_PUNCTUATION)
        if head.isalpha() and tail.isalpha():
            pairs.add((head, tail))
    return pairs


def _present(gate: Any, text: str) -> bool:
    """A fast first look with RE2 (linear, compiled code) before Python's re finds positions."""
    try:
        return gate.search(text) is not None
    except (UnicodeError, ValueError):
        return True
