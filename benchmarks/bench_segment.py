"""Benchmark and quality check of contract segmentation on the CUAD sample.

Run: .venv/bin/python benchmarks/bench_segment.py

Prints the time to normalise and to segment every contract (segmentation normalises first; the
time shown for it includes normalising), passage counts and lengths, how many passages are only
headings (a heading should open its clause's passage; only headings with nothing after them and
tables of contents stay on their own), and how lawyer-labelled clause spans (labels.jsonl) fall
across passages: a clause that fits in one or two passages can be verified as a unit; one spread
over many passages was cut apart.
"""

from __future__ import annotations

import csv
import json
import statistics
import sys
import time
from bisect import bisect_left, bisect_right
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from reviewapp.text.normalise import _normalise  # noqa: E402
from reviewapp.text.segmentation import (  # noqa: E402
    MAX_PASSAGE_CHARS,
    Segment,
    segment,
)

CUAD = ROOT.parent / "shared" / "data" / "cuad"
BUCKETS = ("1", "2", "3-5", "6+")
ROUNDS = 3


def main() -> int:
    if not (CUAD / "labels.jsonl").is_file():
        print(f"skipped: CUAD data not found at {CUAD}")
        return 0
    records = [json.loads(line) for line in (CUAD / "labels.jsonl").open(encoding="utf-8")]
    texts = {r["txt"]: (CUAD / r["txt"]).read_text(encoding="utf-8") for r in records}
    _report_normalisation(texts)
    segmented, rounds, slowest = _segment_all(texts)
    _report_speed(texts, rounds, slowest)
    _report_passages(texts, segmented)
    _report_fragmentation(records, texts, segmented)
    return 0


def _report_normalisation(texts: dict[str, str]) -> None:
    rounds = []
    edited = 0
    for _ in range(ROUNDS):
        _normalise.cache_clear()
        began = time.process_time()
        edited = sum(_normalise(text).edited for text in texts.values())
        rounds.append(time.process_time() - began)
    print(
        f"normalisation time (CPU): {min(rounds):.2f} s best of {len(rounds)}; "
        f"{edited} of {len(texts)} texts change length"
    )


def _segment_all(texts: dict[str, str]) -> tuple[dict[str, list[Segment]], list[float], tuple]:
    """Segment every contract a few times; CPU seconds per round, as other work may share cores."""
    rounds = []
    slowest = (0.0, "")
    for _ in range(ROUNDS):
        segmented = {}
        _normalise.cache_clear()
        began = time.process_time()
        for name, text in texts.items():
            one = time.process_time()
            segmented[name] = segment(text)
            slowest = max(slowest, (time.process_time() - one, name))
        rounds.append(time.process_time() - began)
    return segmented, rounds, slowest


def _report_speed(texts: dict[str, str], rounds: list[float], slowest: tuple) -> None:
    chars = sum(map(len, texts.values()))
    best = min(rounds)
    print(f"contracts: {len(texts)}, {chars / 1e6:.1f} M chars")
    print(
        f"segmentation time (CPU): {best:.2f} s best of {len(rounds)} "
        f"({', '.join(f'{r:.2f}' for r in rounds)}), {chars / best / 1e6:.1f} M chars/s"
    )
    print(f"slowest contract: {slowest[0] * 1000:.0f} ms ({Path(slowest[1]).name[:60]})")


def _report_passages(texts: dict[str, str], segmented: dict[str, list[Segment]]) -> None:
    counts = [len(segments) for segments in segmented.values()]
    lengths = sorted(s.end - s.start for segments in segmented.values() for s in segments)
    headings = sum(s.is_heading for segments in segmented.values() for s in segments)
    trailing = sum(
        s.is_heading and s.index == len(segments) - 1
        for segments in segmented.values()
        for s in segments
    )
    numbered = sum(bool(s.number) for segments in segmented.values() for s in segments)
    over = sum(length > MAX_PASSAGE_CHARS for length in lengths)
    scraps = sum(
        s.end - s.start < 20 and not s.is_heading
        for segments in segmented.values()
        for s in segments
    )
    print(
        f"passages/doc: mean {statistics.mean(counts):.0f}, median {statistics.median(counts):.0f},"
        f" max {max(counts)}; total {len(lengths)} ({numbered} numbered)"
    )
    print(
        f"passages of headings only: {headings} ({trailing} at the end of a contract, "
        f"{headings - trailing} before more text: contents lists, or headings that overflow)"
    )
    print(
        f"passage length: median {statistics.median(lengths):.0f}, "
        f"p95 {lengths[int(0.95 * (len(lengths) - 1))]}, max {lengths[-1]}; "
        f"{over} over {MAX_PASSAGE_CHARS} (single sentences), {scraps} under 20 (not headings)"
    )


def _report_fragmentation(
    records: list[dict], texts: dict[str, str], segmented: dict[str, list[Segment]]
) -> None:
    kinds = _category_kinds()
    by_kind: dict[str, Counter[str]] = {"clause": Counter(), "fact": Counter()}
    for record in records:
        segments = segmented[record["txt"]]
        starts = [s.start for s in segments]
        ends = [s.end for s in segments]
        for category, spans in record["labels"].items():
            counter = by_kind[kinds.get(category, "clause")]
            for start, end in spans:
                if texts[record["txt"]][start:end].strip():
                    touched = bisect_left(starts, end) - bisect_right(ends, start)
                    counter[_bucket(touched)] += 1
    for kind, counter in by_kind.items():
        total = sum(counter.values())
        shares = ", ".join(f"{b}: {100 * counter[b] / total:.1f}%" for b in BUCKETS)
        fit = 100 * (counter["1"] + counter["2"]) / total
        print(f"labelled {kind} spans ({total}) by passages touched: {shares}; 1-2: {fit:.1f}%")


def _bucket(touched: int) -> str:
    if touched <= 2:
        return str(max(touched, 1))
    return "3-5" if touched <= 5 else "6+"


def _category_kinds() -> dict[str, str]:
    with (CUAD / "categories.csv").open(encoding="utf-8") as handle:
        return {row["category"]: row["kind"] for row in csv.DictReader(handle)}


if __name__ == "__main__":
    raise SystemExit(main())
