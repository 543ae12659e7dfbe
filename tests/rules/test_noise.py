"""Less noise: definitions that only name a term, and no routing on one common word."""

from __future__ import annotations

import re

import pytest

from reviewapp.rules.services import DEFAULTS_DIR
from reviewapp.text.engine import compile_playbook, load_playbook, passage_states, scan
from reviewapp.text.engine.scanner import only_defines_a_term
from reviewapp.text.segmentation import segment

# Words a lawyer reads as a term of art: routing on one of them alone is intended.
TERMS_OF_ART = {"mfn", "rofr", "rofn", "rofo", "inventorship", "escrow"}


@pytest.fixture(scope="module")
def english():
    return compile_playbook(load_playbook(DEFAULTS_DIR / "commercial-en.yaml"))


@pytest.mark.parametrize(
    "text",
    [
        '"Purchase Order" means a written order for Products issued by Buyer to Supplier.',
        "1.12 “Territory” means the United States of America and Canada.",
        '(c) "Minimum Order" shall mean an order of at least ten units.',
    ],
)
def test_a_definition_that_only_names_a_term_is_not_routed(english, text):
    assert only_defines_a_term(text)
    segments = segment(text + "\n")
    assert passage_states(segments, scan(english, text + "\n", segments)) == ["CONFIRMED"]


@pytest.mark.parametrize(
    "text",
    [
        '"Exclusive Territory" means the area in which Distributor shall be the exclusive '
        "distributor of the Products.",
        '"Licensed Patents" means the patents under which Licensee may not grant sublicenses '
        "without the prior written consent of Licensor.",
    ],
)
def test_a_definition_that_carries_the_obligation_is_routed(english, text):
    assert not only_defines_a_term(text)
    segments = segment(text + "\n")
    assert "PENDING" in passage_states(segments, scan(english, text + "\n", segments))


def test_no_routing_rule_fires_on_one_common_word(english):
    single_word = re.compile(r"^(?:\\b)?\(?(?:\?:)?([a-z]+)\)?(?:\\b)?$", re.IGNORECASE)
    offenders = []
    for crule in english.rules:
        rule = crule.rule
        if rule.only_with or rule.id.startswith("router."):
            continue
        for pattern in rule.patterns:
            match = single_word.match(pattern)
            if match and match.group(1).lower() not in TERMS_OF_ART:
                offenders.append((rule.id, pattern))
    assert offenders == []


def test_no_flagged_passage_is_a_bare_heading(english, shipped):
    from reviewapp.text.router.flags import merge_hits, router_hits

    entries = [
        "Exclusivity",
        "Limitation of Liability",
        "Change of Control",
        "Assignment",
        "Most Favored Customer",
        "Non-Competition",
        "Audit Rights",
        "Insurance",
    ] * 5
    contents = "".join(f"Section {n + 1}. {title} {n + 3}\n\n" for n, title in enumerate(entries))
    text = (
        f"TABLE OF CONTENTS\n\n{contents}\n\n"
        "1. Limitation of Liability. In no event shall either party's liability exceed the fees"
        " paid under this Agreement.\n"
    )
    segments = segment(text)
    hits = scan(english, text, segments)
    hits = merge_hits(english, hits, router_hits(english, shipped, text, segments, hits))
    states = passage_states(segments, hits)
    assert any(s.is_heading for s in segments)
    bare = [state for s, state in zip(segments, states, strict=True) if s.is_heading]
    assert set(bare) == {"CONFIRMED"}
    assert "PENDING" in states  # the clause itself is flagged


@pytest.fixture(scope="module")
def shipped():
    from reviewapp.text.router import shipped_router_path
    from reviewapp.text.router.model import load_router

    return load_router(shipped_router_path())
