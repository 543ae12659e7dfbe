"""Measures a playbook against lawyer-labelled contracts: recall, precision, routing.

Two layouts of a labelled folder are read: CUAD's (``labels.jsonl`` of character spans per
category) and the quoted one of ``../shared/data/zh`` (``NAME.txt`` beside ``NAME.labels.json``,
a list of ``{article, quote, category}`` where the quote is an exact substring of the text, and
``BOILERPLATE`` marks clauses that should stay unflagged).

A labelled clause counts as caught when a flagged passage (PENDING or REJECTED) carrying a hit of
the clause's category overlaps it. The routed share is the part of a document's characters that
lies in flagged passages, i.e. what verification will have to read.
"""

from __future__ import annotations

import csv
import json
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .contract_type import detect_contract_type
from .engine import (
    CONFIRMED,
    CompiledPlaybook,
    Passage,
    Playbook,
    compile_playbook,
    load_playbook,
    passage_states,
    scan,
)
from .router.flags import merge_hits, router_hits
from .router.model import RouterModel
from .segmentation import segment

Segmenter = Callable[[str], Sequence[Passage]]


@dataclass
class Document:
    id: str
    type: str
    text: str
    labels: dict[str, list[tuple[int, int]]]


@dataclass
class _Tally:
    labelled: int = 0
    caught: int = 0
    flagged: int = 0
    flagged_relevant: int = 0
    missed: list[dict] = field(default_factory=list)


BOILERPLATE = "BOILERPLATE"  # a quoted label: a clause no rule should flag


def is_labelled_folder(folder: str | Path) -> bool:
    """Does ``folder`` hold labelled documents in either layout?"""
    folder = Path(folder)
    return (folder / "labels.jsonl").is_file() or any(folder.glob("*.labels.json"))


@dataclass
class _Boilerplate:
    """Clauses labelled ``BOILERPLATE`` and how many of them lie in a flagged passage."""

    labelled: int = 0
    flagged: int = 0

    def tally(self, doc: Document, flagged: Sequence[Passage]) -> None:
        for start, end in doc.labels.get(BOILERPLATE, []):
            self.labelled += 1
            self.flagged += any(s.start < end and start < s.end for s in flagged)

    def figures(self) -> dict[str, int]:
        return {"boilerplate": self.labelled, "boilerplate_flagged": self.flagged}


class LabelsUnreadable(ValueError):
    """A labelled folder that cannot be read; the message is a sentence for a user."""


def read_labelled_folder(folder: str | Path) -> tuple[list[Document], list[str]]:
    """``load_documents``, with one sentence for a user when the folder cannot be read (a
    missing text file, a quote not in its text, a line that is no JSON)."""
    try:
        return load_documents(folder)
    except (OSError, ValueError, KeyError) as error:
        raise LabelsUnreadable(f"{folder}: cannot read the labelled documents: {error}") from error


def load_documents(path: str | Path) -> tuple[list[Document], list[str]]:
    """Documents of ``labels.jsonl`` (a file or its folder) or of a folder of quoted labels, and
    the clause categories to score."""
    labels_path = Path(path)
    if labels_path.is_dir() and not (labels_path / "labels.jsonl").is_file():
        return _quoted_documents(labels_path)
    if labels_path.is_dir():
        labels_path = labels_path / "labels.jsonl"
    folder = labels_path.parent
    documents = []
    with open(labels_path, encoding="utf-8") as handle:
        for line in handle:
            if line.strip():
                documents.append(_document(json.loads(line), folder))
    return documents, _clause_categories(folder, documents)


