"""Value types of the trigger-rule engine: rules, playbooks and the hits a scan produces."""

from __future__ import annotations

from dataclasses import dataclass

from reviewapp.text.passages import Passage  # noqa: F401  (what the engine scans)

SEVERITIES = ("low", "medium", "high", "critical")
# The one severity ranking, most urgent first (0): queue order, due times, review page, verifier.
SEVERITY_RANK = {name: rank for rank, name in enumerate(reversed(SEVERITIES))}


def severity_rank(severity: str) -> int:
    """Rank of a severity, most urgent 0; an unknown one sorts last."""
    return SEVERITY_RANK.get(severity, len(SEVERITIES))


ACTIONS = ("verify", "human", "reject")
SCOPES = ("passage", "heading", "either")
LANGUAGES = ("en", "zh")

MAX_NEAR_WITHIN = 50
MAX_NEARBY_CHARS = 200
MAX_PATTERN_CHARS = 1000
# A playbook's size: each rule's patterns compile to RE2 programs that are kept in memory and run
# over every passage, so rules and pattern characters are bounded (the shipped playbooks hold
# 87 rules and 17 K pattern characters).
MAX_RULES = 400
MAX_PLAYBOOK_PATTERN_CHARS = 120_000
DEFAULT_NEARBY_CHARS = 40


class RuleError(ValueError):
    """A playbook or rule that cannot be loaded; the message names the rule id and the field."""


@dataclass(frozen=True)
class Near:
    """Fires when terms of ``terms_a`` and ``terms_b`` are at most ``within`` words apart."""

    terms_a: tuple[str, ...]
    terms_b: tuple[str, ...]
    within: int


@dataclass(frozen=True)
class Rule:
    id: str
    category: str
    severity: str
    language: str
    action: str = "verify"
    patterns: tuple[str, ...] = ()
    near: tuple[Near, ...] = ()
    scope: str = "passage"
    exceptions: tuple[str, ...] = ()
    requires_nearby: tuple[str, ...] = ()
    unless_nearby: tuple[str, ...] = ()
    nearby_chars: int = DEFAULT_NEARBY_CHARS
    question: str = ""
    standard_position: str = ""
    fallback: str = ""
    # Standard wording for the clause: what a redline proposes in its place.
    fallback_clause: str = ""
    confirm_if: tuple[str, ...] = ()
    reject_if: tuple[str, ...] = ()
    contract_types: tuple[str, ...] = ()
    only_with: tuple[str, ...] = ()
    # A code-evaluated check of the laws a passage cites ("prc": ``reviewapp.text.citations``).
    citation_check: str = ""
    description: str = ""

    def applies_to(self, contract_type: str | None) -> bool:
        return (
            contract_type is None
            or not self.contract_types
            or (contract_type in self.contract_types)
        )


@dataclass(frozen=True)
class FactExtractor:
    """Finds a key fact (a CUAD ``fact`` category); a ``(?P<value>...)`` group marks the value."""

    category: str
    patterns: tuple[str, ...]
    first_chars: int = 0
    case_sensitive: bool = False
    prefer_headings: tuple[str, ...] = ()


ROUTER_RULE_PREFIX = "router."
ROUTER_CONTEXT_SUFFIX = ".context"


@dataclass(frozen=True)
class RouterSettings:
    """The playbook's use of the learned router: on or off, and per-category thresholds
    (probabilities, 0..1) that override the model's own tuned ones."""

    enabled: bool = False
    thresholds: tuple[tuple[str, float], ...] = ()
    severity: str = "medium"

    def threshold_map(self) -> dict[str, float]:
        return dict(self.thresholds)


# What becomes of a flagged clause that only protects the client (binds the counterparty alone):
# a lawyer sees it as any other, one severity lower, or it is settled without a lawyer.
PROTECTS_CLIENT_POLICIES = ("lawyer", "lower", "settle")


@dataclass(frozen=True)
class SideSettings:
    """The playbook's ``side`` key: the policy for a clause that only protects the client, and
    per-category overrides."""

    protects_client: str = "lawyer"
    categories: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True)
class CheckSettings:
    """The playbook's use of the second-stage check: on or off, and whether it may drop the
    category of a ``human`` rule (a ``reject`` rule's category is never dropped)."""

    enabled: bool = False
    drop_human: bool = True


@dataclass(frozen=True)
class Playbook:
    name: str
    version: str
    language: str
    rules: tuple[Rule, ...]
    facts: tuple[FactExtractor, ...] = ()
    description: str = ""
    router: RouterSettings = RouterSettings()
    check: CheckSettings = CheckSettings()
    side: SideSettings = SideSettings()

    def rule(self, rule_id: str) -> Rule:
        for rule in self.rules:
            if rule.id == rule_id:
                return rule
        raise KeyError(rule_id)

    @property
    def categories(self) -> list[str]:
        return sorted({rule.category for rule in self.rules})


@dataclass(frozen=True)
class RuleHit:
    """A rule that fired on one passage; offsets are absolute into the document text."""

    rule_id: str
    category: str
    action: str
    severity: str
    segment_index: int
    match_start: int
    match_end: int
    # Learned router flags only: the model's probability and the words that weighed most.
    score: float | None = None
    words: tuple[str, ...] = ()


def router_rule_id(category: str, *, context: bool = False) -> str:
    slug = "-".join("".join(c if c.isalnum() else " " for c in category.lower()).split())
    return f"{ROUTER_RULE_PREFIX}{slug}{ROUTER_CONTEXT_SUFFIX if context else ''}"


def is_router_rule(rule_id: str) -> bool:
    return rule_id.startswith(ROUTER_RULE_PREFIX)


@dataclass(frozen=True)
class SimplePassage:
    """A stand-in segment for callers that have offsets but no segmentation result."""

    index: int
    start: int
    end: int
    heading: str = ""
    page: int = 1
    number: str = ""
    is_heading: bool = False
