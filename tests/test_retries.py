"""One retry policy: the model work's decision, the two runners, and every task's declaration."""

from __future__ import annotations

import pytest
from django.db import OperationalError

from reviewapp import retries
from reviewapp.celery import app
from reviewapp.llm import LLMUnavailable
from reviewapp.reviews.slots import SlotsBusy


@pytest.fixture(autouse=True)
def no_waiting(settings, monkeypatch):
    settings.LLM_TASK_RETRIES = 2
    settings.LLM_RETRY_BACKOFF_S = 1.0
    waits: list[float] = []
    monkeypatch.setattr(retries.time, "sleep", waits.append)
    return waits


def overloaded(retry_after_s: float | None = None) -> LLMUnavailable:
    return LLMUnavailable("overloaded", retryable=True, retry_after_s=retry_after_s)


def test_a_busy_slot_waits_briefly_without_using_up_an_attempt():
    retry = retries.next_attempt(SlotsBusy(1), attempt=5)
    assert retry is not None and not retry.counts and retry.delay_s < 2


def test_a_retryable_model_error_backs_off_and_honours_retry_after():
    first = retries.next_attempt(overloaded(), attempt=0)
    assert first is not None and first.counts and 0.5 <= first.delay_s <= 1.5
    asked = retries.next_attempt(overloaded(retry_after_s=30), attempt=0)
    assert asked is not None and asked.delay_s >= 15


def test_the_last_attempt_and_a_rejected_request_give_up():
    assert retries.next_attempt(overloaded(), attempt=2) is None
    rejected = LLMUnavailable("request_rejected", retryable=False)
    assert retries.next_attempt(rejected, attempt=0) is None


def test_in_process_run_tries_the_allowed_attempts_then_gives_up(no_waiting):
    calls: list[int] = []

    def run():
        calls.append(1)
        if len(calls) == 1:
            raise SlotsBusy(1)
        raise overloaded()

    given_up: list[BaseException] = []
    retries.run_in_process(run, give_up=given_up.append)
    assert len(calls) == 1 + 3  # one busy wait, then the first try and two retries
    assert len(given_up) == 1 and isinstance(given_up[0], LLMUnavailable)
    assert len(no_waiting) == 3


def test_in_process_run_lets_an_unexpected_error_through():
    def run():
        raise KeyError("bug")

    with pytest.raises(KeyError):
        retries.run_in_process(run, give_up=lambda error: None)


def test_every_task_of_the_app_retries_a_database_that_went_away():
    app.loader.import_default_modules()
    ours = {name: task for name, task in app.tasks.items() if name.startswith("reviewapp.")}
    assert len(ours) >= 8
    for name, task in ours.items():
        assert OperationalError in tuple(getattr(task, "autoretry_for", ())), name
        assert task.retry_backoff and task.retry_jitter, name


class _Deadlock(Exception):
    sqlstate = "40P01"


def _deadlock() -> OperationalError:
    error = OperationalError("deadlock detected")
    error.__cause__ = _Deadlock()
    return error


def test_a_transaction_chosen_as_a_deadlocks_victim_runs_again():
    calls: list[int] = []

    @retries.retrying_deadlocks
    def service() -> str:
        calls.append(1)
        if len(calls) < 3:
            raise _deadlock()
        return "done"

    assert service() == "done" and len(calls) == 3


def test_other_database_errors_and_a_third_deadlock_are_raised():
    @retries.retrying_deadlocks
    def gone() -> None:
        raise OperationalError("server closed the connection")

    with pytest.raises(OperationalError):
        gone()
    calls: list[int] = []

    @retries.retrying_deadlocks
    def always() -> None:
        calls.append(1)
        raise _deadlock()

    with pytest.raises(OperationalError):
        always()
    assert len(calls) == retries.DEADLOCK_TRIES
