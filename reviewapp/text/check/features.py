"""What the second-stage check reads of a (passage, category) the first stage named.

Two blocks of hashed tokens. The *text* block is the passage's words and its heading's words
(from the router's tokens; a Chinese passage's character grams), each crossed with the category,
so one linear model learns per category which words make the clause. The *shape* block says
how the first stage came to name the category, both plain and crossed with the category: which
rules fired (by id, and by kind: a routing rule, a secondary ``only_with`` rule, the router
routing or only attaching), the router's probability for the category in logit bins, how many
categories the passage names, where this one ranks among them, the passage's length and
position, whether it is a heading. The shape block is binary and not length-normalised, so a
short passage and a long one weigh their rules alike.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from reviewapp.text.engine.model import ROUTER_CONTEXT_SUFFIX, RuleHit, is_router_rule

_LOGIT_BINS = (-6.0, -4.0, -3.0, -2.0, -1.0, 0.0, 1.0, 2.0, 3.0, 4.0, 6.0)


@dataclass(frozen=True)
class Candidate:
    """One category named on one passage: ``row`` is the passage's position in the document's
    passage list; ``rule_ids`` are the rules of that category that fired there."""

    row: int
    category: str
    rule_ids: tuple[str, ...]
    secondary: bool  # every firing is a secondary rule or a router context name
    hard: bool  # a ``reject`` rule fired: never dropped by the check


@dataclass(frozen=True)
class PassageFacts:
    """What the shape block needs of the passage, beside its hits."""

    chars: int
    position: float  # 0..1 through the document
    is_heading: bool
    probabilities: dict[str, float]  # the router's, per category (empty without a router)


def candidates(
    hits: Sequence[RuleHit], row_of: dict[int, int], routes: dict[str, bool]
) -> list[Candidate]:
    """A candidate per (passage, category) among ``hits``; ``routes[rule_id]`` says whether a
    rule routes by itself (``CompiledPlaybook.routes``)."""
    grouped: dict[tuple[int, str], list[RuleHit]] = {}
    for hit in hits:
        grouped.setdefault((row_of[hit.segment_index], hit.category), []).append(hit)
    found = []
    for (row, category), group in sorted(grouped.items()):
        rule_ids = tuple(sorted({hit.rule_id for hit in group}))
        found.append(
            Candidate(
                row=row,
                category=category,
                rule_ids=rule_ids,
                secondary=not any(_routes(rule_id, routes) for rule_id in rule_ids),
                hard=any(hit.action == "reject" for hit in group),
            )
        )
    return found


def _routes(rule_id: str, routes: dict[str, bool]) -> bool:
    if is_router_rule(rule_id):
        return not rule_id.endswith(ROUTER_CONTEXT_SUFFIX)
    return routes.get(rule_id, True)


def shape_tokens(
    candidate: Candidate,
    facts: PassageFacts,
    named: Sequence[Candidate],
    routes: dict[str, bool],
) -> list[str]:
    """The shape block of one candidate; ``named`` are all candidates of the same passage."""
    kinds = sorted({_kind(rule_id, routes) for rule_id in candidate.rule_ids})
    probability = facts.probabilities.get(candidate.category)
    rank = _rank(candidate, named, facts)
    plain = [f"rule:{rule_id}" for rule_id in candidate.rule_ids]
    plain += [f"kind:{kind}" for kind in kinds]
    plain.append(f"kinds:{'+'.join(kinds)}")
    plain.append(f"named:{min(len(named), 6)}")
    plain.append(f"rank:{min(rank, 4)}")
    plain.append(f"len:{min(int(math.log2(max(facts.chars, 1))), 13)}")
    plain.append(f"pos:{min(int(facts.position * 10), 9)}")
    plain.append(f"secondary:{candidate.secondary}")
    if facts.is_heading:
        plain.append("heading-alone")
    if probability is None:
        plain.append("router:none")
    else:
        margin = logit(probability)
        plain += [f"router>={edge:g}" for edge in _LOGIT_BINS if margin >= edge]
    crossed = [f"{candidate.category}|{token}" for token in plain if not token.startswith("rule:")]
    return plain + crossed


def text_tokens(category: str, passage_words: Sequence[str]) -> list[str]:
    """``passage_words`` (``text_words`` of the passage) crossed with the category."""
    return [f"{category}|{token}" for token in passage_words]


def text_words(passage_tokens: Sequence[str], *, language: str = "en") -> list[str]:
    """The passage's words and its heading's words, of the router's tokens. Word pairs and the
    neighbours' words are left out: by document folds they kept nothing more at equal recall
    (passage precision 0.434 with them, 0.439 without, at recall 0.80) for four times the
    check's training time. Chinese has no words between spaces: for ``zh`` the passage's
    character grams (``c:``) stand for them; other languages read only words, so a Chinese name
    in an English contract leaves an English check's features as they were."""
    grams = language == "zh"
    return [
        t
        for t in passage_tokens
        if t.startswith("h:") or (t[:2] == "w:" and " " not in t) or (grams and t[:2] == "c:")
    ]


def _kind(rule_id: str, routes: dict[str, bool]) -> str:
    if is_router_rule(rule_id):
        return "router-context" if rule_id.endswith(ROUTER_CONTEXT_SUFFIX) else "router"
    return "rule" if routes.get(rule_id, True) else "secondary"


def _rank(candidate: Candidate, named: Sequence[Candidate], facts: PassageFacts) -> int:
    """1 for the passage's most likely category: routing before secondary, then the router's
    probability."""

    def key(other: Candidate) -> tuple[bool, float]:
        return (other.secondary, -facts.probabilities.get(other.category, 0.0))

    ordered = sorted(named, key=key)
    return 1 + next(i for i, other in enumerate(ordered) if other.category == candidate.category)


def logit(probability: float) -> float:
    probability = min(max(probability, 1e-6), 1 - 1e-6)
    return math.log(probability / (1 - probability))
