"""Compiles a playbook once: one RE2 program per pattern, plus the per-passage prefilter."""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass, field, replace

import re2

from . import regex
from .model import FactExtractor, Near, Playbook, Rule, router_rule_id


@dataclass(frozen=True)
class CompiledNear:
    terms_a: regex.Compiled
    terms_b: regex.Compiled
    within: int


@dataclass(frozen=True)
class CompiledRule:
    rule: Rule
    patterns: tuple[regex.Compiled, ...]
    any_pattern: regex.Compiled | None  # all patterns in one program, to test a passage at once
    near: tuple[CompiledNear, ...]
    exception: regex.Compiled | None
    requires_nearby: tuple[regex.Compiled, ...]
    unless_nearby: regex.Compiled | None
    confirm_if: regex.Compiled | None
    reject_if: regex.Compiled | None


@dataclass(frozen=True)
class CompiledFact:
    extractor: FactExtractor
    patterns: tuple[regex.Compiled, ...]
    prefer_headings: regex.Compiled | None = None


@dataclass(frozen=True)
class Trigger:
    """What a prefilter entry stands for: a rule's n-th pattern, or the first terms of a near."""

    rule: int
    kind: str  # "pattern" | "near"
    position: int


class Prefilter:
    """All trigger regexes of one scope in an RE2 ``Filter``.

    One call finds which triggers match a text: the filter looks for the literal atoms of every
    regex in a single pass and runs only the regexes whose atoms are present, all inside RE2.
    That keeps a passage at one Python-level call instead of one per pattern.
    """

    def __init__(self, entries: list[tuple[str, Trigger]]):
        self.triggers = tuple(trigger for _pattern, trigger in entries)
        self._filter = re2.Filter()
        for pattern, _trigger in entries:
            self._filter.Add(pattern.encode("utf-8"), regex.options())
        self._filter.Compile()

    def match(self, data: bytes) -> list[Trigger]:
        return [self.triggers[i] for i in self._filter.Match(data) or ()]

    def potential(self, data: bytes) -> list[Trigger]:
        """Triggers whose literal atoms occur in ``data``: a superset of ``match``, found without
        running any regex, so it can be computed chunk by chunk on a huge text."""
        return [self.triggers[i] for i in self._filter.Match(data, potential=True) or ()]


@dataclass
class CompiledPlaybook:
    """Everything ``scan`` needs, built by ``compile_playbook`` and shared between threads."""

    playbook: Playbook
    rules: tuple[CompiledRule, ...]
    facts: tuple[CompiledFact, ...]
    passage_filter: Prefilter | None
    heading_filter: Prefilter | None
    secondary_filter: Prefilter | None = None
    by_id: dict[str, int] = field(default_factory=dict)
    secondary: tuple[int, ...] = ()
    # Rules with a ``citation_check``: the scan looks at every passage for them, patterns or not.
    citation_rules: frozenset[int] = frozenset()
    _active: dict[str | None, frozenset[int]] = field(default_factory=dict)

    def active_rules(self, contract_type: str | None) -> frozenset[int]:
        if contract_type not in self._active:
            self._active[contract_type] = frozenset(
                i for i, c in enumerate(self.rules) if c.rule.applies_to(contract_type)
            )
        return self._active[contract_type]

    def compiled_rule(self, rule_id: str) -> CompiledRule:
        return self.rules[self.by_id[rule_id]]

    def routes(self, rule_id: str) -> bool:
        """Whether the rule routes passages by itself (a secondary ``only_with`` rule does not:
        it adds a question, never a passage, a lawyer or a higher priority). Unknown ids count
        as routing, so a firing never loses weight because its rule was renamed."""
        index = self.by_id.get(rule_id)
        return index is None or not self.rules[index].rule.only_with


# The most recently used compiled playbooks, at most _CACHE_SIZE: playbooks submitted to the
# test box under ever new names must not grow a web process without bound (issue 27 saw 10
# such requests take one from 246 to 1,551 MB).
_CACHE: OrderedDict[tuple[str, str], CompiledPlaybook] = OrderedDict()
_CACHE_SIZE = 16
_CACHE_LOCK = threading.Lock()


def compile_playbook(playbook: Playbook, *, cache: bool = True) -> CompiledPlaybook:
    """Compile ``playbook``, reusing the result for the same name and version.

    An edited playbook that kept its name and version is recompiled rather than served stale.
    With ``cache=False`` (a source pasted into the test box) nothing is kept: its RE2 programs
    are freed with the result.
    """
    if not cache:
        return _compile(playbook)
    key = (playbook.name, playbook.version)
    with _CACHE_LOCK:
        cached = _CACHE.get(key)
        if cached is not None and cached.playbook == playbook:
            _CACHE.move_to_end(key)
            return cached
    compiled = _compile(playbook)
    with _CACHE_LOCK:
        _CACHE[key] = compiled
        _CACHE.move_to_end(key)
        while len(_CACHE) > _CACHE_SIZE:
            _CACHE.popitem(last=False)
    return compiled


