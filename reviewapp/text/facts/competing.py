"""A fact with a close competing value: shown as unsure, with the value that competes.

A finder reads several dates that could be the fact and keeps one by a rule (the first passage
with a cue, the strongest cue in it). Where another date was read by the same rule *as strongly*
(``close``: the finder says which ones are) and says something else, the choice between them was
a coin the finder tossed: the fact says ``unsure: true`` and carries the runner-up as its
``candidate`` (``{"value", "display", "passage_index", "quote"}``), so a reader checks both.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace
from typing import Any

from .model import Fact


def differs(chosen: str | None, other: str | None) -> bool:
    """Whether ``other`` says another date than ``chosen``: not the same value, and not the same
    date less precisely ("2017" beside "2017-05-23", a form's blank beside its filled copy)."""
    if not chosen or not other or other == chosen:
        return False
    return not chosen.startswith(other)


def candidate_of(fact: Fact) -> dict[str, Any]:
    return {
        "value": fact.value,
        "display": fact.display,
        "passage_index": fact.passage_index,
        "quote": fact.quote,
    }


def with_runner_up(fact: Fact, close: Iterable[Fact]) -> Fact:
    """``fact`` marked unsure with the first of ``close`` that says another date; as it was when
    none does."""
    runner_up = next((other for other in close if differs(fact.value, other.value)), None)
    if runner_up is None:
        return fact
    return replace(fact, extra={**fact.extra, "unsure": True, "candidate": candidate_of(runner_up)})
