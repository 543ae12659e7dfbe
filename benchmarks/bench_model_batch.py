"""Batch model review of a bulk upload against the local Messages API fake, and the same contracts
reviewed with interactive calls, for the cost of each path.

    .venv/bin/python benchmarks/bench_model_batch.py [--limit 50] [--data DIR]
                                                      [--batch-delay 0.5] [--expire-every N]

Batch path: the contracts arrive as one intake batch with ``use_model_batch``; each is ingested
and scanned (``contract_ingest``, tasks eager as in tests), which collects its draft into the
drafts batch; the batch is sent when the last contract is scanned, beat's ``poll_model_batches``
runs until the drafts batch and then the verifications batch have landed. The fake processes a
batch ``--batch-delay`` seconds after it arrives (an instant model: the real service takes
minutes to hours). Interactive path: the same contracts in another matter, with the prompt cache
emptied first, drafted by streaming and verified by one call per group of checks.

Cost is what the app recorded: the sum of ``ModelCall.cost_usd`` (usage billed by the fake,
priced with the app's price table; batch requests at the batch rate). The estimate before
sending is the batches' ``estimated_cost_usd``. Target: batch cost / interactive cost <= 0.55.
``--expire-every N`` makes every N-th batch request expire (those checks go to a lawyer; the
comparison of outcomes then skips them). Exit status 0 when the target is met, every contract
is complete on both paths, and outcomes agree.
"""

from __future__ import annotations

import argparse
import io
import json
import sys
import tempfile
import time
from decimal import Decimal
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))

import _model_bench_support as support  # noqa: E402

from tests.fakes.message_batches import BatchFault, every  # noqa: E402
from tests.fakes.messages_server import running_server  # noqa: E402

DATA = HERE.parent.parent / "shared" / "data" / "cuad"
TARGET_RATIO = 0.55


def main() -> int:
    arguments = _parse_arguments()
    labels = arguments.data / "labels.jsonl"
    if not labels.exists():
        print(f"SKIPPED: no CUAD dev data at {arguments.data} (expected labels.jsonl there).")
        return 0
    with open(labels, encoding="utf-8") as lines:
        paths = [arguments.data / json.loads(line)["txt"] for line in lines if line.strip()]
    paths = paths[: arguments.limit]
    print(f"contracts: {len(paths)} from {arguments.data}", flush=True)
    with running_server() as server, tempfile.TemporaryDirectory(prefix="bench-batch-") as work:
        support.configure(fake_url=server.url, work_dir=Path(work))
        _settings_for_bench()
        server.batches.delay_s = arguments.batch_delay
        if arguments.expire_every:
            server.batches.inject(BatchFault.expired(every(arguments.expire_every)))
        batch = _batch_path(paths)
        server.batches.faults.clear()
        server.cache.clear()
        interactive = _interactive_path(paths)
        live_calls = [r for r in server.requests if r.path == "/v1/messages"]
        print(
            f"interactive HTTP calls: {len(live_calls)}; batch requests processed: "
            f"{len(server.batches.processed)}"
        )
    return _report(batch, interactive, expiring=bool(arguments.expire_every))


def _parse_arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--limit", type=int, default=50, help="the first N contracts")
    parser.add_argument("--data", type=Path, default=DATA, help="the CUAD dev folder")
    parser.add_argument("--batch-delay", type=float, default=0.5, help="fake's batch seconds")
    parser.add_argument("--expire-every", type=int, default=0, help="expire every N-th request")
    return parser.parse_args()


def _settings_for_bench() -> None:
    from django.conf import settings

    settings.MODEL_BATCH_POLL_S = 0.0
    settings.MODEL_BATCH_POLL_MAX_S = 0.0001
    settings.MODEL_BATCH_COLLECT_MAX_S = 24 * 3600


def _upload(matter, path: Path, intake=None):
    from reviewapp.contracts.models import Contract
    from reviewapp.contracts.services import contract_upload

    data = path.read_bytes()
    contract, _ = contract_upload(
        matter=matter, file=io.BytesIO(data), name=path.name, size=len(data), enqueue=False
    )
    if intake is not None:
        Contract.objects.filter(pk=contract.pk).update(intake_batch=intake)
    return contract


def _batch_path(paths: list[Path]) -> dict:
    from reviewapp.contracts.models import IntakeBatch, IntakeStatus
    from reviewapp.contracts.services import contract_ingest
    from reviewapp.reviews.batches.models import ModelBatch, ModelBatchStatus
    from reviewapp.reviews.batches.tasks import poll_model_batches

    matter = support.bench_matter("batch")
    intake = IntakeBatch.objects.create(
        matter=matter,
        name="bench.zip",
        status=IntakeStatus.RECEIVED,
        total=len(paths),
        use_model_batch=True,
    )
    contracts = [_upload(matter, path, intake) for path in paths]
    started = time.perf_counter()
    for contract in contracts:
        contract_ingest(contract_id=contract.pk)
    scanned = time.perf_counter()
    polls = 0
    open_statuses = (ModelBatchStatus.LANDED, ModelBatchStatus.FAILED)
    while ModelBatch.objects.filter(matter=matter).exclude(status__in=open_statuses).exists():
        poll_model_batches()
        polls += 1
        time.sleep(0.05)
    ended = time.perf_counter()
    batches = list(ModelBatch.objects.filter(matter=matter).order_by("pk"))
    return {
        "matter": matter,
        "ingest_scan_s": scanned - started,
        "model_s": ended - scanned,
        "wall_s": ended - started,
        "polls": polls,
        "batches": batches,
        "estimated": sum((b.estimated_cost_usd for b in batches), Decimal(0)),
    }


