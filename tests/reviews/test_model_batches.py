"""A bulk upload's model review through Message Batches, the real SDK against the local server.

The flow is the one a worker and beat run: the scan queues a submit task (eager in tests), and
``poll_model_batches`` (beat's task) is run until every batch has landed.
"""

from __future__ import annotations

import io
import time
from decimal import Decimal

import pytest

from reviewapp.contracts.models import Contract, IntakeBatch, IntakeStatus, PassageState
from reviewapp.contracts.services import contract_ingest, contract_upload
from reviewapp.reviews.batches.models import (
    ModelBatch,
    ModelBatchRequest,
    ModelBatchRound,
    ModelBatchStatus,
)
from reviewapp.reviews.batches.polling import model_batch_poll
from reviewapp.reviews.batches.tasks import poll_model_batches
from reviewapp.reviews.models import DraftStatus, ModelCall, Review, VerificationStatus
from reviewapp.reviews.sweeper import stalled_work_sweep
from tests.fakes.message_batches import BatchFault
from tests.fakes.messages_server import Fault, running_server
from tests.reviews.test_claude_engine import CONTRACT

pytestmark = pytest.mark.django_db

QUIET_FIRST = CONTRACT.replace(
    "LICENSE AGREEMENT\n\n",
    "LICENSE AGREEMENT\n\n0. Delivery. The Software is delivered by download.\n\n",
)


@pytest.fixture
def claude(settings):
    with running_server() as server:
        settings.REVIEW_ENGINE = "anthropic"
        settings.ANTHROPIC_API_KEY = "test-key"
        settings.ANTHROPIC_BASE_URL = server.url
        settings.LLM_TIMEOUT_S = 2.0
        settings.LLM_FIRST_TOKEN_TIMEOUT_S = 1.0
        settings.LLM_SDK_RETRIES = 0
        settings.LLM_TASK_RETRIES = 2
        settings.LLM_RETRY_BACKOFF_S = 0.0
        settings.VERIFY_BATCH_SIZE = 2
        settings.MODEL_BATCH_POLL_S = 0.0
        settings.MODEL_BATCH_POLL_MAX_S = 0.0001
        settings.MODEL_BATCH_COLLECT_MAX_S = 3600
        server.batches.delay_s = 0.05
        yield server


def upload(matter, capture, texts, *, use_model_batch=True):
    """Contracts of one intake batch, read and scanned as the ingest task does."""
    intake = IntakeBatch.objects.create(
        matter=matter,
        name="room.zip",
        status=IntakeStatus.RECEIVED,
        total=len(texts),
        use_model_batch=use_model_batch,
    )
    contracts = []
    for number, text in enumerate(texts):
        data = text.encode()
        contract, _ = contract_upload(
            matter=matter,
            file=io.BytesIO(data),
            name=f"c{number}.txt",
            size=len(data),
            enqueue=False,
        )
        Contract.objects.filter(pk=contract.pk).update(intake_batch=intake)
        contracts.append(contract)
    for contract in contracts:
        with capture(execute=True):
            contract_ingest(contract_id=contract.pk)
    return intake, [Review.objects.get(contract=c) for c in contracts]


def run_beat(capture, *, until=lambda: False, limit_s=10.0):
    """Run beat's poll until every batch has landed (or failed)."""
    deadline = time.monotonic() + limit_s
    while time.monotonic() < deadline:
        with capture(execute=True):
            poll_model_batches()
        open_ = ModelBatch.objects.exclude(
            status__in=(ModelBatchStatus.LANDED, ModelBatchStatus.FAILED)
        )
        if not open_.exists() or until():
            return
        time.sleep(0.02)
    raise AssertionError(f"batches still open: {list(open_.values('pk', 'status'))}")


def outcome_fields(review):
    return sorted(
        (v.passage.index, v.outcome, v.reason, v.quote, v.rationale, v.model, v.risk)
        for v in review.verifications.select_related("passage")
    )