def clear_compile_cache() -> None:
    with _CACHE_LOCK:
        _CACHE.clear()


def router_rules(playbook: Playbook) -> tuple[Rule, ...]:
    """With the router on, a rule per category it may flag, so a router flag is a firing like a
    rule's: the category's question and positions, the severity of its first routing rule,
    action ``verify``. The ``.context`` twin names a category on a passage already routed
    (like a secondary rule) without routing anything itself."""
    if not playbook.router.enabled:
        return ()
    first: dict[str, Rule] = {}
    for rule in playbook.rules:
        if not rule.only_with and rule.category not in first:
            first[rule.category] = rule
    categories = tuple(first)
    rules = []
    for category, model in first.items():
        routing = Rule(
            id=router_rule_id(category),
            category=category,
            severity=model.severity,
            language=playbook.language,
            action="verify",
            question=model.question,
            standard_position=model.standard_position,
            fallback=model.fallback,
            fallback_clause=model.fallback_clause,
            description="Flagged by the learned router (a passage classifier), not a pattern.",
        )
        rules.append(routing)
        rules.append(
            replace(routing, id=router_rule_id(category, context=True), only_with=categories)
        )
    return tuple(rules)


def _compile(playbook: Playbook) -> CompiledPlaybook:
    passage: list[tuple[str, Trigger]] = []
    heading: list[tuple[str, Trigger]] = []
    secondary: list[tuple[str, Trigger]] = []
    for i, rule in enumerate(playbook.rules):
        # Secondary rules run only where a primary one fired, so they stay out of the passage
        # prefilter: their broad context words would make it run on almost every passage.
        into_passage = not rule.only_with
        for n, pattern in enumerate(rule.patterns):
            if rule.scope in ("passage", "either"):
                entries = passage if into_passage else secondary
                entries.append((regex.widen_spaces(pattern), Trigger(i, "pattern", n)))
            if rule.scope in ("heading", "either"):
                heading.append((regex.widen_spaces(pattern), Trigger(i, "pattern", n)))
        for n, near in enumerate(rule.near):
            if into_passage:
                terms = regex.widen_spaces(regex.alternation(near.terms_a))
                passage.append((terms, Trigger(i, "near", n)))
    # Router rules have no patterns: they come last, and the scan never runs them itself.
    every_rule = playbook.rules + router_rules(playbook)
    return CompiledPlaybook(
        playbook=playbook,
        rules=tuple(_compile_rule(rule) for rule in every_rule),
        facts=tuple(_compile_fact(f) for f in playbook.facts),
        passage_filter=Prefilter(passage) if passage else None,
        heading_filter=Prefilter(heading) if heading else None,
        secondary_filter=Prefilter(secondary) if secondary else None,
        by_id={rule.id: i for i, rule in enumerate(every_rule)},
        secondary=tuple(i for i, rule in enumerate(playbook.rules) if rule.only_with),
        citation_rules=frozenset(i for i, rule in enumerate(playbook.rules) if rule.citation_check),
    )


def _compile_rule(rule: Rule) -> CompiledRule:
    return CompiledRule(
        rule=rule,
        patterns=tuple(_rule_regex(p) for p in rule.patterns),
        any_pattern=_maybe(rule.patterns),
        near=tuple(_compile_near(near) for near in rule.near),
        exception=_maybe(rule.exceptions),
        requires_nearby=tuple(_rule_regex(p) for p in rule.requires_nearby),
        unless_nearby=_maybe(rule.unless_nearby),
        confirm_if=_maybe(rule.confirm_if),
        reject_if=_maybe(rule.reject_if),
    )


def _compile_near(near: Near) -> CompiledNear:
    return CompiledNear(
        terms_a=_rule_regex(regex.alternation(near.terms_a)),
        terms_b=_rule_regex(regex.alternation(near.terms_b)),
        within=near.within,
    )


def _compile_fact(extractor: FactExtractor) -> CompiledFact:
    return CompiledFact(
        extractor=extractor,
        patterns=tuple(
            regex.compile_bytes(p, case_sensitive=extractor.case_sensitive)
            for p in extractor.patterns
        ),
        prefer_headings=_maybe(extractor.prefer_headings),
    )


def _maybe(patterns: tuple[str, ...]) -> regex.Compiled | None:
    return _rule_regex(regex.alternation(patterns)) if patterns else None


def _rule_regex(pattern: str) -> regex.Compiled:
    """Rule patterns match across line wraps (see ``regex.widen_spaces``); facts do not: their
    patterns anchor on line structure."""
    return regex.compile_bytes(regex.widen_spaces(pattern))
