"""What the text core needs from a passage, whoever made it: a segment of
``reviewapp.text.segmentation``, a row of the database, a test's stand-in."""

from __future__ import annotations

from typing import Protocol


class PassageSpan(Protocol):
    """A passage's place: ``start``/``end`` are offsets into the contract's text as stored."""

    @property
    def index(self) -> int: ...

    @property
    def start(self) -> int: ...

    @property
    def end(self) -> int: ...


class Passage(PassageSpan, Protocol):
    """A passage as the rule engine scans it: its place and the heading it sits under."""

    @property
    def heading(self) -> str: ...


class PassageText(Passage, Protocol):
    """A passage as fact finding reads it: also its ``text``, normalised."""

    @property
    def text(self) -> str: ...
