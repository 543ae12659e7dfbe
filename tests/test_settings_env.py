import pytest
from django.core.exceptions import ImproperlyConfigured

from reviewapp.settings.env import env_bool, env_choice, env_int


def test_bad_integer_fails_loudly(monkeypatch):
    monkeypatch.setenv("UPLOAD_MAX_BYTES", "lots")
    with pytest.raises(ImproperlyConfigured, match="UPLOAD_MAX_BYTES must be an integer"):
        env_int("UPLOAD_MAX_BYTES", 1)


def test_integer_below_minimum_fails(monkeypatch):
    monkeypatch.setenv("X_LIMIT", "0")
    with pytest.raises(ImproperlyConfigured, match="at least 1"):
        env_int("X_LIMIT", 5, minimum=1)


def test_bool_accepts_common_spellings_and_rejects_others(monkeypatch):
    monkeypatch.setenv("FLAG", "yes")
    assert env_bool("FLAG", False) is True
    monkeypatch.setenv("FLAG", "maybe")
    with pytest.raises(ImproperlyConfigured):
        env_bool("FLAG", False)


def test_choice_rejects_unknown(monkeypatch):
    monkeypatch.setenv("ENGINE", "gpt")
    with pytest.raises(ImproperlyConfigured, match="one of offline, anthropic"):
        env_choice("ENGINE", "offline", ("offline", "anthropic"))
