"""Builds a ``Playbook`` from YAML or from the dict the database stores, validating every field."""

from __future__ import annotations

import functools
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from reviewapp.text.citations import CHECKS as CITATION_CHECKS

from .bounded_yaml import YamlRefused, load_bounded
from .lint import lint_pattern, lint_rule
from .model import (
    ACTIONS,
    DEFAULT_NEARBY_CHARS,
    LANGUAGES,
    MAX_PLAYBOOK_PATTERN_CHARS,
    MAX_RULES,
    PROTECTS_CLIENT_POLICIES,
    SCOPES,
    SEVERITIES,
    CheckSettings,
    FactExtractor,
    Near,
    Playbook,
    RouterSettings,
    Rule,
    RuleError,
    SideSettings,
)

_RULE_FIELDS = {
    "id",
    "category",
    "severity",
    "language",
    "action",
    "patterns",
    "near",
    "scope",
    "exceptions",
    "requires_nearby",
    "unless_nearby",
    "nearby_chars",
    "question",
    "standard_position",
    "fallback",
    "fallback_clause",
    "confirm_if",
    "reject_if",
    "contract_types",
    "only_with",
    "citation_check",
    "description",
}
_FACT_FIELDS = {"category", "patterns", "first_chars", "case_sensitive", "prefer_headings"}


def load_playbook(path: str | Path) -> Playbook:
    """The playbook in file ``path``. A file is read again only once it changed (the result is
    immutable): reading and validating a shipped playbook costs most of a second of CPU."""
    stat = Path(path).stat()
    return _load_file(str(Path(path).resolve()), stat.st_mtime_ns, stat.st_size)


@functools.lru_cache(maxsize=16)
def _load_file(path: str, mtime_ns: int, size: int) -> Playbook:
    with open(path, encoding="utf-8") as handle:
        try:
            data = load_bounded(handle.read())
        except YamlRefused as error:
            raise RuleError(f"playbook {path}: {error}") from None
    if not isinstance(data, Mapping):
        raise RuleError(f"playbook {path}: expected a mapping at the top level")
    return load_playbook_data(data)


def load_playbook_data(data: Mapping[str, Any]) -> Playbook:
    """Validate ``data`` (parsed YAML) and return the playbook; raises ``RuleError``."""
    for key in ("name", "version", "language", "rules"):
        if key not in data:
            raise RuleError(f"playbook: missing field {key!r}")
    language = _choice("playbook", "language", data["language"], LANGUAGES)
    raw_rules = data["rules"]
    if not isinstance(raw_rules, list) or not raw_rules:
        raise RuleError("playbook: `rules` must be a non-empty list")
    if len(raw_rules) > MAX_RULES:
        raise RuleError(f"playbook: {len(raw_rules):,} rules; at most {MAX_RULES:,} are allowed")
    rules = [_rule(raw, language, position) for position, raw in enumerate(raw_rules)]
    seen: set[str] = set()
    for rule in rules:
        if rule.id in seen:
            raise RuleError(f"rule {rule.id}: id: duplicate rule id")
        seen.add(rule.id)
    _check_pattern_size(rules)
    facts = tuple(_fact(raw, i) for i, raw in enumerate(data.get("facts") or []))
    return Playbook(
        name=str(data["name"]),
        version=str(data["version"]),
        language=language,
        rules=tuple(rules),
        facts=facts,
        description=str(data.get("description") or ""),
        router=_router(data.get("router")),
        check=_check(data.get("check")),
        side=_side(data.get("side")),
    )


def _check_pattern_size(rules: list[Rule]) -> None:
    chars = sum(len(text) for rule in rules for text in _pattern_texts(rule))
    if chars > MAX_PLAYBOOK_PATTERN_CHARS:
        raise RuleError(
            f"playbook: its patterns hold {chars:,} characters; "
            f"at most {MAX_PLAYBOOK_PATTERN_CHARS:,} are allowed"
        )


def _pattern_texts(rule: Rule) -> list[str]:
    texts = [*rule.patterns, *rule.exceptions, *rule.requires_nearby, *rule.unless_nearby]
    texts += [*rule.reject_if, *rule.confirm_if]
    for near in rule.near:
        texts += [*near.terms_a, *near.terms_b]
    return texts