def evaluate(
    labels: str | Path | Sequence[Document],
    playbook: str | Path | Playbook | CompiledPlaybook,
    *,
    segmenter: Segmenter | None = None,
    categories: Iterable[str] | None = None,
    detect_type: bool = True,
    keep_missed: bool = False,
    router: RouterModel | None = None,
) -> dict:
    """Score ``playbook`` on labelled documents; returns a JSON-able report (see ``format_table``).

    ``labels`` is a ``labels.jsonl`` path, its folder, or already loaded documents (then pass
    ``categories``). ``keep_missed`` adds the missed clauses and the false alarms, for tuning.
    ``router`` adds the learned router's flags where the playbook enables it; score it only on
    documents it was not trained on (``router.training.cross_validated_report`` does folds).
    """
    if isinstance(labels, (str, Path)):
        documents, found_categories = load_documents(labels)
        categories = list(categories or found_categories)
    else:
        documents = list(labels)
        categories = list(categories or _labelled_categories(documents))
    compiled = compiled_playbook(playbook)
    segment = segmenter or _default_segmenter()
    tallies = {category: _Tally() for category in categories}
    routed_chars = total_chars = 0
    shares: list[float] = []
    false_alarms: list[dict] = []
    boilerplate = _Boilerplate()
    started = time.perf_counter()
    for doc in documents:
        segments = segment(doc.text)
        contract_type = detect_contract_type(doc.text) if detect_type else None
        hits = scan(compiled, doc.text, segments, contract_type=contract_type)
        if router is not None:
            found = router_hits(compiled, router, doc.text, segments, hits)
            hits = merge_hits(compiled, hits, found)
        states = passage_states(segments, hits)
        flagged = [s for s, state in zip(segments, states, strict=True) if state != CONFIRMED]
        routed = sum(s.end - s.start for s in flagged)
        routed_chars += routed
        total_chars += len(doc.text)
        shares.append(routed / len(doc.text) if doc.text else 0.0)
        by_index = {s.index: s for s in flagged}
        boilerplate.tally(doc, flagged)
        for category, tally in tallies.items():
            flagged_here = _flagged_with(category, hits, by_index)
            _tally_document(tally, doc, category, flagged_here, keep_missed, false_alarms)
    return (
        _report(
            compiled,
            documents,
            tallies,
            routed_chars,
            total_chars,
            shares,
            false_alarms,
            seconds=time.perf_counter() - started,
            keep_missed=keep_missed,
        )
        | boilerplate.figures()
    )


def format_table(report: dict) -> str:
    rows = [f"{'category':36} {'labels':>6} {'caught':>6} {'recall':>7} {'flagged':>7} {'prec':>6}"]
    for category, row in report["categories"].items():
        rows.append(
            f"{category[:36]:36} {row['labelled']:6d} {row['caught']:6d} "
            f"{_fmt(row['recall']):>7} {row['flagged_passages']:7d} {_fmt(row['precision']):>6}"
        )
    rows.append("")
    rows.append(
        f"documents {report['documents']}  playbook {report['playbook']}  "
        f"scored in {report['seconds']:.2f}s"
    )
    rows.append(
        f"overall recall {_fmt(report['overall_recall'])} "
        f"({report['caught']}/{report['labelled']})  macro recall {_fmt(report['macro_recall'])}"
    )
    rows.append(
        f"routed share pooled {_fmt(report['routed_share_pooled'])}  "
        f"mean {_fmt(report['routed_share_mean'])}"
    )
    if report.get("boilerplate"):
        rows.append(
            f"boilerplate clauses flagged {report['boilerplate_flagged']} "
            f"of {report['boilerplate']}"
        )
    minimum = report["min_recall_10"]
    if minimum is not None:
        rows.append(
            f"lowest recall among categories with >= 10 labels: {minimum['category']} "
            f"{_fmt(minimum['recall'])}"
        )
    return "\n".join(rows)


def _tally_document(tally, doc, category, flagged_here, keep_missed, false_alarms) -> None:
    spans = doc.labels.get(category, [])
    tally.labelled += len(spans)
    for start, end in spans:
        if any(s.start < end and start < s.end for s in flagged_here):
            tally.caught += 1
        elif keep_missed:
            tally.missed.append(
                {"doc": doc.id, "start": start, "end": end, "text": doc.text[start:end]}
            )
    tally.flagged += len(flagged_here)
    for s in flagged_here:
        if any(s.start < end and start < s.end for start, end in spans):
            tally.flagged_relevant += 1
        elif keep_missed:
            false_alarms.append(
                {
                    "doc": doc.id,
                    "category": category,
                    "start": s.start,
                    "end": s.end,
                    "text": doc.text[s.start : s.end],
                }
            )


def _flagged_with(category: str, hits, by_index: dict) -> list:
    indices = {h.segment_index for h in hits if h.category == category}
    return [by_index[i] for i in sorted(indices) if i in by_index]


