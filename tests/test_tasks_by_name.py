"""Services queue tasks by name (reviewapp/tasks_by_name.py): every name they use is registered."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from reviewapp.tasks_by_name import task_named

ROOT = Path(__file__).resolve().parents[1] / "reviewapp"


def _names_used() -> set[str]:
    names = set()
    for path in ROOT.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
            if (
                isinstance(node, ast.Call)
                and getattr(node.func, "id", None) == "task_named"
                and node.args
                and isinstance(node.args[0], ast.Constant)
            ):
                names.add(node.args[0].value)
    return names


def test_services_use_task_names():
    assert len(_names_used()) >= 4


@pytest.mark.parametrize("name", sorted(_names_used()))
def test_each_name_a_service_queues_is_a_registered_task(name):
    assert task_named(name).name == name


def test_an_unknown_name_is_a_key_error():
    with pytest.raises(KeyError):
        task_named("reviewapp.contracts.tasks.no_such_task")
