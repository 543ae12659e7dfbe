"""Turnarounds in the report read in a unit that says something: seconds, minutes, hours, days."""

from __future__ import annotations

from datetime import timedelta

import pytest

from reviewapp.audit.reports.summary import duration


@pytest.mark.parametrize(
    ("value", "shown"),
    [
        (None, "–"),
        (timedelta(seconds=12.4), "12 s"),
        (timedelta(seconds=150), "2 min"),
        (timedelta(hours=5), "5.0 h"),
        (timedelta(days=3), "3.0 d"),
    ],
)
def test_a_turnaround_reads_in_its_unit(value, shown):
    assert duration(value) == shown
