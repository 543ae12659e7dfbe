"""The one retry policy of the background work and of `manage.py review`.

Two kinds of failure are retried, each declared here once:

- **Infrastructure** (the database or a file system went away for a moment): Celery's own
  ``autoretry_for`` with exponential backoff and jitter, declared on every task as
  ``**INFRASTRUCTURE_RETRY`` (or ``retrying_on(...)`` for other error types).
- **Model work** (a draft or a batch of verifications): the error itself says whether asking again
  may help and how long the server wants us to wait (``retry-after``), a busy organisation slot
  is not a failure and uses up no attempt, and after the last attempt the work must end in a
  documented state (``give_up``) instead of raising. Celery's autoretry cannot express that, so
  :func:`next_attempt` decides, and the two runners only differ in how they wait: a task is
  re-queued with Celery's ``retry(countdown=...)`` (the worker stays free), the command line
  sleeps in its own process.

tenacity was considered for the command line's loop: the decision above is ours either way and
the loop is eight lines, so one more dependency would not remove any code.
"""

from __future__ import annotations

import functools
import random
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from celery import Task
from django.conf import settings
from django.db import OperationalError


def retrying_on(*errors: type[BaseException], max_retries: int = 5) -> dict[str, Any]:
    """Celery task options: retry ``errors`` with exponential backoff and jitter."""
    return {
        "autoretry_for": errors,
        "retry_backoff": True,
        "retry_jitter": True,
        "max_retries": max_retries,
    }


INFRASTRUCTURE_RETRY = retrying_on(OperationalError, OSError)

DEADLOCK_TRIES = 3


def _is_deadlock(error: OperationalError) -> bool:
    cause = error.__cause__
    code = getattr(cause, "sqlstate", None) or getattr(cause, "pgcode", None)
    return code in ("40P01", "40001")  # deadlock detected, serialization failure


def retrying_deadlocks(function: Callable[..., Any]) -> Callable[..., Any]:
    """Run a service's transaction again when PostgreSQL chose it as a deadlock's victim (it
    was rolled back whole, so running it again is safe): a request answers, not 500."""

    @functools.wraps(function)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        for attempt in range(DEADLOCK_TRIES):
            try:
                return function(*args, **kwargs)
            except OperationalError as error:
                if not _is_deadlock(error) or attempt == DEADLOCK_TRIES - 1:
                    raise
                time.sleep(0.05 * (attempt + 1) * (0.5 + random.random()))  # noqa: S311
        raise AssertionError("unreachable")

    return wrapper


class RetrySoon(Exception):  # noqa: N818 - it is a signal to wait, not an error
    """Busy, not broken: try again shortly, without using up an attempt."""


class MaybeRetryable(Exception):  # noqa: N818 - a base for errors, not one itself
    """An error that says whether asking again may help (``LLMUnavailable``), and how soon the
    server wants to be asked (``retry_after_s``)."""

    retryable: bool = False
    retry_after_s: float | None = None


@dataclass(frozen=True)
class Retry:
    delay_s: float
    counts: bool  # uses up one of the bounded attempts


def backoff(attempt: int, retry_after_s: float | None) -> float:
    """Exponential from ``LLM_RETRY_BACKOFF_S``, never sooner than the server asked, jittered."""
    base = settings.LLM_RETRY_BACKOFF_S * (2**attempt)
    return max(retry_after_s or 0.0, base) * (0.5 + random.random())  # noqa: S311 - jitter


def next_attempt(error: BaseException, attempt: int) -> Retry | None:
    """When to try the model work again after ``error`` on attempt ``attempt`` (0-based), or
    None: give up now."""
    if isinstance(error, RetrySoon):
        return Retry(delay_s=0.5 + random.random(), counts=False)  # noqa: S311 - jitter
    if not isinstance(error, MaybeRetryable) or not error.retryable:
        return None
    if attempt >= settings.LLM_TASK_RETRIES:
        return None
    return Retry(delay_s=backoff(attempt, error.retry_after_s), counts=True)


GiveUp = Callable[[BaseException], Any]


def _handled(error: BaseException) -> bool:
    return isinstance(error, RetrySoon | MaybeRetryable)


def _after(error: Exception, attempt: int, give_up: GiveUp) -> tuple[Retry | None, Any]:
    """The policy's answer to ``error``: a retry to make, or what giving up returned. An error
    the policy does not know is raised again."""
    if not _handled(error):
        raise error
    retry = next_attempt(error, attempt)
    return (retry, None) if retry is not None else (None, give_up(error))


def run_in_task(task: Task, run: Callable[[], Any], *, give_up: GiveUp) -> Any:
    """Run model work in a Celery task; on a retryable error the task is queued again."""
    attempt = int(task.request.retries or 0)
    try:
        return run()
    except Exception as error:
        retry, given_up = _after(error, attempt, give_up)
        if retry is None:
            return given_up
        retries = attempt + 1 if retry.counts else attempt
        return _requeue(task, retries, countdown=retry.delay_s, error=error)


def _requeue(task: Task, retries: int, *, countdown: float, error: Exception) -> Any:
    if task.request.is_eager:  # in-process runs (tests) cannot be re-queued: wait here
        time.sleep(countdown)
        result = task.apply(args=tuple(task.request.args or ()), retries=retries, throw=True)
        return result.get(disable_sync_subtasks=False)
    raise task.retry(countdown=countdown, exc=error, max_retries=None)


def run_in_process(run: Callable[[], Any], *, give_up: GiveUp) -> Any:
    """Run model work here (the command line), waiting between attempts in this process."""
    attempt = 0
    while True:
        try:
            return run()
        except Exception as error:
            retry, given_up = _after(error, attempt, give_up)
            if retry is None:
                return given_up
            time.sleep(retry.delay_s)
            attempt += int(retry.counts)