def _report(
    compiled,
    documents,
    tallies,
    routed_chars,
    total_chars,
    shares,
    false_alarms,
    *,
    seconds: float,
    keep_missed: bool,
) -> dict:
    categories = {name: _category_row(t, keep_missed) for name, t in tallies.items()}
    labelled = sum(t.labelled for t in tallies.values())
    caught = sum(t.caught for t in tallies.values())
    scored = [row["recall"] for row in categories.values() if row["recall"] is not None]
    frequent = [(row["recall"], name) for name, row in categories.items() if row["labelled"] >= 10]
    lowest = min(frequent) if frequent else None
    report: dict[str, Any] = {
        "playbook": f"{compiled.playbook.name}@{compiled.playbook.version}",
        "documents": len(documents),
        "labelled": labelled,
        "caught": caught,
        "overall_recall": caught / labelled if labelled else None,
        "macro_recall": sum(scored) / len(scored) if scored else None,
        "routed_share_pooled": routed_chars / total_chars if total_chars else 0.0,
        "routed_share_mean": sum(shares) / len(shares) if shares else 0.0,
        "min_recall_10": {"category": lowest[1], "recall": lowest[0]} if lowest else None,
        "seconds": seconds,
        "categories": categories,
    }
    if keep_missed:
        report["false_alarms"] = false_alarms
    return report


def _category_row(tally: _Tally, keep_missed: bool) -> dict[str, Any]:
    row: dict[str, Any] = {
        "labelled": tally.labelled,
        "caught": tally.caught,
        "recall": tally.caught / tally.labelled if tally.labelled else None,
        "flagged_passages": tally.flagged,
        "precision": tally.flagged_relevant / tally.flagged if tally.flagged else None,
    }
    if keep_missed:
        row["missed"] = tally.missed
    return row


def _document(row: dict, folder: Path) -> Document:
    text = (folder / row["txt"]).read_text(encoding="utf-8")
    labels = {c: [(int(s), int(e)) for s, e in spans] for c, spans in row["labels"].items()}
    return Document(id=row["id"], type=row.get("type", ""), text=text, labels=labels)


def _quoted_documents(folder: Path) -> tuple[list[Document], list[str]]:
    documents = []
    for labels_file in sorted(folder.glob("*.labels.json")):
        name = labels_file.name.removesuffix(".labels.json")
        text = (folder / f"{name}.txt").read_text(encoding="utf-8")
        labels: dict[str, list[tuple[int, int]]] = {}
        try:
            rows = json.loads(labels_file.read_text(encoding="utf-8"))
        except json.JSONDecodeError as error:
            raise ValueError(f"{labels_file.name}: not JSON ({error})") from error
        for row in rows:
            quote = row["quote"]
            start = _quote_start(text, quote, row.get("article") or "")
            if start < 0:
                raise ValueError(f"{labels_file.name}: quote not in the text: {quote!r}")
            labels.setdefault(row["category"], []).append((start, start + len(quote)))
        kind = name.partition("_")[2].replace("_", " ")
        documents.append(Document(id=name, type=kind, text=text, labels=labels))
    if not documents:
        raise ValueError(f"{folder}: no labels.jsonl and no *.labels.json")
    categories = sorted({c for doc in documents for c in doc.labels} - {BOILERPLATE})
    return documents, categories


def _quote_start(text: str, quote: str, article: str) -> int:
    """Where ``quote`` starts: its first occurrence after the article's heading, else its first."""
    heading = text.find(article) if article else -1
    if heading >= 0:
        found = text.find(quote, heading)
        if found >= 0:
            return found
    return text.find(quote)


def _clause_categories(folder: Path, documents: list[Document]) -> list[str]:
    listing = folder / "categories.csv"
    if listing.exists():
        with open(listing, encoding="utf-8", newline="") as handle:
            return [r["category"] for r in csv.DictReader(handle) if r.get("kind") == "clause"]
    return _labelled_categories(documents)


def _labelled_categories(documents: Sequence[Document]) -> list[str]:
    return sorted({category for doc in documents for category in doc.labels})


def compiled_playbook(playbook: str | Path | Playbook | CompiledPlaybook) -> CompiledPlaybook:
    if isinstance(playbook, CompiledPlaybook):
        return playbook
    if isinstance(playbook, Playbook):
        return compile_playbook(playbook)
    return compile_playbook(load_playbook(playbook))


def _default_segmenter() -> Segmenter:
    return segment


def _fmt(value: float | None) -> str:
    return "-" if value is None else f"{value:.3f}"
