"""Split a contract's text into passages: clauses and paragraphs, with offsets.

Pure Python (no Django), linear in the size of the text. Segmentation reads the normalised text
(``reviewapp.text.normalise``: Unicode spaces, ligatures, hyphenation undone) but offsets
are into the text given: each passage is ``text[start:end]``, ``Segment.text`` is the same
passage normalised, and together the passages hold every non-space character once (except the
invisible ones normalisation drops, such as zero-width spaces between passages).

A heading line is not a passage of its own: it opens the passage of the clause that follows it,
so that the clause and its title are read, flagged and verified together.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections import Counter
from dataclasses import dataclass, replace

from reviewapp.text.normalise import NormalisedText, normalise

from ._cuts import find_cuts, label_opens_clause
from ._headings import HeadingPath, clause_title, heading_display, is_heading_text
from ._labels import (
    STRUCTURAL_KINDS,
    UNNUMBERED_HEADING_RANK,
    Label,
    RankTracker,
    match_label,
)
from ._labels import normalise as normalise_label
from ._sentences import is_abbreviation, split_points

__all__ = ["MAX_PASSAGE_CHARS", "Segment", "is_abbreviation", "segment"]

# One to four sentences: what a lawyer reads at once, and what verification is charged for.
MAX_PASSAGE_CHARS = 600
# Longer than any real sentence in the CUAD contracts; beyond it a "sentence" is a table or junk.
MAX_SENTENCE_CHARS = 6000
_FRAGMENT_CHARS = 10
_PREVIEW_CHARS = 300
_FRAGMENT_LABELS_CHARS = 60
_RUNNING_HEADER_REPEATS = 3
# Headings opening a clause's passage take at most this much of it; in a longer run of headings
# (a table of contents) the earlier ones form passages of their own.
_MAX_HEADING_PREFIX = 200
_DIGITS_RE = re.compile(r"\d+")
_NON_SPACE_RE = re.compile(r"\S")


@dataclass(frozen=True)
class Segment:
    index: int  # 0-based, in document order
    page: int  # 1-based page where the passage starts
    start: int  # offset of the first non-space character of the passage
    end: int  # offset just after its last non-space character
    heading: str  # headings in force, outermost first: "ARTICLE V – TERMINATION > 5.2 ..."
    number: str  # the clause label that opens it ("1.1", "(a)", "第一条"), else ""
    is_heading: bool  # the passage is only headings (nothing follows them, or a contents list)
    text: str = ""  # the passage normalised: what rules read and people are shown


@dataclass
class _Draft:
    start: int
    end: int
    label: Label | None = None
    is_heading: bool = False
    title: str = ""
    into_next: bool = False  # a heading that opens the passage after it


def segment(text: str, page_spans: list[tuple[int, int]] | None = None) -> list[Segment]:
    """Passages of ``text`` in document order.

    ``page_spans`` are the (start, end) offsets of each page, page 1 first; None means one page.
    A passage's ``heading`` is the path of headings in force, including the headings it opens
    with and its own title if it opens a titled clause.
    """
    normalised = normalise(text)
    clean = normalised.text
    page_starts = [start for start, _ in page_spans] if page_spans else [0]
    cuts = find_cuts(clean, [normalised.from_source(start) for start in page_starts])
    drafts = [_describe(clean, start, end) for start, end in _blocks(clean, cuts)]
    _demote_running_headers(clean, drafts)
    drafts = _split_long(clean, _merge_fragments(clean, drafts))
    drafts = _attach_headings(clean, drafts)
    return _finalise(normalised, drafts, page_starts)


def _blocks(text: str, cuts: list[int]) -> list[tuple[int, int]]:
    blocks = []
    for start, stop in zip(cuts, [*cuts[1:], len(text)][: len(cuts)], strict=True):
        end = start + len(text[start:stop].rstrip())
        if end > start:
            blocks.append((start, end))
    return blocks


def _describe(text: str, start: int, end: int) -> _Draft:
    label = match_label(text, start, end)
    if label is not None and not label_opens_clause(text, label, end, lowercase_ok=True):
        label = None
    rest_start = label.end if label else start
    # Titles are short: reading the first few hundred characters is enough.
    rest = text[rest_start : min(end, rest_start + _PREVIEW_CHARS)]
    structural = label is not None and label.kind in STRUCTURAL_KINDS
    if end - rest_start <= _PREVIEW_CHARS and is_heading_text(
        rest, labelled=label is not None, structural=structural
    ):
        return _Draft(start, end, label, is_heading=True)
    title = clause_title(rest.lstrip()) if label else ""
    return _Draft(start, end, label, title=title)


def _demote_running_headers(text: str, drafts: list[_Draft]) -> None:
    """A title repeated on many pages ("Exhibit 10.38", "Google Confidential") is page furniture:
    it must not reset the heading context each time it appears."""
    headings = [
        draft
        for draft in drafts
        if draft.is_heading and (draft.label is None or draft.label.kind == "schedule")
    ]
    keys = [_heading_key(text, draft) for draft in headings]
    counts = Counter(keys)
    for draft, key in zip(headings, keys, strict=True):
        if counts[key] >= _RUNNING_HEADER_REPEATS:
            draft.is_heading = False
            draft.label = None


def _heading_key(text: str, draft: _Draft) -> str:
    """Page numbers inside a running header differ from page to page."""
    key = " ".join(text[draft.start : draft.end].split())
    return key if draft.label else _DIGITS_RE.sub("", key)


def _merge_fragments(text: str, drafts: list[_Draft]) -> list[_Draft]:
    """Join a lone label ("(a)") to what follows, and a stray scrap ("3") to what precedes."""
    merged: list[_Draft] = []
    carried: _Draft | None = None
    for draft in drafts:
        fragment = _fragment_kind(text, draft)
        if carried is not None and carried.label is None and (draft.label or draft.is_heading):
            merged.append(carried)  # a scrap before a clause or heading stays on its own
        elif carried is not None:
            draft = _carry_into(carried, draft)
        carried = None
        joins_previous = bool(merged) and not merged[-1].is_heading
        if fragment == "labels" or (fragment == "scrap" and not joins_previous):
            carried = draft
        elif fragment == "scrap" or (merged and _completes_heading(merged[-1], draft)):
            merged[-1].end = draft.end
        else:
            merged.append(draft)
    if carried is not None:
        merged.append(carried)
    return merged


def _fragment_kind(text: str, draft: _Draft) -> str:
    if draft.is_heading:
        return ""
    if draft.label is not None and _only_labels(text, draft.start, draft.end):
        return "labels"
    if draft.label is None and draft.end - draft.start < _FRAGMENT_CHARS:
        return "scrap"
    return ""


def _carry_into(carried: _Draft, draft: _Draft) -> _Draft:
    draft.start = carried.start
    draft.label = carried.label or draft.label
    return draft


def _completes_heading(previous: _Draft, draft: _Draft) -> bool:
    """An article label alone ("ARTICLE V") and the title below it are one heading."""
    if not (previous.is_heading and draft.is_heading) or draft.label or previous.label is None:
        return False
    return previous.label.end == previous.end


def _only_labels(text: str, start: int, end: int) -> bool:
    if end - start > _FRAGMENT_LABELS_CHARS:
        return False
    pos = start
    while (label := match_label(text, pos, end)) is not None:
        following = _NON_SPACE_RE.search(text, label.end, end)
        if following is None:
            return True
        pos = following.start()
    return False


def _split_long(text: str, drafts: list[_Draft]) -> list[_Draft]:
    result = []
    for draft in drafts:
        if draft.end - draft.start <= MAX_PASSAGE_CHARS:
            result.append(draft)
            continue
        cuts = split_points(text, draft.start, draft.end, MAX_PASSAGE_CHARS, MAX_SENTENCE_CHARS)
        result.extend(_pieces(text, draft, cuts))
    return result


def _pieces(text: str, draft: _Draft, cuts: list[int]) -> list[_Draft]:
    pieces = []
    for position, (start, stop) in enumerate(
        zip([draft.start, *cuts], [*cuts, draft.end], strict=True)
    ):
        first = _NON_SPACE_RE.search(text, start, stop)
        if first is None:
            continue
        end = first.start() + len(text[first.start() : stop].rstrip())
        if position == 0:
            pieces.append(replace(draft, end=end))
        else:
            pieces.append(_Draft(first.start(), end))
    return pieces


def _attach_headings(text: str, drafts: list[_Draft]) -> list[_Draft]:
    """Mark each run of headings followed by a clause to open that clause's passage.

    A long run (a table of contents) gives only its last headings to the clause; the earlier
    ones are grouped into passages of at most ``MAX_PASSAGE_CHARS``. Headings at the very end,
    with nothing after them, stay as they are. A clause that the headings would take over the
    limit is split again, shorter.
    """
    result: list[_Draft] = []
    run: list[_Draft] = []
    for draft in drafts:
        if draft.is_heading:
            run.append(draft)
            continue
        pieces = [draft]
        if run:
            first = len(run) - 1
            while first > 0 and draft.start - run[first - 1].start <= _MAX_HEADING_PREFIX:
                first -= 1
            for heading in run[first:]:
                heading.into_next = True
            _group_headings(run[:first])
            pieces = _make_room(text, draft, draft.start - run[first].start)
        result.extend(run)
        result.extend(pieces)
        run = []
    return result + run


def _make_room(text: str, draft: _Draft, prefix: int) -> list[_Draft]:
    limit = MAX_PASSAGE_CHARS - prefix
    if draft.end - draft.start <= limit or limit <= 0:
        return [draft]
    return _pieces(
        text, draft, split_points(text, draft.start, draft.end, limit, MAX_SENTENCE_CHARS)
    )


def _group_headings(run: list[_Draft]) -> None:
    group_start: int | None = None
    for previous, heading in zip(run, run[1:], strict=False):
        group_start = previous.start if group_start is None else group_start
        previous.into_next = heading.end - group_start <= MAX_PASSAGE_CHARS
        if not previous.into_next:
            group_start = None


def _finalise(
    normalised: NormalisedText, drafts: list[_Draft], page_starts: list[int]
) -> list[Segment]:
    text = normalised.text
    ranks = RankTracker()
    path = HeadingPath()
    # Before the first clause, "Exhibit 10.5" is the filing's exhibit number, not a schedule.
    seen_clause = False
    segments: list[Segment] = []
    opening: _Draft | None = None  # the first heading of those that open the next passage
    heading_number = ""
    for draft in drafts:
        number = normalise_label(draft.label) if draft.label else ""
        if draft.is_heading:
            title = heading_display(text[draft.start : draft.end])
        else:
            title = draft.title and f"{number} {draft.title}"
        if draft.label is not None and (seen_clause or draft.label.kind != "schedule"):
            seen_clause = True
            path.enter(ranks.rank(draft.label), title)
        elif draft.is_heading or draft.label is not None:
            ranks.reset()
            path.enter(UNNUMBERED_HEADING_RANK, title)
        if draft.into_next:
            opening = opening or draft
            heading_number = number or heading_number
            continue
        first = opening or draft
        start, end = normalised.to_source(first.start), normalised.end_to_source(draft.end)
        segments.append(
            Segment(
                index=len(segments),
                page=max(1, bisect_right(page_starts, start)),
                start=start,
                end=end,
                heading=path.render(),
                number=number or heading_number,
                is_heading=draft.is_heading,
                text=text[first.start : draft.end],
            )
        )
        opening, heading_number = None, ""
    return segments
