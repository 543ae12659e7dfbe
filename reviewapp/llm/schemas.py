"""JSON schemas of the model's answers, and their validators (jsonschema, Draft 2020-12).

The schemas are sent to the model (the verdict tool's ``input_schema``) and checked here
again: the model's output is never trusted to match them.
"""

from __future__ import annotations

from typing import Any

from jsonschema import Draft202012Validator

RISKS = ["low", "medium", "high", "critical"]
OUTCOMES = ["CONFIRMED", "REJECTED", "NEEDS_HUMAN_REVIEW"]

VERDICT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "passage": {"type": "integer", "description": "Index n of the passage marker [Pn]."},
        "outcome": {"type": "string", "enum": OUTCOMES},
        "risk": {"type": "string", "enum": RISKS},
        "rationale": {"type": "string", "description": "Why, in two or three sentences."},
        "quote": {
            "type": "string",
            "description": "Verbatim words copied from this passage that support the outcome.",
        },
        "redline": {
            "type": "string",
            "description": "Suggested replacement wording, or an empty string.",
        },
        "question": {
            "type": "string",
            "description": "A clarification question for the counterparty, or an empty string.",
        },
    },
    "required": ["passage", "outcome", "risk", "rationale", "quote", "redline", "question"],
    "additionalProperties": False,
}

VERDICTS_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"verdicts": {"type": "array", "items": VERDICT_SCHEMA}},
    "required": ["verdicts"],
    "additionalProperties": False,
}

RECORD_VERDICTS_TOOL: dict[str, Any] = {
    "name": "record_verdicts",
    "description": "Record one verdict for every passage you were asked to verify.",
    "input_schema": VERDICTS_SCHEMA,
    "strict": True,
}

# The draft's key facts: each names the passage it was read from and quotes it, so the code can
# check the quote and normalise the words like the offline engine's (reviewapp.text.facts).
KEY_FACT_SINGLE = (
    "agreement_date",
    "effective_date",
    "expiration_date",
    "renewal_term",
    "notice_period",
    "governing_law",
)
KEY_FACT_LISTS = ("parties", "amounts")
_SOURCE = {
    "passage": {"type": "integer", "description": "Index n of the passage marker [Pn]."},
    "quote": {"type": "string", "description": "Verbatim words of that passage stating it."},
}
KEY_FACT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"text": {"type": "string"}, **_SOURCE},
    "required": ["text", "passage", "quote"],
}
PARTY_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"name": {"type": "string"}, "role": {"type": "string"}, **_SOURCE},
    "required": ["name", "passage", "quote"],
}
KEY_FACTS_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        **{name: {"anyOf": [KEY_FACT_SCHEMA, {"type": "null"}]} for name in KEY_FACT_SINGLE},
        "parties": {"type": "array", "items": PARTY_SCHEMA},
        "amounts": {"type": "array", "items": KEY_FACT_SCHEMA},
    },
}

DRAFT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "summary": {"type": "string"},
        "key_facts": KEY_FACTS_SCHEMA,
        "issues": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "passage": {"type": "integer"},
                    "risk": {"type": "string", "enum": RISKS},
                    "title": {"type": "string"},
                    "recommendation": {"type": "string"},
                },
                "required": ["passage", "risk", "title", "recommendation"],
            },
        },
    },
    "required": ["summary", "key_facts", "issues"],
}

VERDICTS_VALIDATOR = Draft202012Validator(VERDICTS_SCHEMA)
DRAFT_VALIDATOR = Draft202012Validator(DRAFT_SCHEMA)


def schema_errors(value: Any, validator: Draft202012Validator) -> list[str]:
    """What is wrong with ``value``, one line per error with its JSON path; empty when valid."""
    return [f"{error.json_path}: {error.message}" for error in validator.iter_errors(value)]
