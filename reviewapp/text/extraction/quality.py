"""How many of a reference text's words an extraction recovered (for tests and benchmarks).

Words are lower-case runs of letters and digits after NFKC (which unfolds ligatures and
full-width forms), counted with repeats. A hyphen at a line end is ambiguous: "termi-\\nnation"
is one word, "then-\\ncurrent" two. The reference's vocabulary decides: the joined form counts
as one word only if the reference has it.
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from collections.abc import Collection

_WORD = re.compile(r"[^\W_]+")
_LINE_END_HYPHEN = re.compile(r"([^\W_]+)-[ \t]*\r?\n\s*([^\W_]+)")
_SOFT_HYPHEN = "\u00ad"


def normalise(text: str) -> str:
    return unicodedata.normalize("NFKC", text.replace(_SOFT_HYPHEN, "")).casefold()


def word_counts(text: str, vocabulary: Collection[str] | None = None) -> Counter[str]:
    """Count the words of `text`; line-end hyphens join words found in `vocabulary` (or all)."""

    def rejoin(match: re.Match[str]) -> str:
        joined = match[1] + match[2]
        if vocabulary is None or normalise(joined) in vocabulary:
            return joined
        return f"{match[1]} {match[2]}"

    return Counter(_WORD.findall(normalise(_LINE_END_HYPHEN.sub(rejoin, text))))


def word_recovery(extracted: str, reference: str) -> float:
    """The share of the reference's words (counted with repeats) found in the extraction."""
    wanted = word_counts(reference)
    found = word_counts(extracted, vocabulary=wanted.keys())
    total = sum(wanted.values())
    if total == 0:
        return 1.0
    return sum(min(count, found[word]) for word, count in wanted.items()) / total
