"""Learning from every decision, measured: simulated lawyers decide the TRAIN contracts' items,
the organisation retrains, and the SCORE contracts are reviewed before and after.

    .venv/bin/python benchmarks/bench_learning.py TRAIN_DIR SCORE_DIR [--base DIR] [--folds 5]
    .venv/bin/python benchmarks/bench_learning.py A B --split-from ../shared/data/cuad

TRAIN_DIR and SCORE_DIR are labelled folders in the ``labels.jsonl`` form of
``../shared/data/cuad`` (``--split-from CUAD`` first writes the two halves of CUAD there:
alternate contracts, the texts referred to where they are). In a private SQLite database, with
the offline engine, every TRAIN contract is reviewed and each of its queue items decided
through the services, category by category, as the labels say: a category a labelled clause of
that kind overlaps is there (``accept``), any other is a false flag (``not_this``); then every
labelled clause no item raised is flagged on each passage it overlaps (``passage_flag_raise``)
and decided. The organisation retrains (router and check, ``router_train_organisation`` with
``activate``) on ``--base`` (default TRAIN_DIR: the SCORE contracts must not be in it) plus
those labels, and the SCORE contracts are reviewed before and after it, with the figures of
``benchmarks/lawyer_load.py`` (recall with the category standing, items per contract, passage
and category precision, categories per item).

The shipped router and check were trained on all 311 CUAD development contracts, SCORE among
them: on those halves "before" is scored in-sample and flatters the shipped models; the
retrained ones never saw SCORE. ``--baseline`` makes "before" honest: the organisation first
trains on ``--base`` alone (no decision recorded yet: the models a firm would have if the
shipped ones had never seen its contracts), the TRAIN contracts are reviewed and decided under
those, and SCORE is scored with them; "after" adds the decisions. Exit status 0 when the
figures after are no worse in recall and better in passage precision, else 1.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

SHOWN = (
    "contracts",
    "labelled clauses",
    "recall (category standing)",
    "items per contract",
    "passage precision",
    "category precision",
    "categories per item",
)
NOTE = "Simulated lawyer (bench_learning): decided from the labels."


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("train", type=Path, help="labelled folder the lawyers decide")
    parser.add_argument("score", type=Path, help="labelled folder reviewed before and after")
    parser.add_argument("--base", type=Path, help="labelled folder retraining starts from")
    parser.add_argument("--folds", type=int, default=5)
    parser.add_argument("--split-from", type=Path, help="write CUAD's halves to train, score")
    parser.add_argument("--limit", type=int, default=0, help="at most this many per half")
    parser.add_argument(
        "--baseline", action="store_true", help="before: models trained on --base alone"
    )
    args = parser.parse_args()
    if args.split_from is not None:
        if not (args.split_from / "labels.jsonl").is_file():
            print(f"skipped: no labelled contracts at {args.split_from}")
            return 2
        split_halves(args.split_from, args.train, args.score, limit=args.limit)
    for folder in (args.train, args.score):
        if not (folder / "labels.jsonl").is_file():
            print(f"skipped: no labels.jsonl in {folder}")
            return 2
    with tempfile.TemporaryDirectory(prefix="bench-learning-") as work:
        _configure(Path(work))
        result = learning_run(
            train=args.train,
            score=args.score,
            base=args.base or args.train,
            folds=args.folds,
            log=lambda line: print(line, file=sys.stderr, flush=True),
            baseline=args.baseline,
        )
    print(format_result(result))
    print(json.dumps(result, indent=1, default=str), file=sys.stderr)
    return 0 if result["better"] else 1


def split_halves(source: Path, first: Path, second: Path, *, limit: int = 0) -> None:
    """Alternate contracts of ``source`` into two labelled folders (texts referred to where
    they are, by absolute path; ``categories.csv`` copied)."""
    rows = [line for line in (source / "labels.jsonl").read_text().splitlines() if line.strip()]
    for half, folder in enumerate((first, second)):
        chosen = rows[half::2][: limit or None]
        folder.mkdir(parents=True, exist_ok=True)
        with open(folder / "labels.jsonl", "w", encoding="utf-8") as handle:
            for line in chosen:
                row = json.loads(line)
                row["txt"] = str((source / row["txt"]).resolve())
                row.pop("pdf", None)
                handle.write(json.dumps(row, ensure_ascii=False) + "\n")
        listing = source / "categories.csv"
        if listing.is_file():
            (folder / "categories.csv").write_bytes(listing.read_bytes())


def _configure(work: Path) -> None:
    os.environ["DJANGO_SETTINGS_MODULE"] = "reviewapp.settings.local"
    os.environ["DATABASE_URL"] = f"sqlite:///{work / 'bench.sqlite3'}"
    os.environ["REVIEW_ENGINE"] = "offline"
    os.environ.pop("REDIS_URL", None)
    import django

    django.setup()
    from django.conf import settings
    from django.core.management import call_command

    settings.MEDIA_ROOT = str(work / "media")
    call_command("migrate", verbosity=0)


def learning_run(
    *,
    train: Path,
    score: Path,
    base: Path,
    folds: int,
    log: Callable[[str], None],
    baseline: bool = False,
) -> dict[str, Any]:
    """The whole benchmark in the database Django is set up with (a test's, or a private one)."""
    from reviewapp.rules.learned.organisation_training import router_train_organisation
    from reviewapp.text.evaluation import load_documents

    lawyer, organisation = _people()
    train_docs, categories = load_documents(train)
    score_docs, _ = load_documents(score)
    if baseline:  # models that never saw SCORE nor a decision: the honest "before"
        started = time.perf_counter()
        router_train_organisation(
            organisation=organisation,
            folder=base,
            folds=folds,
            activate=True,
            log=log,
            without_decisions=True,
        )
        log(f"baseline trained on {base} in {time.perf_counter() - started:.0f} s")
    started = time.perf_counter()
    decided = _decide_all(organisation, lawyer, train_docs, set(categories), log)
    log(f"decided {decided} in {time.perf_counter() - started:.0f} s")
    before = _scored(organisation, "before", score_docs, set(categories), log)
    started = time.perf_counter()
    version, report = router_train_organisation(
        organisation=organisation, folder=base, folds=folds, activate=True, log=log
    )
    log(f"retrained {version.label} in {time.perf_counter() - started:.0f} s")
    after = _scored(organisation, "after", score_docs, set(categories), log)
    better = (
        after["recall (category standing)"] >= before["recall (category standing)"]
        and after["passage precision"] > before["passage precision"]
    )
    return {
        "decided": decided,
        "version": version.label,
        "retraining": {k: report.get(k) for k in ("decisions", "decisions_active", "check")},
        "before": before,
        "after": after,
        "better": better,
    }


def _people() -> tuple[Any, Any]:
    from django.contrib.auth import get_user_model

    from reviewapp.accounts.models import Organisation

    organisation = Organisation.objects.create(name=f"Learning {time.time_ns()}")
    lawyer = get_user_model().objects.create_user(username=f"lawyer-{organisation.pk}")
    return lawyer, organisation


def _matter(organisation: Any, name: str, lawyer: Any = None) -> Any:
    from reviewapp.accounts.models import Matter, Membership, Role

    matter = Matter.objects.create(organisation=organisation, name=name)
    if lawyer is not None:
        Membership.objects.create(user=lawyer, matter=matter, role=Role.LAWYER)
    return matter


def _reviewed(matter: Any, doc: Any) -> Any:
    """Uploaded, ingested and reviewed by the offline engine, as `manage.py review` does."""
    from django.core.files.base import ContentFile

    from reviewapp.contracts.services import contract_ingest, contract_upload
    from reviewapp.reviews.inline import review_model_work_run
    from reviewapp.reviews.models import Review

    data = doc.text.encode("utf-8")
    name = f"{Path(doc.id).name[:120]}.txt"
    contract, _ = contract_upload(
        matter=matter, file=ContentFile(data, name=name), name=name, size=len(data), enqueue=False
    )
    contract = contract_ingest(contract_id=contract.pk, engine="offline", enqueue=False) or contract
    review = Review.objects.filter(contract=contract).first()
    if review is not None:
        review_model_work_run(review_id=review.pk)
    return contract


def _there(doc: Any, passage: Any, categories: set[str]) -> set[str]:
    """The labelled categories of clauses overlapping the passage."""
    return {
        category
        for category, spans in doc.labels.items()
        if category in categories
        for start, end in spans
        if start < passage.end and passage.start < end
    }


def _decide_all(
    organisation: Any, lawyer: Any, docs: list[Any], categories: set[str], log: Any
) -> dict[str, int]:
    matter = _matter(organisation, "Decided", lawyer)
    tally = dict.fromkeys(("items", "accept", "not_this", "flags", "flags_refused"), 0)
    for n, doc in enumerate(docs, 1):
        contract = _reviewed(matter, doc)
        _decide_items(contract, doc, lawyer, categories, tally)
        _flag_missed(contract, doc, lawyer, categories, tally)
        if n % 10 == 0:
            log(f"  {n}/{len(docs)} contracts decided")
    return tally


def _decide_items(contract: Any, doc: Any, lawyer: Any, categories: set[str], tally: dict) -> None:
    from reviewapp.queue.decisions import queue_item_answer, queue_item_claim, queue_item_decide
    from reviewapp.queue.models import ItemStatus, QueueItem

    for item in QueueItem.objects.filter(passage__contract=contract).exclude(
        status=ItemStatus.DONE
    ):
        there = _there(doc, item.passage, categories)
        if item.status == ItemStatus.OPEN:
            queue_item_claim(item_id=item.pk, user=lawyer)
        answers = {c: "accept" if c in there else "not_this" for c in item.asked}
        tally["items"] += 1
        for answer in answers.values():
            tally[answer] += 1
        if answers:
            queue_item_answer(item_id=item.pk, user=lawyer, decisions=answers, note=NOTE)
        else:
            decision = "accept" if there else "not_this"
            queue_item_decide(item_id=item.pk, user=lawyer, decision=decision, note=NOTE)


def _flag_missed(contract: Any, doc: Any, lawyer: Any, categories: set[str], tally: dict) -> None:
    """Every labelled clause no item raised, flagged on each passage it overlaps, and decided."""
    from reviewapp.queue.decisions import queue_item_decide
    from reviewapp.queue.flags import passage_flag_raise
    from reviewapp.queue.records import QueueConflict
    from reviewapp.reviews.lawyer_labels import categories_standing

    passages = list(contract.passages.order_by("index"))
    standing = categories_standing(passage_ids=[p.pk for p in passages])
    for passage in passages:
        missed = sorted(_there(doc, passage, categories) - set(standing.get(passage.pk, ())))
        item = None
        for category in missed:
            try:
                item = passage_flag_raise(
                    passage_id=passage.pk, user=lawyer, category=category, note=NOTE
                )
                tally["flags"] += 1
            except QueueConflict:
                tally["flags_refused"] += 1
        if item is not None:
            queue_item_decide(item_id=item.pk, user=lawyer, decision="accept", note=NOTE)


def _scored(
    organisation: Any, name: str, docs: list[Any], categories: set[str], log: Any
) -> dict[str, Any]:
    from lawyer_load import lawyer_load

    from reviewapp.reviews.review_output import document_record

    matter = _matter(organisation, f"Scored {name}")
    records, by_name = [], {}
    started = time.perf_counter()
    for doc in docs:
        contract = _reviewed(matter, doc)
        records.append(
            document_record(document=doc.id, contract=contract, with_text=False, timings_ms={})
        )
        by_name[Path(doc.id).name] = doc
    log(f"reviewed {len(docs)} contracts {name} in {time.perf_counter() - started:.0f} s")
    for record in records:
        record["document"] = f"{record['document']}.txt"  # matched by stem, as lawyer_load does
    figures = lawyer_load(records, by_name, categories)
    return {key: figures[key] for key in SHOWN}


def format_result(result: dict[str, Any]) -> str:
    rows = [f"{'':30} {'before':>10} {'after':>10}"]
    for key in SHOWN:
        before, after = result["before"][key], result["after"][key]
        if isinstance(before, float):
            rows.append(f"{key:30} {before:10.3f} {after:10.3f}")
        else:
            rows.append(f"{key:30} {before:>10} {after:>10}")
    decided = result["decided"]
    rows.append(
        f"decided: {decided['items']} items ({decided['accept']} categories there, "
        f"{decided['not_this']} false flags), {decided['flags']} clauses flagged "
        f"({decided['flags_refused']} refused); retrained {result['version']}"
    )
    return "\n".join(rows)


if __name__ == "__main__":
    raise SystemExit(main())
