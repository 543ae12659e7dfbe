"""Uploading and ingesting contracts: the one home of that logic for web, API and CLI."""

from __future__ import annotations

import hashlib
import logging
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import timedelta
from typing import IO, Any

from django.conf import settings
from django.core.cache import cache
from django.core.files import File
from django.db import IntegrityError, transaction
from django.db.models import F, Q
from django.utils import timezone
from django.utils.translation import gettext

from reviewapp.accounts.models import Matter
from reviewapp.audit.recorders import audit_contract_upload
from reviewapp.contracts.intake.codes import ENTRY_MESSAGES, FailureCode
from reviewapp.contracts.intake.progress import intake_progress_publish
from reviewapp.contracts.models import (
    WORKING_STATUSES,
    Contract,
    DocumentStatus,
    IntakeBatch,
    Passage,
)
from reviewapp.contracts.ocr_settings import (
    ocr_missing_message,
    ocr_page_count,
    ocr_read,
    ocr_time_limit_s,
)
from reviewapp.contracts.selectors import matter_storage_used
from reviewapp.contracts.signals import contract_read
from reviewapp.contracts.unlocked import contract_extract
from reviewapp.realtime.events import event_publish
from reviewapp.tasks_by_name import task_named
from reviewapp.text.extraction import (
    ExtractedDocument,
    ExtractionError,
    ExtractionLimits,
    detect_kind,
)
from reviewapp.text.extraction.errors import Problem
from reviewapp.text.segmentation import segment

logger = logging.getLogger(__name__)

PASSWORD_CACHE_SECONDS = 600
HEAD_BYTES = 8192


@dataclass(frozen=True)
class UploadRejected(Exception):
    code: str
    message: str
    params: Mapping[str, object] = field(default_factory=dict)


def _limits() -> ExtractionLimits:
    return ExtractionLimits(
        max_bytes=settings.UPLOAD_MAX_BYTES,
        max_pages=settings.INGEST_MAX_PAGES,
        timeout_s=settings.INGEST_PARSE_TIMEOUT_S,
        memory_mb=settings.INGEST_MEMORY_MB,
    )


def _megabytes(size: int) -> str:
    return f"{size / (1024 * 1024):.1f} MB"


def _sha256_and_head(stream: IO[bytes]) -> tuple[str, bytes]:
    digest = hashlib.sha256()
    stream.seek(0)
    head = stream.read(HEAD_BYTES)
    digest.update(head)
    for chunk in iter(lambda: stream.read(1024 * 1024), b""):
        digest.update(chunk)
    stream.seek(0)
    return digest.hexdigest(), head


def contract_upload(
    *,
    matter: Matter,
    file: IO[bytes],
    name: str,
    size: int,
    uploaded_by: Any = None,
    enqueue: bool = True,
    intake_batch: IntakeBatch | None = None,
    folder_path: str = "",
    intake_position: int | None = None,
) -> tuple[Contract, bool]:
    """Store an upload and queue its ingestion; returns (contract, created).

    The same bytes uploaded again into a matter link to the existing contract.
    Files over the size limit, or over the matter's storage quota, are refused before anything
    is stored.
    """
    if size > settings.UPLOAD_MAX_BYTES:
        raise UploadRejected(
            code=DocumentStatus.TOO_LARGE,
            message=f"The file is {_megabytes(size)}; the limit is "
            f"{_megabytes(settings.UPLOAD_MAX_BYTES)}.",
            params={
                "size": f"{size / 2**20:.1f}",
                "limit": f"{settings.UPLOAD_MAX_BYTES / 2**20:.1f}",
            },
        )
    sha256, head = _sha256_and_head(file)
    existing = Contract.objects.filter(matter=matter, sha256=sha256).first()
    if existing is not None:
        return existing, False
    matter_storage_check(matter=matter, incoming=size)
    contract = Contract(
        matter=matter,
        uploaded_by=uploaded_by,
        original_name=name[:255],
        sha256=sha256,
        size=size,
        kind=detect_kind(head),
        intake_batch=intake_batch,
        intake_position=intake_position,
        folder_path=folder_path[:500],
    )
    contract.file.save(name, File(file, name=name), save=False)
    try:
        with transaction.atomic():
            contract.save()
            audit_contract_upload(contract=contract)
            _publish_progress(contract)
            if enqueue:  # robust: once committed, nothing below may delete the stored file
                transaction.on_commit(lambda: _enqueue_ingest(contract.pk), robust=True)
    except IntegrityError:
        contract.file.delete(save=False)
        return Contract.objects.get(matter=matter, sha256=sha256), False
    except BaseException:
        contract.file.delete(save=False)
        raise
    return contract, True


