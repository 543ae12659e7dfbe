from __future__ import annotations

import pytest
from jsonschema import Draft202012Validator

from reviewapp.llm.schemas import (
    DRAFT_SCHEMA,
    DRAFT_VALIDATOR,
    VERDICTS_SCHEMA,
    VERDICTS_VALIDATOR,
    schema_errors,
)

VERDICT = {
    "passage": 1,
    "outcome": "CONFIRMED",
    "risk": "low",
    "rationale": "Because.",
    "quote": "This Agreement starts",
    "redline": "",
    "question": "",
}


@pytest.mark.parametrize("schema", [VERDICTS_SCHEMA, DRAFT_SCHEMA], ids=["verdicts", "draft"])
def test_the_schemas_sent_to_the_model_are_valid_json_schemas(schema):
    Draft202012Validator.check_schema(schema)


def test_a_valid_answer_has_no_errors_and_a_whole_float_counts_as_an_integer():
    assert (
        schema_errors({"verdicts": [VERDICT, {**VERDICT, "passage": 2.0}]}, VERDICTS_VALIDATOR)
        == []
    )


def test_each_error_names_where_the_answer_is_wrong():
    errors = schema_errors(
        {"verdicts": [{**VERDICT, "outcome": "MAYBE", "passage": True, "extra": 1}]},
        VERDICTS_VALIDATOR,
    )

    assert any(e.startswith("$.verdicts[0].outcome: 'MAYBE' is not one of") for e in errors)
    assert any(e.startswith("$.verdicts[0].passage: True is not of type 'integer'") for e in errors)
    assert any("'extra' was unexpected" in e for e in errors)


def test_a_draft_that_is_not_an_object_is_one_error():
    assert schema_errors([], DRAFT_VALIDATOR) == ["$: [] is not of type 'object'"]