def test_batch_review_lands_like_the_interactive_one(
    claude, matter, make_matter, django_capture_on_commit_callbacks
):
    _intake, reviews = upload(matter, django_capture_on_commit_callbacks, [QUIET_FIRST, CONTRACT])
    assert not [r for r in claude.requests if r.path == "/v1/messages"]  # nothing interactive
    drafts = ModelBatch.objects.get(round=ModelBatchRound.DRAFTS)
    assert drafts.status == ModelBatchStatus.IN_PROGRESS and drafts.anthropic_id
    assert drafts.request_count == 2 and drafts.estimated_cost_usd > 0
    run_beat(django_capture_on_commit_callbacks)

    checks = ModelBatch.objects.get(round=ModelBatchRound.VERIFICATIONS)
    assert checks.follows == drafts
    for batch in (drafts, checks):
        batch.refresh_from_db()
        assert batch.status == ModelBatchStatus.LANDED
        assert batch.actual_cost_usd and batch.actual_cost_usd > 0
    assert not [r for r in claude.requests if r.path == "/v1/messages"]

    # The same contracts reviewed interactively in another matter land the same way (with a
    # cold prompt cache, as the batches had).
    claude.cache.clear()
    other = make_matter(name="Interactive", organisation="Org")
    interactive = []
    for number, text in enumerate([QUIET_FIRST, CONTRACT]):
        with django_capture_on_commit_callbacks(execute=True):
            contract, _ = contract_upload(
                matter=other, file=io.BytesIO(text.encode()), name=f"i{number}.txt", size=len(text)
            )
        interactive.append(Review.objects.get(contract=contract))
    for batched, live in zip(reviews, interactive, strict=True):
        batched.refresh_from_db()
        assert batched.draft.status == DraftStatus.COMPLETE
        assert batched.draft.data["issues"] == live.draft.data["issues"]
        assert batched.draft.data.get("model_flags") == live.draft.data.get("model_flags")
        assert outcome_fields(batched) == outcome_fields(live)
        states = lambda r: sorted(r.contract.passages.values_list("index", "state"))  # noqa: E731
        assert states(batched) == states(live)
        assert batched.status == live.status
    # The draft of the first contract raised a passage no rule flagged; it was checked too.
    assert reviews[0].draft.data["model_flags"]
    # The same work for about half the price (the checks of the rules and of the draft share
    # requests in a batch, so a little less): every call is recorded, at the batch rate.
    batch_cost = sum(c.cost_usd for c in ModelCall.objects.filter(review__in=reviews))
    live_cost = sum(c.cost_usd for c in ModelCall.objects.filter(review__in=interactive))
    assert drafts.actual_cost_usd + checks.actual_cost_usd == batch_cost
    assert live_cost * Decimal("0.4") <= batch_cost <= live_cost * Decimal("0.55")


def test_expired_and_errored_requests_go_to_a_lawyer_with_a_reason(
    claude, matter, django_capture_on_commit_callbacks
):
    claude.batches.inject(BatchFault.expired(lambda custom_id: custom_id.startswith("verify-")))
    _intake, (review,) = upload(matter, django_capture_on_commit_callbacks, [CONTRACT])
    run_beat(django_capture_on_commit_callbacks)
    by_model = review.verifications.exclude(reason="RULE_REQUIRES_HUMAN")
    assert by_model.exists()
    for verification in by_model:
        assert verification.status == VerificationStatus.DONE
        assert verification.outcome == PassageState.NEEDS_HUMAN_REVIEW
        assert verification.reason == "MODEL_BATCH_EXPIRED"
        assert verification.passage.state == PassageState.NEEDS_HUMAN_REVIEW
    checks = ModelBatch.objects.get(round=ModelBatchRound.VERIFICATIONS)
    assert checks.expired_count == checks.request_count
    assert checks.actual_cost_usd == 0


