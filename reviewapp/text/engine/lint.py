"""Checks a rule must pass before it is saved or compiled."""

from __future__ import annotations

from collections.abc import Iterator

import re2

from . import regex
from .model import MAX_NEAR_WITHIN, MAX_NEARBY_CHARS, MAX_PATTERN_CHARS, Rule

# Ordinary contract boilerplate: a passage pattern that fires on most of these would route
# nearly every passage of every contract to verification.
ORDINARY_SENTENCES = (
    "This Agreement is made between the parties named below.",
    "The parties agree as follows.",
    "Capitalized terms have the meanings given to them in this Agreement.",
    "Headings are for convenience only and do not affect interpretation.",
    "This Agreement may be executed in counterparts, each of which is an original.",
    "All notices shall be in writing and delivered to the addresses set out above.",
    "The Company shall provide the Services described in Schedule A.",
    "Each party represents that it is duly organized and validly existing.",
    "Payment is due within thirty days of the date of the invoice.",
    "The recitals form part of this Agreement.",
    "In witness whereof the parties have signed this Agreement on the dates below.",
    "Words in the singular include the plural and vice versa.",
    "本合同由双方于签署之日起生效。",
    "双方应当按照约定全面履行自己的义务。",
    "本合同一式两份，双方各执一份，具有同等法律效力。",
    "甲方应按时向乙方支付服务费用。",
)
BROAD_SHARE = 0.5


def lint_rule(rule: Rule) -> list[str]:
    """Problems that make ``rule`` unsafe or useless; an empty list means it may be saved."""
    problems = list(_pattern_problems(rule))
    problems += _near_problems(rule)
    if not (rule.patterns or rule.near):
        problems.append("patterns: a rule needs at least one pattern or near clause")
    if rule.scope != "passage" and not rule.patterns:
        problems.append(f"scope: {rule.scope!r} needs `patterns` (near clauses match passages)")
    if (rule.requires_nearby or rule.unless_nearby) and not rule.patterns:
        problems.append("requires_nearby: needs `patterns` to anchor the nearby check")
    if rule.only_with and rule.action == "reject":
        problems.append("only_with: a secondary rule cannot reject; make it a primary rule")
    if rule.only_with and rule.citation_check:
        problems.append("citation_check: a wrong citation routes a passage; use a primary rule")
    if not 1 <= rule.nearby_chars <= MAX_NEARBY_CHARS:
        problems.append(f"nearby_chars: must be between 1 and {MAX_NEARBY_CHARS}")
    return problems


def lint_pattern(pattern: str, *, broad_check: bool = True) -> list[str]:
    """Problems of a single regular expression (without the field prefix)."""
    if not pattern.strip():
        return ["is empty"]
    if len(pattern) > MAX_PATTERN_CHARS:
        return [f"is longer than {MAX_PATTERN_CHARS} characters; split it into several patterns"]
    try:
        compiled = regex.compile_bytes(pattern)
    except re2.error as exc:
        return [regex.unsupported_feature(pattern) or f"does not compile: {regex.error_text(exc)}"]
    if _matches_empty(compiled):
        return ["matches the empty string; require at least one character"]
    if broad_check:
        hits = sum(1 for s in ORDINARY_SENTENCES if compiled.search(s.encode()))
        if hits > BROAD_SHARE * len(ORDINARY_SENTENCES):
            return [
                f"is too broad: it matches {hits} of {len(ORDINARY_SENTENCES)} ordinary "
                "boilerplate sentences"
            ]
    return []


def _matches_empty(compiled) -> bool:
    probes = (b"", b"x", b" the, ", "甲方".encode())
    return any(m.end() == m.start() for probe in probes for m in compiled.finditer(probe))


def _pattern_problems(rule: Rule) -> Iterator[str]:
    fields = {
        "patterns": (rule.patterns, rule.scope == "passage"),
        "exceptions": (rule.exceptions, False),
        "requires_nearby": (rule.requires_nearby, False),
        "unless_nearby": (rule.unless_nearby, False),
        "confirm_if": (rule.confirm_if, False),
        "reject_if": (rule.reject_if, False),
    }
    for name, (patterns, broad_check) in fields.items():
        for i, pattern in enumerate(patterns):
            for problem in lint_pattern(pattern, broad_check=broad_check):
                yield f"{name}[{i}]: {problem}"


def _near_problems(rule: Rule) -> list[str]:
    problems = []
    for i, near in enumerate(rule.near):
        if not (1 <= near.within <= MAX_NEAR_WITHIN):
            problems.append(
                f"near[{i}].within: must be between 1 and {MAX_NEAR_WITHIN} words, "
                f"got {near.within}"
            )
        for side in ("terms_a", "terms_b"):
            terms = getattr(near, side)
            if not terms:
                problems.append(f"near[{i}].{side}: needs at least one term")
            for j, term in enumerate(terms):
                problems += [
                    f"near[{i}].{side}[{j}]: {p}" for p in lint_pattern(term, broad_check=False)
                ]
    return problems