def _interactive_path(paths: list[Path]) -> dict:
    from reviewapp.contracts.services import contract_ingest

    matter = support.bench_matter("interactive")
    contracts = [_upload(matter, path) for path in paths]
    started = time.perf_counter()
    for contract in contracts:
        contract_ingest(contract_id=contract.pk)  # eager tasks: draft and checks run here
    return {"matter": matter, "wall_s": time.perf_counter() - started}


def _costs(matter) -> dict:
    from django.db.models import Count, Sum

    from reviewapp.reviews.models import ModelCall

    calls = ModelCall.objects.filter(review__contract__matter=matter)
    totals = calls.aggregate(
        cost=Sum("cost_usd"),
        calls=Count("pk"),
        input=Sum("input_tokens"),
        output=Sum("output_tokens"),
        cache_read=Sum("cache_read_input_tokens"),
        cache_write=Sum("cache_creation_input_tokens"),
    )
    return {name: value or 0 for name, value in totals.items()}


def _outcomes(matter) -> dict:
    from reviewapp.reviews.models import Review

    found = {}
    for review in Review.objects.filter(contract__matter=matter).select_related("contract"):
        checks = review.verifications.select_related("passage")
        found[review.contract.sha256] = {
            "draft": (review.draft.status, json.dumps(review.draft.data.get("issues"))),
            "checks": {v.passage.index: (v.status, v.outcome, v.reason, v.quote) for v in checks},
            "states": sorted(review.contract.passages.values_list("index", "state")),
        }
    return found


def _report(batch: dict, interactive: dict, *, expiring: bool) -> int:
    ours, theirs = _costs(batch["matter"]), _costs(interactive["matter"])
    rows = [("", "batch", "interactive")]
    for name in ("calls", "input", "cache_write", "cache_read", "output"):
        rows.append(
            (
                f"{name} tokens" if name != "calls" else "model calls",
                f"{ours[name]:,}",
                f"{theirs[name]:,}",
            )
        )
    rows.append(("cost, recorded (USD)", f"{ours['cost']:.4f}", f"{theirs['cost']:.4f}"))
    rows.append(("cost estimated before sending", f"{batch['estimated']:.4f}", ""))
    rows.append(
        (
            "wall time, ingest to all landed (s)",
            f"{batch['wall_s']:.1f}",
            f"{interactive['wall_s']:.1f}",
        )
    )
    widths = [max(len(row[i]) for row in rows) for i in range(3)]
    for label, *cells in rows:
        print(
            "  ".join(
                [
                    label.ljust(widths[0]),
                    *(c.rjust(w) for c, w in zip(cells, widths[1:], strict=True)),
                ]
            )
        )
    print(
        f"batch path: ingest + scan {batch['ingest_scan_s']:.1f} s, model work (send, "
        f"{batch['polls']} beat polls, land) {batch['model_s']:.1f} s"
    )
    for b in batch["batches"]:
        print(
            f"  batch {b.pk} {b.round}: {b.status}, {b.request_count} requests "
            f"(succeeded {b.succeeded_count}, errored {b.errored_count}, expired "
            f"{b.expired_count}), estimated ${b.estimated_cost_usd:.4f}, actual "
            f"${b.actual_cost_usd or 0:.4f}"
        )
    batched, live = _outcomes(batch["matter"]), _outcomes(interactive["matter"])
    incomplete = [
        k
        for k, v in {**batched, **live}.items()
        if any(status == "QUEUED" for status, *_ in v["checks"].values())
    ]
    differ = [k for k in live if k in batched and batched[k] != live[k]]
    ratio = float(ours["cost"] / theirs["cost"]) if theirs["cost"] else float("inf")
    met = ratio <= TARGET_RATIO
    print(
        f"contracts: {len(batched)} batch, {len(live)} interactive; checks still queued: "
        f"{len(incomplete)}; contracts whose draft, checks or states differ: {len(differ)}"
        + (" (expected: expired requests)" if expiring else "")
    )
    print(
        f"target: batch cost / interactive cost {ratio:.3f} <= {TARGET_RATIO} "
        f"{'met' if met else 'MISSED'}"
    )
    agree = expiring or not differ
    return 0 if met and not incomplete and agree and len(batched) == len(live) else 1


if __name__ == "__main__":
    sys.exit(main())