def _check(raw: Any) -> CheckSettings:
    """``check: {enabled: true, drop_human: true}``."""
    if raw is None:
        return CheckSettings()
    if not isinstance(raw, Mapping) or set(raw) - {"enabled", "drop_human"}:
        raise RuleError("check: expected {enabled, drop_human}")
    for key in ("enabled", "drop_human"):
        if not isinstance(raw.get(key, True), bool):
            raise RuleError(f"check: {key}: expected true or false")
    return CheckSettings(
        enabled=bool(raw.get("enabled", False)), drop_human=bool(raw.get("drop_human", True))
    )


def _side(raw: Any) -> SideSettings:
    """``side: {protects_client: lower, categories: {Non-Compete: lawyer}}``: what becomes of a
    flagged clause that only protects the client (lawyer, lower or settle)."""
    if raw is None:
        return SideSettings()
    label = "side"
    if not isinstance(raw, Mapping) or set(raw) - {"protects_client", "categories"}:
        raise RuleError(f"{label}: expected {{protects_client, categories}}")
    policy = _choice(
        label, "protects_client", raw.get("protects_client", "lawyer"), PROTECTS_CLIENT_POLICIES
    )
    categories = raw.get("categories") or {}
    if not isinstance(categories, Mapping):
        raise RuleError(f"{label}: categories: expected a mapping of category to a policy")
    pairs = tuple(
        (
            str(category),
            _choice(f"{label}: categories", _key(category), value, PROTECTS_CLIENT_POLICIES),
        )
        for category, value in categories.items()
    )
    return SideSettings(protects_client=policy, categories=pairs)


def _router(raw: Any) -> RouterSettings:
    """``router: {enabled: true, severity: medium, thresholds: {Category: 0.4}}``."""
    if raw is None:
        return RouterSettings()
    label = "router"
    if not isinstance(raw, Mapping) or set(raw) - {"enabled", "thresholds", "severity"}:
        raise RuleError(f"{label}: expected {{enabled, thresholds, severity}}")
    if not isinstance(raw.get("enabled", False), bool):
        raise RuleError(f"{label}: enabled: expected true or false")
    thresholds = raw.get("thresholds") or {}
    if not isinstance(thresholds, Mapping):
        raise RuleError(f"{label}: thresholds: expected a mapping of category to a number")
    pairs = []
    for category, value in thresholds.items():
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 < value <= 1:
            raise RuleError(
                f"{label}: thresholds: {str(category)[:80]}: expected a number in (0, 1]"
            )
        pairs.append((str(category), float(value)))
    return RouterSettings(
        enabled=bool(raw.get("enabled", False)),
        thresholds=tuple(pairs),
        severity=_choice(label, "severity", raw.get("severity", "medium"), SEVERITIES),
    )


def _rule(raw: Any, default_language: str, position: int) -> Rule:
    if not isinstance(raw, Mapping):
        raise RuleError(f"rule #{position + 1}: expected a mapping")
    rule_id = raw.get("id")
    if not isinstance(rule_id, str) or not rule_id.strip():
        raise RuleError(f"rule #{position + 1}: id: missing or not a string")
    label = f"rule {rule_id[:80]}"
    unknown = sorted(set(raw) - _RULE_FIELDS, key=str)
    if unknown:
        raise RuleError(f"{label}: {_key(unknown[0])}: unknown field")
    if not isinstance(raw.get("category"), str) or not raw["category"].strip():
        raise RuleError(f"{label}: category: missing or not a string")

    def strings(name: str) -> tuple[str, ...]:
        return _strings(label, name, raw.get(name))

    def text(name: str) -> str:
        return _text(label, name, raw.get(name))

    rule = Rule(
        id=rule_id,
        category=raw["category"],
        severity=_choice(label, "severity", raw.get("severity", "medium"), SEVERITIES),
        language=_choice(label, "language", raw.get("language", default_language), LANGUAGES),
        action=_choice(label, "action", raw.get("action", "verify"), ACTIONS),
        patterns=strings("patterns"),
        near=tuple(_near(label, i, item) for i, item in enumerate(raw.get("near") or [])),
        scope=_choice(label, "scope", raw.get("scope", "passage"), SCOPES),
        exceptions=strings("exceptions"),
        requires_nearby=strings("requires_nearby"),
        unless_nearby=strings("unless_nearby"),
        nearby_chars=_integer(label, "nearby_chars", raw.get("nearby_chars", DEFAULT_NEARBY_CHARS)),
        question=text("question"),
        standard_position=text("standard_position"),
        fallback=text("fallback"),
        fallback_clause=text("fallback_clause"),
        confirm_if=strings("confirm_if"),
        reject_if=strings("reject_if"),
        contract_types=strings("contract_types"),
        only_with=strings("only_with"),
        citation_check=_citation_check(label, raw.get("citation_check")),
        description=text("description"),
    )
    problems = lint_rule(rule)
    if problems:
        raise RuleError(f"{label}: {problems[0]}")
    return rule


