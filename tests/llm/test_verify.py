"""The verifier's hard rules are enforced in code, whatever the model answers."""

from __future__ import annotations

from typing import Any

import pytest

from reviewapp.llm import (
    CONFLICTING_VERDICTS,
    NO_VERDICT,
    QUOTE_NOT_FOUND,
    LLMUnavailable,
    quote_found,
    verify_passages,
)
from reviewapp.llm.schemas import RECORD_VERDICTS_TOOL
from tests.fakes.messages_server import (
    BogusQuoteBrain,
    Brain,
    PlantedInstructionBrain,
    RejectingBrain,
    ScriptedBrain,
    running_server,
)
from tests.llm import PARAGRAPHS, PLANTED, PLANTED_RANGE, item, prefix, settings_for, usage_of


def verify(brain: Brain, items, contract_prefix: str | None = None):
    with running_server(brain) as server:
        result = verify_passages(
            settings_for(server), prefix=contract_prefix or prefix(), items=items
        )
    return result, server


def answer(passage: Any, outcome: str = "CONFIRMED", quote: str = "", **fields):
    return {
        "passage": passage,
        "outcome": outcome,
        "risk": "low",
        "rationale": "Because.",
        "quote": quote,
        "redline": "",
        "question": "",
        **fields,
    }


def test_default_verdicts_come_back_in_batch_order_with_usage():
    result, server = verify(Brain(), [item(4), item(1)])

    assert [(v.passage_index, v.outcome, v.reason) for v in result.verdicts] == [
        (4, "CONFIRMED", None),
        (1, "CONFIRMED", None),
    ]
    assert result.usage.output_tokens > 0 and result.usage.ttft_ms is None
    body = server.requests[0].body
    assert body["tool_choice"] == {"type": "tool", "name": "record_verdicts"}
    assert body["tools"] == [RECORD_VERDICTS_TOOL]
    assert "stream" not in body
    assert "[P4] rule R-4 (Cap On Liability): Is this acceptable?" in body["messages"][0]["content"]


def test_rejection_with_a_valid_quote_stands():
    result, _ = verify(RejectingBrain(), [item(2)])

    verdict = result.verdicts[0]
    assert (verdict.outcome, verdict.risk, verdict.reason) == ("REJECTED", "high", None)
    assert verdict.redline


@pytest.mark.parametrize("brain", [BogusQuoteBrain(), ScriptedBrain(verdicts={"verdicts": []})])
def test_unsupported_or_missing_verdicts_need_a_human(brain):
    result, _ = verify(brain, [item(1), item(2)])

    expected = QUOTE_NOT_FOUND if isinstance(brain, BogusQuoteBrain) else NO_VERDICT
    assert [(v.outcome, v.reason) for v in result.verdicts] == [
        ("NEEDS_HUMAN_REVIEW", expected)
    ] * 2


def test_rejection_with_a_bogus_quote_is_not_a_rejection():
    invented = answer(2, "REJECTED", "The Supplier may never be liable.")
    result, _ = verify(ScriptedBrain(verdicts={"verdicts": [invented]}), [item(2)])

    assert (result.verdicts[0].outcome, result.verdicts[0].reason) == (
        "NEEDS_HUMAN_REVIEW",
        QUOTE_NOT_FOUND,
    )
    assert result.verdicts[0].quote == invented["quote"]


def test_quote_with_different_whitespace_is_accepted():
    quote = "indemnify   the Customer against all losses whatsoever, without any limit."
    scripted = ScriptedBrain(verdicts={"verdicts": [answer(2, "REJECTED", quote)]})

    result, _ = verify(scripted, [item(2)])

    assert (result.verdicts[0].outcome, result.verdicts[0].reason) == ("REJECTED", None)


def test_quote_from_another_passage_does_not_count():
    quote = "governed by the laws of England and Wales"
    result, _ = verify(ScriptedBrain(verdicts={"verdicts": [answer(2, quote=quote)]}), [item(2)])

    assert result.verdicts[0].reason == QUOTE_NOT_FOUND


