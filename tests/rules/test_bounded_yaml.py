"""Playbook YAML is bounded before it is built: no request can freeze the server."""

from __future__ import annotations

import time
import tracemalloc

import pytest

from reviewapp.rules.models import Playbook
from reviewapp.rules.services import DEFAULTS_DIR
from reviewapp.text.engine import RuleError, load_playbook
from reviewapp.text.engine.bounded_yaml import YamlRefused, load_bounded


def alias_bomb(levels: int = 9) -> str:
    """Nine lists of nine aliases, each to the list before: 9**9 strings once expanded."""
    lines = ['a0: &a0 ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    for n in range(1, levels):
        lines.append(f"a{n}: &a{n} [" + ",".join([f"*a{n - 1}"] * 9) + "]")
    return "\n".join(lines) + "\n"


def test_the_alias_bomb_is_refused_at_once_without_memory(admin_client):
    bomb = alias_bomb()
    assert len(bomb) < 600
    warm = {"source": "name: x", "text": "x"}  # the first request imports the app's modules
    admin_client.post("/api/playbooks/test/", warm, content_type="application/json")
    tracemalloc.start()
    started = time.perf_counter()
    response = admin_client.post(
        "/api/playbooks/test/", {"source": bomb, "text": "x"}, content_type="application/json"
    )
    elapsed = time.perf_counter() - started
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["code"] == "INVALID_PLAYBOOK" and "aliases expand" in error["message"]
    assert "lol" not in response.content.decode()
    assert elapsed <= 1.0 and peak <= 50 * 1024 * 1024
    assert len(response.content) < 2000


def test_the_editor_shows_a_short_error_for_the_bomb(admin_client):
    shipped = Playbook.objects.get(name="commercial-en")
    admin_client.post(f"/playbooks/{shipped.pk}/copy/", {"name": "ours"})
    copy = Playbook.objects.get(name="ours")
    response = admin_client.post(f"/playbooks/{copy.pk}/edit/", {"source": alias_bomb(6)})
    assert response.status_code == 400
    assert len(response.content) < 200_000
    assert response.content.decode().count("lol") <= 9  # the source as typed, not expanded


@pytest.mark.parametrize(
    "source, problem",
    [
        ("x: " + "[" * 60 + "]" * 60, "nested deeper"),
        ("a: &a [*a]", "contains it"),
        ("a: [1, 2", "expected"),
        ("x: " + "y" * 1_100_000, "characters"),
        ('s: &s "' + "z" * 100_000 + '"\nlist: [' + ",".join(["*s"] * 60) + "]", "characters"),
    ],
)
def test_each_limit_names_its_problem_and_never_the_value(source, problem):
    with pytest.raises(YamlRefused, match=problem) as refused:
        load_bounded(source)
    assert "zzzz" not in str(refused.value) and "yyyy" not in str(refused.value)


def test_deep_yaml_through_the_api_is_a_json_400_not_a_500(admin_client):
    source = "name: x\n" + "rules: " + "[" * 500 + "]" * 500
    response = admin_client.post(
        "/api/playbooks/test/", {"source": source, "text": "x"}, content_type="application/json"
    )
    assert response.status_code == 400
    assert response.json()["error"]["message"]


def test_a_long_invalid_value_is_not_echoed():
    source = "name: x\nversion: '1'\nlanguage: " + "q" * 5000 + "\nrules: [{id: a, category: b}]\n"
    from reviewapp.text.engine import load_playbook_data

    with pytest.raises(RuleError) as error:
        load_playbook_data(load_bounded(source))
    assert "qqqq" not in str(error.value) and "a str" in str(error.value)


@pytest.mark.parametrize("name", ["commercial-en", "commercial-zh"])
def test_shipped_playbooks_fit_well_inside_the_limits(name):
    assert load_playbook(DEFAULTS_DIR / f"{name}.yaml").rules
