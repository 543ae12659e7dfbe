"""The change between a clause's original wording and its replacement.

Tokens are words, numbers, runs of spaces, single punctuation marks and single CJK characters
(Chinese has no spaces, so a word-level diff would see one token per sentence). A clause's diff
is kept per process (the same proposals show on every view of a page and of the queue): diffing
a long clause costs milliseconds.

`word_edits` cuts one redline into the edits that the exported Word file tracks: the words
that stay the same between two edits stay plain text there.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from difflib import SequenceMatcher
from functools import lru_cache

_TOKEN = re.compile(
    r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\u3000-\u303f\uff00-\uffef]|\d+|[^\W\d]+|\s+|[^\w\s]"
)
SAME, DELETED, INSERTED = "same", "del", "ins"


@dataclass(frozen=True)
class Segment:
    op: str  # same | del | ins
    text: str


def tokens(text: str) -> list[str]:
    return _TOKEN.findall(text)


@dataclass(frozen=True)
class Edit:
    """Replace original[start:end] by `replacement` (offsets into the original wording)."""

    start: int
    end: int
    replacement: str


def word_edits(original: str, replacement: str) -> list[Edit]:
    """The edits that turn `original` into `replacement`, token by token. Two edits with only
    spaces between them are one edit: a lone space kept between "one year" and "six (6)
    months" would cut one change into two for no reader's benefit."""
    old, new = tokens(original), tokens(replacement)
    spans: list[list[int]] = []  # [a0, a1, b0, b1] in tokens
    matcher = SequenceMatcher(a=old, b=new, autojunk=False)
    for op, a0, a1, b0, b1 in matcher.get_opcodes():
        if op == "equal":
            continue
        if spans and all(t.isspace() for t in old[spans[-1][1] : a0]):
            spans[-1][1], spans[-1][3] = a1, b1
        else:
            spans.append([a0, a1, b0, b1])
    starts = [0]
    for token in old:
        starts.append(starts[-1] + len(token))
    return [Edit(starts[a0], starts[a1], "".join(new[b0:b1])) for a0, a1, b0, b1 in spans]


@lru_cache(maxsize=2048)
def redline_diff(original: str, replacement: str) -> tuple[Segment, ...]:
    """Before and after as one sequence: unchanged, deleted and inserted text, for the page."""
    old, new = tokens(original), tokens(replacement)
    segments: list[Segment] = []
    matcher = SequenceMatcher(a=old, b=new, autojunk=False)
    for op, a0, a1, b0, b1 in matcher.get_opcodes():
        if op == "equal":
            _add(segments, SAME, "".join(old[a0:a1]))
            continue
        _add(segments, DELETED, "".join(old[a0:a1]))
        _add(segments, INSERTED, "".join(new[b0:b1]))
    return tuple(segments)


def _add(segments: list[Segment], op: str, text: str) -> None:
    if not text:
        return
    if segments and segments[-1].op == op:
        segments[-1] = Segment(op, segments[-1].text + text)
    else:
        segments.append(Segment(op, text))
