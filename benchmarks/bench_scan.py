"""Segmentation + trigger scan of every dev contract on one core, then the evaluation table.

    .venv/bin/python benchmarks/bench_scan.py [--cuad DIR] [--playbook YAML] [--json]

Target: at most 5 s for segmentation plus scan of the 311 CUAD dev contracts on one core. CPU time
is reported next to wall time because a shared machine inflates the latter.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from reviewapp.text.engine import compile_playbook, load_playbook, scan  # noqa: E402
from reviewapp.text.evaluation import evaluate, format_table, load_documents  # noqa: E402

CUAD = ROOT.parent / "shared" / "data" / "cuad"
PLAYBOOK = ROOT / "reviewapp" / "rules" / "playbooks" / "commercial-en.yaml"


@dataclass(frozen=True)
class Paragraph:
    index: int
    start: int
    end: int
    heading: str = ""
    page: int = 1
    number: str = ""
    is_heading: bool = False


_BLANK = re.compile(r"\n\s*\n")


def paragraph_segments(text: str, page_spans=None) -> list[Paragraph]:
    """Stand-in for the real segmenter: blank-line paragraphs, no headings."""
    spans, position = [], 0
    for gap in _BLANK.finditer(text):
        if text[position : gap.start()].strip():
            spans.append((position, gap.start()))
        position = gap.end()
    if text[position:].strip():
        spans.append((position, len(text)))
    return [Paragraph(i, s, e) for i, (s, e) in enumerate(spans)]


def segmenter():
    try:
        from reviewapp.text.segmentation import segment
    except ImportError:
        print("reviewapp.text.segmentation missing: using blank-line paragraphs")
        return paragraph_segments
    return segment


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--cuad", type=Path, default=CUAD)
    parser.add_argument("--playbook", type=Path, default=PLAYBOOK)
    parser.add_argument("--json", action="store_true", help="print the report as JSON")
    args = parser.parse_args()
    segment = segmenter()
    documents, categories = load_documents(args.cuad)
    compiled = compile_playbook(load_playbook(args.playbook))

    wall, cpu = time.perf_counter(), time.process_time()
    all_segments = [segment(doc.text) for doc in documents]
    segmented_cpu = time.process_time()
    for doc, segments in zip(documents, all_segments, strict=True):
        scan(compiled, doc.text, segments)
    scanned_wall, scanned_cpu = time.perf_counter(), time.process_time()
    print(
        f"{len(documents)} contracts, {sum(map(len, all_segments))} passages, cold start, "
        f"CPU seconds: segmentation {segmented_cpu - cpu:.2f} + scan "
        f"{scanned_cpu - segmented_cpu:.2f} = {scanned_cpu - cpu:.2f} "
        f"(wall {scanned_wall - wall:.2f}; target <= 5)"
    )
    report = evaluate(documents, compiled, segmenter=segment, categories=categories)
    print(json.dumps(report, indent=2) if args.json else format_table(report))


if __name__ == "__main__":
    main()
