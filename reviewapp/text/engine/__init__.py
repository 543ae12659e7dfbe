"""Trigger-rule engine: playbooks of rules that decide which passages deserve verification.

Pure Python on RE2 (no Django): load a playbook, compile it once, scan a document's passages,
derive passage states, extract key facts. See the header of ``playbooks/commercial-en.yaml``
for the rule schema.
"""

from .compiler import CompiledPlaybook, clear_compile_cache, compile_playbook
from .facts import extract_facts, key_facts_find
from .lint import lint_pattern, lint_rule
from .loader import load_playbook, load_playbook_data
from .model import (
    ACTIONS,
    SCOPES,
    SEVERITIES,
    FactExtractor,
    Near,
    Passage,
    Playbook,
    Rule,
    RuleError,
    RuleHit,
    SimplePassage,
)
from .offline import OfflineVerdict, offline_verdict
from .scanner import CONFIRMED, PENDING, REJECTED, passage_states, scan

__all__ = [
    "ACTIONS",
    "CONFIRMED",
    "PENDING",
    "REJECTED",
    "SCOPES",
    "SEVERITIES",
    "CompiledPlaybook",
    "FactExtractor",
    "Near",
    "OfflineVerdict",
    "Passage",
    "Playbook",
    "Rule",
    "RuleError",
    "RuleHit",
    "SimplePassage",
    "clear_compile_cache",
    "compile_playbook",
    "extract_facts",
    "key_facts_find",
    "lint_pattern",
    "lint_rule",
    "load_playbook",
    "load_playbook_data",
    "offline_verdict",
    "passage_states",
    "scan",
]
