"""`fallback_clause`: a rule's standard wording, which a redline proposes in the clause's place."""

from __future__ import annotations

import pytest

from reviewapp.rules.services import DEFAULTS_DIR
from reviewapp.text.engine.compiler import router_rules
from reviewapp.text.engine.loader import load_playbook, load_playbook_data
from reviewapp.text.engine.model import RuleError


def rules_with(**fields):
    rule = {"id": "en.t.cap", "category": "Cap On Liability", "patterns": ["liabilit"], **fields}
    return {"name": "t", "version": "1", "language": "en", "rules": [rule]}


def test_a_rule_carries_its_standard_wording():
    playbook = load_playbook_data(rules_with(fallback_clause="  Liability is capped.  "))
    assert playbook.rules[0].fallback_clause == "Liability is capped."


def test_wording_that_is_not_text_is_refused_by_name():
    with pytest.raises(RuleError, match="fallback_clause: expected text"):
        load_playbook_data(rules_with(fallback_clause=["a list"]))


def test_router_rules_propose_the_wording_of_their_category():
    data = rules_with(fallback_clause="Liability is capped.")
    data["router"] = {"enabled": True}
    (routing, context) = router_rules(load_playbook_data(data))
    assert routing.fallback_clause == context.fallback_clause == "Liability is capped."


@pytest.mark.parametrize(
    ("name", "rule_ids"),
    [
        (
            "commercial-en",
            [
                "en.cap-on-liability.terms",
                "en.uncapped-liability.terms",
                "en.anti-assignment.terms",
                "en.most-favored-nation.terms",
                "en.termination-for-convenience.terms",
                "en.liquidated-damages.terms",
            ],
        ),
        (
            "commercial-zh",
            [
                "zh.cap-on-liability.limit",
                "zh.liquidated-damages.penalty",
                "zh.late-payment-interest.rate",
                "zh.anti-assignment.consent",
            ],
        ),
    ],
)
def test_the_shipped_playbooks_have_wording_for_key_categories(name, rule_ids):
    playbook = load_playbook(DEFAULTS_DIR / f"{name}.yaml")
    for rule_id in rule_ids:
        clause = playbook.rule(rule_id).fallback_clause
        assert len(clause) > (30 if name.endswith("zh") else 60), rule_id
        # Folded YAML must not cut Chinese wording with a space.
        assert " " not in clause if name.endswith("zh") else clause.endswith(".")
