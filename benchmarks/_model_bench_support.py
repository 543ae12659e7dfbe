"""Helpers of bench_model.py: Django on a throw-away database, one contract through the Claude
path against the local Messages API fake, and the no-caching baseline's requests.

Import order matters: ``configure`` sets the environment and calls ``django.setup()``; the
Django-dependent imports happen inside the functions that need them.
"""

from __future__ import annotations

import logging
import math
import os
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from tests.fakes.messages_server import FakeMessagesServer, PromptCache  # noqa: E402

GENERIC_CATEGORY = "General"
GENERIC_QUESTION = (
    "Is this passage acceptable as written under the firm's standard positions, and if not, "
    "what should change?"
)


def configure(*, fake_url: str, work_dir: Path) -> None:
    """Point Django at the fake and a private SQLite file, migrate, and keep uploads in work_dir."""
    os.environ["DJANGO_SETTINGS_MODULE"] = "reviewapp.settings.test"
    os.environ["DATABASE_URL"] = f"sqlite:///{work_dir / 'bench.sqlite3'}"
    os.environ["REVIEW_ENGINE"] = "anthropic"
    os.environ["ANTHROPIC_API_KEY"] = "bench"
    os.environ["ANTHROPIC_BASE_URL"] = fake_url
    os.environ["LLM_RETRY_BACKOFF_S"] = "0"
    import django

    django.setup()
    from django.conf import settings
    from django.core.management import call_command

    settings.MEDIA_ROOT = str(work_dir / "media")  # the test settings would write under var/
    for name in ("httpx", "httpx2", "anthropic"):  # one INFO line per request otherwise
        logging.getLogger(name).setLevel(logging.WARNING)
    call_command("migrate", verbosity=0)


def bench_matter(name: str) -> Any:
    from reviewapp.accounts.models import Matter, Organisation

    organisation, _ = Organisation.objects.get_or_create(name="Benchmark")
    return Matter.objects.create(organisation=organisation, name=name)


class FirstDelta:
    """Wraps ``_DeltaSink.__call__`` (app code untouched) to note when the first text arrives;
    ``on_first`` runs right then (the profiler stops there)."""

    def __init__(self) -> None:
        self.at: float | None = None
        self.on_first: Callable[[], None] | None = None

    def install(self) -> None:
        from reviewapp.reviews import drafting

        original = drafting._DeltaSink.__call__
        recorder = self

        def recording_call(sink: Any, delta: str) -> None:
            if recorder.at is None:
                recorder.at = time.perf_counter()
                if recorder.on_first is not None:
                    recorder.on_first()
            original(sink, delta)

        drafting._DeltaSink.__call__ = recording_call  # type: ignore[method-assign,assignment]

    def reset(self) -> None:
        self.at = None


@dataclass
class ContractRun:
    name: str
    passages: int
    status: str
    ingest_ms: float = 0.0
    ttft_ms: float | None = None
    work_ms: float = 0.0
    calls: int = 0  # requests to the fake, failed ones included
    billed_calls: int = 0
    input_tokens: int = 0
    cache_write_tokens: int = 0
    cache_read_tokens: int = 0
    output_tokens: int = 0
    model_call_rows_uncached: int = 0  # the same figure from the app's ModelCall rows
    verifications: int = 0
    verifications_done: int = 0
    draft_status: str = ""
    baseline_calls: int = 0
    baseline_tokens: int = 0
    baseline_checked: int = 0
    baseline_mismatches: list[str] = field(default_factory=list)

    @property
    def uncached(self) -> int:
        """Billed input that was not a cache read: plain input plus cache writes."""
        return self.input_tokens + self.cache_write_tokens

    @property
    def complete(self) -> bool:
        return self.draft_status == "COMPLETE" and self.verifications_done == self.verifications


def run_contract(
    *,
    matter: Any,
    path: Path,
    server: FakeMessagesServer,
    first_delta: FirstDelta,
    on_ingested: Callable[[], None] | None = None,
) -> tuple[ContractRun, Any]:
    """Upload, ingest and scan a contract, then draft and verify it in this process."""
    from reviewapp.contracts.services import contract_ingest, contract_upload
    from reviewapp.reviews.inline import review_model_work_run
    from reviewapp.reviews.models import Review

    started = time.perf_counter()
    with open(path, "rb") as handle:
        size = os.fstat(handle.fileno()).st_size
        contract, _ = contract_upload(
            matter=matter, file=handle, name=path.name, size=size, enqueue=False
        )
    contract = (
        contract_ingest(contract_id=contract.pk, engine="anthropic", enqueue=False) or contract
    )
    ingested = time.perf_counter()
    run = ContractRun(path.name, contract.passages.count(), contract.status)
    run.ingest_ms = (ingested - started) * 1000
    review = Review.objects.filter(contract=contract).first()
    if review is None:
        return run, None
    first_delta.reset()
    before = len(server.requests)
    if on_ingested is not None:
        on_ingested()
    t0 = time.perf_counter()
    review_model_work_run(review_id=review.pk)
    run.work_ms = (time.perf_counter() - t0) * 1000
    if first_delta.at is not None:
        run.ttft_ms = (first_delta.at - t0) * 1000
    _count_requests(run, server.requests[before:])
    _count_rows(run, review)
    return run, review