def matter_storage_check(*, matter: Matter, incoming: int) -> None:
    """Raise UploadRejected (QUOTA_EXCEEDED) when ``incoming`` more bytes would take the
    matter's stored documents over ``MATTER_STORAGE_QUOTA_BYTES`` (0: no quota).

    Checked when a file or a zip arrives, not under a lock: two uploads at the same instant may
    pass together, so the quota bounds a matter's growth rather than counting its last byte.
    """
    quota = settings.MATTER_STORAGE_QUOTA_BYTES
    if not quota:
        return
    used = matter_storage_used(matter_id=matter.pk)
    if used + incoming > quota:
        params = {"used": f"{used / 2**20:.1f}", "limit": f"{quota / 2**20:.1f}"}
        code = FailureCode.QUOTA_EXCEEDED
        raise UploadRejected(code=code, message=ENTRY_MESSAGES[code] % params, params=params)


def _enqueue_ingest(contract_id: int) -> bool:
    """Queue the ingestion; with the broker down the contract stays QUEUED, its file kept, and
    the sweeper (reviews.sweeper) queues it later: the upload itself has succeeded."""
    try:
        task_named("reviewapp.contracts.tasks.ingest_contract").delay(contract_id)
    except Exception:  # kombu/redis connection errors, OSError: whatever the broker raises
        logger.warning("could not queue the ingestion of contract %s", contract_id, exc_info=True)
        return False
    return True


def contract_retry_with_password(*, contract: Contract, password: str) -> Contract:
    """Queue a password-protected PDF again; the password lives briefly in the cache only."""
    if contract.status != DocumentStatus.NEEDS_PASSWORD:
        raise UploadRejected(
            code="NOT_WAITING", message=gettext("This document is not waiting for a password.")
        )
    cache.set(_password_key(contract.pk), password, PASSWORD_CACHE_SECONDS)
    with transaction.atomic():
        Contract.objects.filter(pk=contract.pk).update(
            status=DocumentStatus.QUEUED, progress=0, error_code="", error_message=""
        )
        contract.refresh_from_db()
        _publish_progress(contract)
        transaction.on_commit(lambda: _enqueue_ingest(contract.pk))
    return contract


def _password_key(contract_id: int) -> str:
    return f"ingest-password:{contract_id}"


def contract_ingest(
    *,
    contract_id: int,
    password: str | None = None,
    engine: str | None = None,
    enqueue: bool = True,
) -> Contract | None:
    """Extract, segment and store the passages of a contract, exactly once, then scan them.

    Safe to run twice or concurrently: the passages are written in one transaction that
    first checks, under a row lock, that nobody finished before us; the scan is idempotent.
    """
    contract = _claim(contract_id)
    if contract is None:
        done = Contract.objects.filter(pk=contract_id).first()
        if done is not None and done.status == DocumentStatus.INGESTED:
            _scan(done, engine, enqueue)  # a run that died between storing and scanning
        return done
    password = password or cache.get(_password_key(contract_id))
    started = time.perf_counter()
    try:
        document = contract_extract(contract=contract, limits=_limits(), password=password)
    except ExtractionError as error:
        if error.problem == Problem.NO_TEXT_LAYER:
            return _read_scan(contract, ocr_page_count(error.detail), engine, enqueue)
        return _fail(contract, error.code, error.message)
    cache.delete(_password_key(contract_id))
    return _segment_and_store(contract, document, started, engine, enqueue)


def _segment_and_store(
    contract: Contract,
    document: ExtractedDocument,
    started: float,
    engine: str | None,
    enqueue: bool,
    from_ocr: bool = False,
) -> Contract:
    extracted = time.perf_counter()
    _set_progress(contract, 60)
    segments = segment(document.text, document.page_spans)
    segmented = time.perf_counter()
    timings = {
        "ocr" if from_ocr else "extract": round((extracted - started) * 1000, 1),
        "segment": round((segmented - extracted) * 1000, 1),
    }
    contract = _store(contract.pk, document, segments, timings, from_ocr=from_ocr)
    if contract.status == DocumentStatus.INGESTED:
        _scan(contract, engine, enqueue)
    return contract


# An INGESTING scan at this progress waits in the `ocr` queue (its OCR has not read a page yet).
OCR_QUEUED_PROGRESS = 15