def test_an_errored_draft_fails_with_its_reason_and_the_rules_checks_still_run(
    claude, matter, django_capture_on_commit_callbacks
):
    claude.batches.inject(BatchFault.errored(lambda custom_id: custom_id.startswith("draft-")))
    _intake, (review,) = upload(matter, django_capture_on_commit_callbacks, [CONTRACT])
    run_beat(django_capture_on_commit_callbacks)
    review.refresh_from_db()
    assert review.draft.status == DraftStatus.FAILED
    assert review.draft.error == "MODEL_BATCH_ERRORED"
    assert not review.verifications.filter(status=VerificationStatus.QUEUED).exists()
    assert review.verifications.filter(outcome=PassageState.CONFIRMED).exists()


def test_polling_twice_changes_nothing(
    claude, client, reviewer, matter, django_capture_on_commit_callbacks
):
    _intake, (review,) = upload(matter, django_capture_on_commit_callbacks, [CONTRACT])
    run_beat(django_capture_on_commit_callbacks)
    client.force_login(reviewer)
    page = client.get(f"/contracts/{review.contract_id}/").content.decode()
    for batch in ModelBatch.objects.all():
        assert f'data-model-batch-id="{batch.pk}"' in page
    calls = ModelCall.objects.count()
    events = list(review.transitions.values_list("pk", flat=True))
    landed = {b.pk: b.actual_cost_usd for b in ModelBatch.objects.all()}
    for batch_id in landed:
        with django_capture_on_commit_callbacks(execute=True):
            model_batch_poll(batch_id=batch_id)
            model_batch_poll(batch_id=batch_id)
            poll_model_batches()
    assert ModelCall.objects.count() == calls
    assert list(review.transitions.values_list("pk", flat=True)) == events
    assert {b.pk: b.actual_cost_usd for b in ModelBatch.objects.all()} == landed
    results_reads = [r for r in claude.requests if r.path.endswith("/results")]
    assert len(results_reads) == 2  # one per batch


def test_sweeper_leaves_batch_owned_work_alone(
    claude, matter, settings, django_capture_on_commit_callbacks
):
    claude.batches.delay_s = 60  # the batch stays in progress
    _intake, (review,) = upload(matter, django_capture_on_commit_callbacks, [CONTRACT])
    with django_capture_on_commit_callbacks(execute=True):
        swept = stalled_work_sweep(older_than_s=1, max_attempts=1)
    # Nothing is stalled a second later either: the batch owns the draft and the checks.
    time.sleep(1.1)
    with django_capture_on_commit_callbacks(execute=True):
        swept = stalled_work_sweep(older_than_s=1, max_attempts=1)
    assert swept.total == 0
    assert review.verifications.filter(status=VerificationStatus.QUEUED).exists()
    assert not [r for r in claude.requests if r.path == "/v1/messages"]


def test_a_batch_waits_for_every_document_of_the_upload(
    claude, matter, django_capture_on_commit_callbacks
):
    intake, _reviews = upload(matter, django_capture_on_commit_callbacks, [CONTRACT])
    ModelBatch.objects.all().delete()
    ModelBatchRequest.objects.all().delete()
    IntakeBatch.objects.filter(pk=intake.pk).update(status=IntakeStatus.RECEIVING)
    data = QUIET_FIRST.encode()
    contract, _ = contract_upload(
        matter=matter, file=io.BytesIO(data), name="late.txt", size=len(data), enqueue=False
    )
    Contract.objects.filter(pk=contract.pk).update(intake_batch=intake)
    with django_capture_on_commit_callbacks(execute=True):
        contract_ingest(contract_id=contract.pk)
    batch = ModelBatch.objects.get()
    assert batch.status == ModelBatchStatus.COLLECTING  # the upload is still arriving
    IntakeBatch.objects.filter(pk=intake.pk).update(status=IntakeStatus.RECEIVED)
    run_beat(django_capture_on_commit_callbacks)
    batch.refresh_from_db()
    assert batch.status == ModelBatchStatus.LANDED


