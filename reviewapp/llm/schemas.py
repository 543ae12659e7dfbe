"""JSON schemas of the model's answers and a small validator for the subset they use.

The schemas are sent to the model (the verdict tool's ``input_schema``) and checked here
again: the model's output is never trusted to match them.
"""

from __future__ import annotations

from typing import Any

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

_TYPES: dict[str, Any] = {
    "object": dict,
    "array": list,
    "string": str,
    "boolean": bool,
    "null": type(None),
}


def validate(value: Any, schema: dict[str, Any], path: str = "$") -> list[str]:
    """Errors of ``value`` against ``schema`` (type, enum, properties, required,
    additionalProperties: false, items); an empty list means valid."""
    types = schema.get("type")
    if types is not None:
        names = [types] if isinstance(types, str) else list(types)
        if not any(_is_type(value, name) for name in names):
            return [f"{path}: expected {' or '.join(names)}, got {type(value).__name__}"]
    if "enum" in schema and value not in schema["enum"]:
        return [f"{path}: {value!r} is not one of {schema['enum']}"]
    if isinstance(value, dict):
        return _validate_object(value, schema, path)
    if isinstance(value, list) and "items" in schema:
        errors: list[str] = []
        for position, item in enumerate(value):
            errors += validate(item, schema["items"], f"{path}[{position}]")
        return errors
    return []


def _validate_object(value: dict[str, Any], schema: dict[str, Any], path: str) -> list[str]:
    properties = schema.get("properties", {})
    errors = [
        f"{path}: missing {name!r}" for name in schema.get("required", ()) if name not in value
    ]
    if schema.get("additionalProperties") is False:
        errors += [f"{path}: unexpected {name!r}" for name in value if name not in properties]
    for name, subschema in properties.items():
        if name in value:
            errors += validate(value[name], subschema, f"{path}.{name}")
    return errors


def _is_type(value: Any, name: str) -> bool:
    if name == "integer":
        return (isinstance(value, int) and not isinstance(value, bool)) or (
            isinstance(value, float) and value.is_integer()
        )
    if name == "number":
        return isinstance(value, int | float) and not isinstance(value, bool)
    return isinstance(value, _TYPES[name])