def _read_scan(contract: Contract, pages: int, engine: str | None, enqueue: bool) -> Contract:
    """A PDF without a text layer goes to the OCR queue, or stays NEEDS_OCR saying how to
    enable OCR where this machine cannot run it."""
    missing = ocr_missing_message()
    if missing is not None:
        return _fail(contract, DocumentStatus.NEEDS_OCR, missing)
    Contract.objects.filter(pk=contract.pk).update(page_count=pages)
    _set_progress(contract, OCR_QUEUED_PROGRESS, stage="ocr", page=0, pages=pages)
    if not enqueue:
        return (
            contract_ingest_scan(contract_id=contract.pk, engine=engine, enqueue=False) or contract
        )
    ocr_contract_enqueue(contract.pk, pages)  # the progress above is committed: queue it now
    contract.refresh_from_db()  # run already when tasks are eager
    return contract


def ocr_contract_enqueue(contract_id: int, pages: int) -> bool:
    """Queue the OCR with time limits that grow with the scan's pages (ocr_settings.py)."""
    limit = ocr_time_limit_s(pages)
    try:
        task_named("reviewapp.contracts.tasks.ocr_contract").apply_async(
            (contract_id,), queue="ocr", time_limit=limit, soft_time_limit=int(limit * 0.9)
        )
    except Exception:  # the broker is down: the sweeper queues the ingestion again later
        logger.warning("could not queue the OCR of contract %s", contract_id, exc_info=True)
        return False
    return True


def contract_ingest_scan(
    *, contract_id: int, engine: str | None = None, enqueue: bool = True
) -> Contract | None:
    """Read a scanned PDF by OCR (the ``ocr`` queue's task), then store and scan it like any
    other; its passages are marked ``from_ocr``. Safe to run twice: only an INGESTING contract
    is read, and storing checks again under a row lock."""
    contract = Contract.objects.filter(pk=contract_id, status=DocumentStatus.INGESTING).first()
    if contract is None:
        return Contract.objects.filter(pk=contract_id).first()
    started = time.perf_counter()

    def on_page(done: int, pages: int) -> None:
        _set_progress(
            contract,
            OCR_QUEUED_PROGRESS + (45 * done) // max(pages, 1),
            stage="ocr",
            page=done,
            pages=pages,
        )

    try:
        document = ocr_read(contract.file.path, on_page=on_page)
    except ExtractionError as error:
        return _fail(contract, error.code, error.message)
    return _segment_and_store(contract, document, started, engine, enqueue, from_ocr=True)


def _scan(contract: Contract, engine: str | None, enqueue: bool) -> None:
    """Announce the stored contract; the reviews app scans it (reviews.services)."""
    contract_read.send(sender=Contract, contract=contract, engine=engine, enqueue=enqueue)
    contract.refresh_from_db()


def _claim(contract_id: int) -> Contract | None:
    with transaction.atomic():
        contract = Contract.objects.select_for_update().filter(pk=contract_id).first()
        if contract is None or contract.status not in (
            DocumentStatus.QUEUED,
            DocumentStatus.INGESTING,
        ):
            return None
        contract.status = DocumentStatus.INGESTING
        contract.progress = 10
        contract.ingest_attempts += 1
        contract.save(update_fields=["status", "progress", "ingest_attempts", "updated_at"])
        _publish_progress(contract)
    return contract


def _set_progress(contract: Contract, progress: int, **extra: Any) -> None:
    with transaction.atomic():
        Contract.objects.filter(pk=contract.pk, status=DocumentStatus.INGESTING).update(
            progress=progress, updated_at=timezone.now()
        )
        contract.progress = progress
        _publish_progress(contract, **extra)


def contract_ingest_failed(*, contract_id: int, code: str, message: str) -> Contract | None:
    """Give up on an ingestion (e.g. over the task's time limit) with a status and message."""
    contract = Contract.objects.filter(pk=contract_id).first()
    return _fail(contract, code, message) if contract is not None else None


def _fail(contract: Contract, code: str, message: str) -> Contract:
    with transaction.atomic():
        locked = Contract.objects.select_for_update().get(pk=contract.pk)
        if locked.status != DocumentStatus.INGESTING:
            return locked
        Passage.objects.filter(contract=locked).delete()
        locked.status = code
        locked.error_code = code
        locked.error_message = message
        locked.progress = 100
        locked.save(
            update_fields=["status", "error_code", "error_message", "progress", "updated_at"]
        )
        _publish_progress(locked)
    return locked