def test_an_upload_without_batches_stays_interactive(
    claude, matter, django_capture_on_commit_callbacks
):
    _intake, (review,) = upload(
        matter, django_capture_on_commit_callbacks, [CONTRACT], use_model_batch=False
    )
    assert not ModelBatch.objects.exists()
    assert review.draft.status == DraftStatus.COMPLETE
    assert [r for r in claude.requests if r.path == "/v1/messages"]


def test_a_canceled_batch_sends_its_checks_to_a_lawyer(
    claude, client, reviewer, lawyer, matter, django_capture_on_commit_callbacks
):
    _intake, (review,) = upload(matter, django_capture_on_commit_callbacks, [CONTRACT])
    claude.batches.delay_s = 60  # the verifications batch will wait

    def checks_sent():
        return ModelBatch.objects.filter(
            round=ModelBatchRound.VERIFICATIONS, status=ModelBatchStatus.IN_PROGRESS
        ).exists()

    run_beat(django_capture_on_commit_callbacks, until=checks_sent)
    checks = ModelBatch.objects.get(round=ModelBatchRound.VERIFICATIONS)
    url = f"/api/model-batches/{checks.pk}/cancel/"
    client.force_login(lawyer)
    assert client.post(url).status_code == 403
    client.force_login(reviewer)
    answer = client.post(url)
    assert answer.status_code == 200 and answer.json()["status"] in ("CANCELING", "ENDED")
    run_beat(django_capture_on_commit_callbacks)
    checks.refresh_from_db()
    assert (
        checks.status == ModelBatchStatus.LANDED and checks.canceled_count == checks.request_count
    )
    by_model = review.verifications.exclude(reason="RULE_REQUIRES_HUMAN")
    assert by_model.exists()
    assert set(by_model.values_list("outcome", "reason")) == {
        (PassageState.NEEDS_HUMAN_REVIEW, "MODEL_BATCH_CANCELED")
    }


def test_a_large_batch_lands_in_parts_with_the_same_result(
    claude, matter, settings, django_capture_on_commit_callbacks
):
    settings.CELERY_TASK_SOFT_TIME_LIMIT = 0  # one draft or group of checks per poll
    _intake, reviews = upload(matter, django_capture_on_commit_callbacks, [QUIET_FIRST, CONTRACT])
    run_beat(django_capture_on_commit_callbacks)
    for review in reviews:
        review.refresh_from_db()
        assert review.draft.status == DraftStatus.COMPLETE
        assert not review.verifications.filter(status=VerificationStatus.QUEUED).exists()
    results_reads = [r for r in claude.requests if r.path.endswith("/results")]
    assert len(results_reads) > 2  # read again for each part


def test_a_refused_batch_fails_with_a_reason_and_an_overloaded_one_is_sent_again(
    claude, matter, django_capture_on_commit_callbacks
):
    claude.faults.add(Fault.bad_request())  # the drafts batch is refused
    claude.faults.add(Fault.overloaded())  # the checks batch: once busy, then sent
    _intake, (review,) = upload(matter, django_capture_on_commit_callbacks, [CONTRACT])
    run_beat(django_capture_on_commit_callbacks)
    drafts = ModelBatch.objects.get(round=ModelBatchRound.DRAFTS)
    assert drafts.status == ModelBatchStatus.FAILED and "request_rejected" in drafts.error
    review.refresh_from_db()
    assert (review.draft.status, review.draft.error) == (DraftStatus.FAILED, "MODEL_BATCH_FAILED")
    checks = ModelBatch.objects.get(round=ModelBatchRound.VERIFICATIONS)
    assert checks.status == ModelBatchStatus.LANDED and checks.succeeded_count
    assert review.verifications.filter(outcome=PassageState.CONFIRMED).exists()
