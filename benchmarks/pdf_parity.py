"""PDF parity: does a contract uploaded as PDF get the same flags as the same contract as text?

Run: .venv/bin/python benchmarks/pdf_parity.py [--count 60] [--seed 7] [--show-missed 10]

Takes a seeded sample of the CUAD contracts, extracts each PDF with the app's extractor
(sandboxed, as an upload is), and scores the shipped playbook on the PDF text and on the .txt
of the same contracts with ``reviewapp.text.evaluation.evaluate``: a lawyer-labelled clause of
category C is caught when a flagged passage with a hit of category C overlaps it.

The labels are character offsets into the .txt. They are carried onto the PDF text by aligning
the two texts, normalised and without whitespace (a greedy character alignment that resyncs on
16-character anchors). A label scores on both sides only if at least half of its characters
align, so both recalls count the same clauses.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from bisect import bisect_left
from dataclasses import replace
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from reviewapp.text.engine import compile_playbook, load_playbook  # noqa: E402
from reviewapp.text.evaluation import Document, evaluate, load_documents  # noqa: E402
from reviewapp.text.extraction import ExtractionLimits, extract_file  # noqa: E402
from reviewapp.text.normalise import normalise  # noqa: E402
from reviewapp.text.router import shipped_router_path  # noqa: E402
from reviewapp.text.router.model import load_router  # noqa: E402

CUAD = ROOT.parent / "shared" / "data" / "cuad"
PLAYBOOK = ROOT / "reviewapp" / "rules" / "playbooks" / "commercial-en.yaml"
ANCHOR = 16
WINDOW = 4000
MIN_ALIGNED_SHARE = 0.5


class Stripped:
    """A text's normalised characters without whitespace, each with its offset in the text."""

    def __init__(self, text: str) -> None:
        normalised = normalise(text)
        kept = [i for i, char in enumerate(normalised.text) if not char.isspace()]
        self.chars = "".join(normalised.text[i] for i in kept)
        self.offsets = [normalised.to_source(i) for i in kept]


def align(a: str, b: str) -> list[int]:
    """For each character of ``a``, the index of the same character in ``b``, or -1."""
    mapping = [-1] * len(a)
    i = j = 0
    while i < len(a) and j < len(b):
        run = _common_run(a, i, b, j)
        if run:
            mapping[i : i + run] = range(j, j + run)
            i, j = i + run, j + run
            continue
        in_b = b.find(a[i : i + ANCHOR], j, j + WINDOW)
        in_a = a.find(b[j : j + ANCHOR], i, i + WINDOW)
        if in_b < 0 and in_a < 0:
            i, j = i + 1, j + 1
        elif in_a < 0 or (in_b >= 0 and in_b - j <= in_a - i):
            j = in_b
        else:
            i = in_a
    return mapping


def _common_run(a: str, i: int, b: str, j: int) -> int:
    run, step = 0, 64
    while step:
        if a[i + run : i + run + step] == b[j + run : j + run + step] and i + run + step <= len(a):
            run += step
            step *= 2
        else:
            step //= 2
    while i + run < len(a) and j + run < len(b) and a[i + run] == b[j + run]:
        run += 1
    return run


def carry_labels(
    labels: dict[str, list[tuple[int, int]]], txt: Stripped, pdf: Stripped, mapping: list[int]
) -> tuple[dict[str, list[tuple[int, int]]], dict[str, list[tuple[int, int]]]]:
    """(labels on the txt that align, the same labels on the PDF text)."""
    kept: dict[str, list[tuple[int, int]]] = {}
    carried: dict[str, list[tuple[int, int]]] = {}
    for category, spans in labels.items():
        for start, end in spans:
            first, last = bisect_left(txt.offsets, start), bisect_left(txt.offsets, end)
            targets = [mapping[k] for k in range(first, last) if mapping[k] >= 0]
            if last == first or len(targets) < MIN_ALIGNED_SHARE * (last - first):
                continue
            kept.setdefault(category, []).append((start, end))
            pdf_span = (pdf.offsets[min(targets)], pdf.offsets[max(targets)] + 1)
            carried.setdefault(category, []).append(pdf_span)
    return kept, carried