def test_verdict_for_a_passage_outside_the_batch_is_dropped():
    extra = answer(3, quote="The Customer shall pay EUR 120,000 per year.")
    own = answer(4, quote="governed by the laws of England")
    result, _ = verify(ScriptedBrain(verdicts={"verdicts": [extra, own]}), [item(4)])

    assert [(v.passage_index, v.outcome) for v in result.verdicts] == [(4, "CONFIRMED")]


def test_contradictory_verdicts_for_one_passage_need_a_human():
    quote = "governed by the laws of England"
    both = [answer(4, "CONFIRMED", quote), answer(4, "REJECTED", quote)]
    result, _ = verify(ScriptedBrain(verdicts={"verdicts": both}), [item(4)])

    assert result.verdicts[0].reason == CONFLICTING_VERDICTS


def test_model_needs_human_review_is_kept_without_a_quote():
    unsure = answer(1, "NEEDS_HUMAN_REVIEW", question="Which notice period applies?")
    result, _ = verify(ScriptedBrain(verdicts={"verdicts": [unsure]}), [item(1)])

    verdict = result.verdicts[0]
    assert (verdict.outcome, verdict.reason) == ("NEEDS_HUMAN_REVIEW", None)
    assert verdict.question == "Which notice period applies?"


@pytest.mark.parametrize(
    "tool_input",
    [
        {"verdicts": [answer(1, "MAYBE", "This Agreement starts")]},
        {"verdicts": [{"passage": 1, "outcome": "CONFIRMED"}]},
        {"verdicts": [answer(1, quote="This Agreement starts", extra="field")]},
        {"verdicts": [answer("1", quote="This Agreement starts")]},
        {"answers": []},
    ],
    ids=["enum", "missing-fields", "extra-field", "string-index", "wrong-key"],
)
def test_tool_input_that_breaks_the_schema_is_a_bad_response(tool_input):
    with pytest.raises(LLMUnavailable) as caught:
        verify(ScriptedBrain(verdicts=tool_input), [item(1)])

    assert (caught.value.kind, caught.value.retryable) == ("bad_response", True)
    assert usage_of(caught.value).output_tokens > 0


def test_planted_instruction_cannot_lend_its_quote_to_other_passages():
    result, _ = verify(PlantedInstructionBrain(), [item(3), item(2)])

    assert [(v.outcome, v.quote) for v in result.verdicts] == [
        ("CONFIRMED", " ".join(PLANTED.split())),  # it is in passage 3: the rule engine decides
        ("NEEDS_HUMAN_REVIEW", " ".join(PLANTED.split())),
    ]
    assert result.verdicts[1].reason == QUOTE_NOT_FOUND


def test_withheld_planted_instruction_changes_nothing():
    withheld = prefix((PLANTED_RANGE,))
    obedient, _ = verify(PlantedInstructionBrain(), [item(3), item(2)], withheld)
    ordinary, _ = verify(Brain(), [item(3), item(2)], withheld)

    assert obedient.verdicts == ordinary.verdicts
    assert all(v.reason is None for v in obedient.verdicts)


def test_a_batch_must_name_distinct_passages():
    with pytest.raises(ValueError):
        verify(Brain(), [item(1), item(1)])
    with pytest.raises(ValueError):
        verify(Brain(), [])


@pytest.mark.parametrize(
    ("quote", "passage", "found"),
    [
        ("shall indemnify\n the Customer", PARAGRAPHS[2], True),
        ("", PARAGRAPHS[2], False),
        ("   ", PARAGRAPHS[2], False),
        ("the", PARAGRAPHS[2], False),
        ("Term.", "Term.", True),
        ("shall  indemnify  THE customer", PARAGRAPHS[2], False),
    ],
)
def test_quote_found_ignores_only_whitespace(quote, passage, found):
    assert quote_found(quote, passage) is found
