"""Test doubles of outside services. ``fake_messages_server`` is a pytest fixture: import it
into a conftest (``from tests.fakes import fake_messages_server  # noqa: F401``)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.fakes.messages_server import FakeMessagesServer, running_server


@pytest.fixture
def fake_messages_server() -> Iterator[FakeMessagesServer]:
    """A default-brain Messages API server on a free local port, stopped after the test."""
    with running_server() as server:
        yield server
