"""Geometry of the page's inline SVG charts, computed on the server (no chart library)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

WIDTH, HEIGHT = 720, 220
LEFT, RIGHT, TOP, BOTTOM = 40, 10, 10, 40
BAR_ROW = 22
LABEL_WIDTH = 260


@dataclass(frozen=True)
class Column:
    x: float
    y: float
    width: float
    height: float
    label: str
    value: int
    show_label: bool


@dataclass(frozen=True)
class Tick:
    y: float
    value: int


@dataclass(frozen=True)
class ColumnChart:
    width: int
    height: int
    columns: list[Column]
    ticks: list[Tick]
    baseline: float


@dataclass(frozen=True)
class Bar:
    y: float
    width: float
    label: str
    value: int
    value_x: float


@dataclass(frozen=True)
class BarChart:
    width: int
    height: int
    label_width: int
    bars: list[Bar]


def _nice_max(value: int) -> int:
    top = max(value, 1)
    for step in (1, 2, 5, 10, 20, 25, 50, 100, 200, 250, 500, 1000, 2000, 5000, 10000):
        if top <= step * 4:
            return step * 4
    return ((top // 10000) + 1) * 10000


def column_chart(points: list[tuple[date, int]]) -> ColumnChart:
    """Columns of a time series, with four gridlines and about ten date labels."""
    plot_w, plot_h = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM
    top = _nice_max(max((value for _, value in points), default=0))
    slot = plot_w / max(len(points), 1)
    every = max(1, round(len(points) / 10))
    columns = []
    for i, (day, value) in enumerate(points):
        height = plot_h * value / top
        columns.append(
            Column(
                x=round(LEFT + i * slot + slot * 0.1, 2),
                y=round(TOP + plot_h - height, 2),
                width=round(max(slot * 0.8, 1), 2),
                height=round(height, 2),
                label=day.isoformat(),
                value=value,
                show_label=i % every == 0,
            )
        )
    ticks = [Tick(y=round(TOP + plot_h - plot_h * k / 4, 2), value=top * k // 4) for k in range(5)]
    return ColumnChart(WIDTH, HEIGHT, columns, ticks, baseline=TOP + plot_h)


def bar_chart(rows: list[tuple[str, int]], limit: int = 15) -> BarChart:
    """Horizontal bars, largest first, at most `limit` of them."""
    shown = sorted(rows, key=lambda row: (-row[1], row[0]))[:limit]
    top = max((value for _, value in shown), default=0) or 1
    plot_w = WIDTH - LABEL_WIDTH - 60
    bars = []
    for i, (label, value) in enumerate(shown):
        width = round(plot_w * value / top, 2)
        bars.append(
            Bar(
                y=i * BAR_ROW + 4,
                width=max(width, 1),
                label=label,
                value=value,
                value_x=LABEL_WIDTH + width + 6,
            )
        )
    return BarChart(WIDTH, len(shown) * BAR_ROW + 8, LABEL_WIDTH, bars)