def _store(
    contract_id: int,
    document: ExtractedDocument,
    segments: list[Any],
    timings: dict[str, float],
    from_ocr: bool = False,
) -> Contract:
    with transaction.atomic():
        contract = Contract.objects.select_for_update().get(pk=contract_id)
        if contract.status != DocumentStatus.INGESTING:
            return contract  # someone else finished (or failed) it first
        Passage.objects.filter(contract=contract).delete()
        Passage.objects.bulk_create(
            Passage(
                contract=contract,
                index=seg.index,
                page=seg.page,
                start=seg.start,
                end=seg.end,
                number=seg.number[:64],
                heading=seg.heading[:300],
                is_heading=seg.is_heading,
                from_ocr=from_ocr,
                text=seg.text.replace("\x00", " "),  # normalised, as rules read it
            )
            for seg in segments
        )
        # PostgreSQL text cannot hold NUL; a space keeps every offset where it was.
        contract.text = document.text.replace("\x00", " ")
        contract.encoding = document.encoding or ""
        contract.kind = document.kind
        contract.page_count = document.page_count
        contract.ocr_pages = document.page_count if from_ocr else 0
        contract.page_spans = [list(span) for span in document.page_spans]
        contract.timings_ms = {**contract.timings_ms, **timings}
        contract.status = DocumentStatus.INGESTED
        contract.progress = 100
        contract.error_code = contract.error_message = ""
        contract.ingested_at = timezone.now()
        contract.save()
        _publish_progress(contract, passages=len(segments))
    return contract


def _publish_progress(contract: Contract, **extra: Any) -> None:
    event_publish(
        matter_id=contract.matter_id,
        type="document.progress",
        payload={
            "contract_id": contract.pk,
            "name": contract.original_name,
            "status": contract.status,
            "progress": contract.progress,
            "error": {"code": contract.error_code, "message": contract.error_message}
            if contract.error_code
            else None,
            **extra,
        },
    )
    if contract.intake_batch_id is not None and contract.status not in WORKING_STATUSES:
        intake_progress_publish(batch_id=contract.intake_batch_id)


# Waiting for a worker: queued or ingesting, or ingested but never scanned.
_UNFINISHED = Q(status__in=sorted(WORKING_STATUSES)) | Q(
    status=DocumentStatus.INGESTED, review__isnull=True
)


def contracts_requeue_stalled(
    *,
    older_than_s: int,
    max_attempts: int | None = None,
    waiting_too: bool = True,
    ocr_waiting_too: bool = True,
    limit: int = 500,
) -> list[int]:
    """Queue again documents that have not moved for a while (a worker died, the broker was
    down, the scan never ran); returns their ids. Safe to run twice or concurrently.

    ``waiting_too=False`` leaves documents that never started (queued, or ingested and waiting
    for their scan) alone: the caller knows their queue still holds messages, so they are
    waiting their turn; ``ocr_waiting_too=False`` does the same for scans waiting in the ``ocr``
    queue (an OCR takes minutes, so a data room of scans waits long in line). At most
    ``limit`` documents a call, so a sweep stays short. A document already tried
    ``max_attempts`` times ends PARSE_FAILED instead.
    """
    cutoff = timezone.now() - timedelta(seconds=older_than_s)
    stalled = Contract.objects.filter(_UNFINISHED, updated_at__lt=cutoff)
    if not waiting_too:
        stalled = stalled.filter(status=DocumentStatus.INGESTING)
    if not ocr_waiting_too:
        stalled = stalled.exclude(status=DocumentStatus.INGESTING, progress=OCR_QUEUED_PROGRESS)
    requeued = []
    rows = stalled.order_by("updated_at").values_list("pk", "status", "ingest_attempts")[:limit]
    for contract_id, status, attempts in rows:
        if max_attempts is not None and attempts >= max_attempts:
            _fail_stalled(contract_id, cutoff, attempts)
            continue
        # An ingestion counts its own attempts when it claims the contract; a scan does not.
        counted = {"ingest_attempts": F("ingest_attempts") + 1}
        claimed = Contract.objects.filter(_UNFINISHED, pk=contract_id, updated_at__lt=cutoff)
        now = timezone.now()
        if claimed.update(updated_at=now, **(counted if status == DocumentStatus.INGESTED else {})):
            _enqueue_ingest(contract_id)
            requeued.append(contract_id)
    return requeued


def _fail_stalled(contract_id: int, cutoff: Any, attempts: int) -> None:
    with transaction.atomic():
        locked = (
            Contract.objects.select_for_update(of=("self",))
            .filter(_UNFINISHED, pk=contract_id, updated_at__lt=cutoff)
            .first()
        )
        if locked is None:
            return  # it moved on (or another sweep ended it) meanwhile
        Passage.objects.filter(contract=locked).delete()
        locked.status = locked.error_code = DocumentStatus.PARSE_FAILED
        locked.error_message = f"This document could not be read after {attempts} attempts."
        locked.progress = 100
        locked.save(
            update_fields=["status", "error_code", "error_message", "progress", "updated_at"]
        )
        _publish_progress(locked)
    logger.warning("contract %s failed after %s attempts", contract_id, attempts)
