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

KEY_FACT_LISTS = ("parties", "dates", "amounts")
KEY_FACT_TEXTS = ("term", "renewal", "governing_law")

DRAFT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "summary": {"type": "string"},
        "key_facts": {
            "type": "object",
            "properties": {
                **{name: {"type": "array", "items": {"type": "string"}} for name in KEY_FACT_LISTS},
                **{name: {"type": ["string", "null"]} for name in KEY_FACT_TEXTS},
            },
        },
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