def paired_documents(doc: Document, pdf_text: str) -> tuple[Document, Document]:
    """(the txt document keeping the labels that align onto the PDF text, the PDF document with
    those labels carried onto it)."""
    txt, pdf = Stripped(doc.text), Stripped(pdf_text)
    kept, carried = carry_labels(doc.labels, txt, pdf, align(txt.chars, pdf.chars))
    pdf_doc = Document(id=doc.id, type=doc.type, text=pdf_text, labels=carried)
    return replace(doc, labels=kept), pdf_doc


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=60)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--show-missed", type=int, default=0, metavar="N")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    parser.add_argument(
        "--no-router", action="store_true", help="rules only (default: rules and shipped router)"
    )
    parser.add_argument(
        "--router-file",
        type=Path,
        help="a router model to score with instead of the shipped one (e.g. one trained without "
        "these contracts: then the recall itself is a held-out figure)",
    )
    args = parser.parse_args()
    if not (CUAD / "labels.jsonl").is_file():
        print(f"skipped: CUAD data not found at {CUAD}")
        return 0
    documents, categories = load_documents(CUAD)
    rows = {
        row["id"]: row
        for row in map(json.loads, (CUAD / "labels.jsonl").read_text("utf-8").splitlines())
    }
    chosen = random.Random(args.seed).sample(documents, min(args.count, len(documents)))
    started = time.perf_counter()
    txt_docs, pdf_docs, labelled, aligned = [], [], 0, 0
    on_txt: dict[tuple[str, int], int] = {}  # (doc, start on the PDF) -> start on the txt
    for doc in chosen:
        extracted = extract_file(CUAD / rows[doc.id]["pdf"], limits=ExtractionLimits())
        txt_doc, pdf_doc = paired_documents(doc, extracted.text)
        labelled += sum(map(len, doc.labels.values()))
        aligned += sum(map(len, txt_doc.labels.values()))
        for category, spans in pdf_doc.labels.items():
            for (start, _), (txt_start, _) in zip(spans, txt_doc.labels[category], strict=True):
                on_txt[doc.id, start] = txt_start
        txt_docs.append(txt_doc)
        pdf_docs.append(pdf_doc)
    prepared = time.perf_counter() - started
    compiled = compile_playbook(load_playbook(PLAYBOOK))
    keep = args.show_missed > 0
    # The shipped router saw these contracts' .txt in training: compare PDF with txt, not the
    # level of recall (train_router gives the held-out figures).
    router = None if args.no_router else load_router(args.router_file or shipped_router_path())
    scoring = {"categories": categories, "keep_missed": keep, "router": router}
    txt_report = evaluate(txt_docs, compiled, **scoring)
    pdf_report = evaluate(pdf_docs, compiled, **scoring)
    figures = {
        "contracts": len(chosen),
        "seed": args.seed,
        "labels": labelled,
        "labels_aligned": aligned,
        "txt_recall": txt_report["overall_recall"],
        "pdf_recall": pdf_report["overall_recall"],
        "gap": txt_report["overall_recall"] - pdf_report["overall_recall"],
        "router": router is not None,
        "extract_and_align_s": round(prepared, 1),
    }
    if args.json:
        print(json.dumps(figures, indent=2))
    else:
        _print(figures, txt_report, pdf_report)
    if keep:
        _print_missed(txt_report, pdf_report, on_txt, args.show_missed)
    return 0


def _print(figures: dict, txt_report: dict, pdf_report: dict) -> None:
    print(
        f"{figures['contracts']} contracts (seed {figures['seed']}), "
        f"{figures['labels_aligned']}/{figures['labels']} labelled clauses aligned onto the PDF"
    )
    print(
        f"recall  txt {figures['txt_recall']:.3f}  pdf {figures['pdf_recall']:.3f}  "
        f"gap {figures['gap']:+.3f}   (extract+align {figures['extract_and_align_s']} s)"
    )
    rows = []
    for category, row in txt_report["categories"].items():
        other = pdf_report["categories"][category]
        if row["labelled"] and row["caught"] != other["caught"]:
            rows.append((row["caught"] - other["caught"], category, row, other))
    for difference, category, row, other in sorted(rows, reverse=True)[:12]:
        print(
            f"  {category[:40]:40} labels {row['labelled']:4d}  txt {row['caught']:4d}  "
            f"pdf {other['caught']:4d}  ({-difference:+d})"
        )


def _print_missed(
    txt_report: dict, pdf_report: dict, on_txt: dict[tuple[str, int], int], limit: int
) -> None:
    """Clauses the PDF misses that the txt catches, for finding out why."""
    shown = 0
    for category, row in pdf_report["categories"].items():
        missed_txt = {(m["doc"], m["start"]) for m in txt_report["categories"][category]["missed"]}
        for missed in row["missed"]:
            if (missed["doc"], on_txt.get((missed["doc"], missed["start"]))) in missed_txt:
                continue
            if shown >= limit:
                return
            shown += 1
            print(f"\n[{category}] {missed['doc'][:60]}\n  {missed['text'][:300]!r}")


if __name__ == "__main__":
    raise SystemExit(main())