def _citation_check(label: str, value: Any) -> str:
    """``citation_check: prc``: the laws the passage cites are checked against the table of
    the law in force (absent, empty or ``none``: no check)."""
    if value in (None, "", "none"):
        return ""
    return _choice(label, "citation_check", value, CITATION_CHECKS)


def _near(label: str, i: int, raw: Any) -> Near:
    if not isinstance(raw, Mapping) or set(raw) - {"terms_a", "terms_b", "within"}:
        raise RuleError(f"{label}: near[{i}]: expected {{terms_a, terms_b, within}}")
    return Near(
        terms_a=_strings(label, f"near[{i}].terms_a", raw.get("terms_a")),
        terms_b=_strings(label, f"near[{i}].terms_b", raw.get("terms_b")),
        within=_integer(label, f"near[{i}].within", raw.get("within")),
    )


def _fact(raw: Any, i: int) -> FactExtractor:
    label = f"fact #{i + 1}"
    if not isinstance(raw, Mapping) or not isinstance(raw.get("category"), str):
        raise RuleError(f"{label}: category: missing")
    label = f"fact {raw['category']}"
    unknown = sorted(set(raw) - _FACT_FIELDS, key=str)
    if unknown:
        raise RuleError(f"{label}: {_key(unknown[0])}: unknown field")
    patterns = _strings(label, "patterns", raw.get("patterns"))
    case_sensitive = bool(raw.get("case_sensitive", False))
    for j, pattern in enumerate(patterns):
        problems = lint_pattern(pattern, broad_check=False)
        if problems:
            raise RuleError(f"{label}: patterns[{j}]: {problems[0]}")
    prefer_headings = _strings(label, "prefer_headings", raw.get("prefer_headings"))
    for j, pattern in enumerate(prefer_headings):
        problems = lint_pattern(pattern, broad_check=False)
        if problems:
            raise RuleError(f"{label}: prefer_headings[{j}]: {problems[0]}")
    return FactExtractor(
        category=raw["category"],
        patterns=patterns,
        first_chars=_integer(label, "first_chars", raw.get("first_chars", 0)),
        case_sensitive=case_sensitive,
        prefer_headings=prefer_headings,
    )


def shown(value: Any) -> str:
    """A value in an error message: short text as it is, anything else by its type only."""
    if isinstance(value, (str, int, float, bool)) and len(str(value)) <= 40:
        return repr(value)
    return f"a {type(value).__name__}" + (
        f" of {len(value):,} items" if hasattr(value, "__len__") else ""
    )


def _key(key: Any) -> str:
    """A field name in an error: as written when it is short text."""
    return key if isinstance(key, str) and len(key) <= 40 else shown(key)


def _choice(label: str, name: str, value: Any, allowed: tuple[str, ...]) -> str:
    if value not in allowed:
        raise RuleError(f"{label}: {name}: {shown(value)} is not one of {', '.join(allowed)}")
    return value


def _strings(label: str, name: str, value: Any) -> tuple[str, ...]:
    if value is None:
        return ()
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise RuleError(f"{label}: {name}: expected a list of strings")
    return tuple(value)


def _text(label: str, name: str, value: Any) -> str:
    if value is None:
        return ""
    if not isinstance(value, str):
        raise RuleError(f"{label}: {name}: expected text")
    return value.strip()


def _integer(label: str, name: str, value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise RuleError(f"{label}: {name}: expected a whole number, got {shown(value)}")
    return value