def _count_requests(run: ContractRun, requests: Sequence[Any]) -> None:
    run.calls = len(requests)
    for request in requests:
        if not request.usage:
            continue
        run.billed_calls += 1
        run.input_tokens += request.usage["input_tokens"]
        run.cache_write_tokens += request.usage["cache_creation_input_tokens"]
        run.cache_read_tokens += request.usage["cache_read_input_tokens"]
        run.output_tokens += request.usage["output_tokens"]


def _count_rows(run: ContractRun, review: Any) -> None:
    from reviewapp.reviews.models import Draft, ModelCall, Verification, VerificationStatus

    for call in ModelCall.objects.filter(review=review):
        run.model_call_rows_uncached += call.input_tokens + call.cache_creation_input_tokens
    verifications = Verification.objects.filter(review=review)
    run.verifications = verifications.count()
    run.verifications_done = verifications.filter(status=VerificationStatus.DONE).count()
    run.draft_status = Draft.objects.get(review=review).status


# ---------------------------------------------------------------- the no-caching baseline


def baseline_requests(review: Any) -> list[dict[str, Any]]:
    """One verification request per passage of the contract, built exactly as reviewapp.llm
    builds ours (same system text, contract block, tools and user message) minus cache_control.
    A passage where a rule fired gets that rule's question, any other a generic one."""
    from reviewapp.contracts.models import Passage
    from reviewapp.llm import VerifyItem
    from reviewapp.llm.verify import verify_request
    from reviewapp.reviews.llm_calls import llm_settings, review_prefix
    from reviewapp.reviews.models import RuleFiring
    from reviewapp.rules.services import playbook_compiled

    compiled = playbook_compiled(review.playbook_version)
    rules: dict[int, list[Any]] = {}
    for passage_id, rule_id in RuleFiring.objects.filter(review=review).values_list(
        "passage_id", "rule_id"
    ):
        rules.setdefault(passage_id, []).append(compiled.compiled_rule(rule_id).rule)
    config, prefix = llm_settings(), review_prefix(review)
    requests = []
    for passage in Passage.objects.filter(contract=review.contract).order_by("index"):
        fired = sorted(rules.get(passage.pk, []), key=_severity_rank)
        item = VerifyItem(
            passage_index=passage.index,
            text=passage.text,
            rule_id=fired[0].id if fired else "baseline",
            category=fired[0].category if fired else GENERIC_CATEGORY,
            question=fired[0].question if fired and fired[0].question else GENERIC_QUESTION,
        )
        requests.append(_without_cache_control(verify_request(config, prefix, [item])))
    return requests


def _severity_rank(rule: Any) -> tuple[int, str]:
    order = {"critical": 0, "high": 1, "medium": 2, "low": 3}
    return order.get(rule.severity, 9), rule.id


def _without_cache_control(request: dict[str, Any]) -> dict[str, Any]:
    system = [
        {k: v for k, v in block.items() if k != "cache_control"} for block in request["system"]
    ]
    return {**request, "system": system}


def billed_uncached(request: dict[str, Any]) -> int:
    """The fake's own billing of a request (its PromptCache.account, without HTTP): input plus
    cache writes. With no cache_control anywhere, that is every input token."""
    usage = PromptCache().account(request)
    return usage["input_tokens"] + usage["cache_creation_input_tokens"]


def send_for_billing(request: dict[str, Any]) -> int:
    """Send a baseline request to the fake through the SDK and return what it billed."""
    from reviewapp.llm.client import sdk_client
    from reviewapp.reviews.llm_calls import llm_settings

    message = sdk_client(llm_settings()).messages.create(**request)
    usage = message.usage
    return usage.input_tokens + (usage.cache_creation_input_tokens or 0)


def count_baseline(run: ContractRun, review: Any, *, send: int | None) -> None:
    """Baseline tokens of a contract: every request is sent to the fake when ``send`` is None,
    else the fake's billing function is applied and ``send`` evenly spread requests are also sent
    and must be billed the same."""
    requests = baseline_requests(review)
    run.baseline_calls = len(requests)
    checked = set(_spread(len(requests), send)) if send is not None else set(range(len(requests)))
    for position, request in enumerate(requests):
        if send is None:
            run.baseline_tokens += send_for_billing(request)
            continue
        computed = billed_uncached(request)
        run.baseline_tokens += computed
        if position in checked:
            billed = send_for_billing(request)
            if billed != computed:
                run.baseline_mismatches.append(f"P{position}: {computed} vs billed {billed}")
    run.baseline_checked = len(checked)


def _spread(total: int, count: int) -> list[int]:
    if total == 0 or count <= 0:
        return []
    count = min(count, total)
    return sorted({math.floor(i * total / count) for i in range(count)})


# ---------------------------------------------------------------- statistics


def percentile(values: Sequence[float], fraction: float) -> float:
    """Nearest-rank percentile."""
    ordered = sorted(values)
    return ordered[max(0, math.ceil(fraction * len(ordered)) - 1)]


def mean_median(values: Sequence[float]) -> tuple[float, float]:
    return statistics.fmean(values), statistics.median(values)
