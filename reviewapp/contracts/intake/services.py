"""Bulk intake: a zip, a dropped folder or several files become contracts of one batch.

A zip is checked on its central directory while the request waits (so a refusal is an answer,
not a status to poll), stored, and unpacked by a task, one entry at a time: one bad entry is a
listed failure and never stops the rest. A folder or a set of files is announced by the browser
first (the manifest), then sent file by file, so that a page left mid-upload leaves a batch that
says which files never arrived.
"""

from __future__ import annotations

import logging
import tempfile
import zipfile
from collections.abc import Mapping
from dataclasses import dataclass
from typing import IO, Any

from django.conf import settings
from django.core.files.storage import default_storage
from django.db import transaction
from django.utils.translation import gettext_noop

from reviewapp.accounts.models import Matter
from reviewapp.contracts.intake.archive import ZipEntry, ZipLimits, ZipRefused, zip_entries
from reviewapp.contracts.intake.codes import ENTRY_MESSAGES, FailureCode
from reviewapp.contracts.intake.progress import intake_progress_publish
from reviewapp.contracts.models import Contract, IntakeBatch, IntakeStatus
from reviewapp.contracts.services import (
    UploadRejected,
    contract_upload,
    matter_storage_check,
)
from reviewapp.tasks_by_name import task_named

logger = logging.getLogger(__name__)

MAX_MANIFEST = 10_000
ZIP_TOO_LARGE = gettext_noop("The zip is %(size)s MB; the limit is %(limit)s MB.")


def model_batch_available() -> bool:
    """Batch model review needs the Claude engine."""
    return settings.REVIEW_ENGINE == "anthropic"


def _limits() -> ZipLimits:
    return ZipLimits(
        max_entries=settings.INTAKE_MAX_ENTRIES,
        max_uncompressed_bytes=settings.INTAKE_MAX_UNCOMPRESSED_BYTES,
        max_ratio=settings.INTAKE_MAX_RATIO,
    )


def intake_batch_announce(
    *,
    matter: Matter,
    uploaded_by: Any,
    name: str,
    source: str,
    entries: list[dict[str, str]],
    use_model_batch: bool = False,
) -> IntakeBatch:
    """A batch whose files (``[{"name", "path"}]``, or one zip) the browser is about to send."""
    expected = [
        {"name": str(item.get("name", ""))[:255], "path": str(item.get("path", ""))[:500]}
        for item in entries[:MAX_MANIFEST]
    ]
    with transaction.atomic():
        batch = IntakeBatch.objects.create(
            matter=matter,
            uploaded_by=uploaded_by,
            name=name[:255] or "upload",
            source=source if source in ("zip", "folder", "files") else "files",
            total=0 if source == "zip" else len(expected),
            expected=[] if source == "zip" else expected,
            use_model_batch=use_model_batch and model_batch_available(),
        )
        intake_progress_publish(batch_id=batch.pk)
    return batch


def intake_zip_receive(
    *,
    matter: Matter,
    file: IO[bytes],
    name: str,
    size: int,
    uploaded_by: Any,
    use_model_batch: bool = False,
    batch: IntakeBatch | None = None,
) -> IntakeBatch:
    """Check a zip, store it and queue its unpacking; raises ZipRefused (the batch says so)."""
    if batch is None:
        batch = intake_batch_announce(
            matter=matter,
            uploaded_by=uploaded_by,
            name=name,
            source="zip",
            entries=[],
            use_model_batch=use_model_batch,
        )
    try:
        if size > settings.INTAKE_MAX_ZIP_BYTES:
            params = {"size": size // 2**20, "limit": settings.INTAKE_MAX_ZIP_BYTES // 2**20}
            raise ZipRefused(FailureCode.TOO_LARGE, ZIP_TOO_LARGE, params)
        entries = zip_entries(file, limits=_limits())
        _check_quota(matter, entries)
    except ZipRefused as refused:
        _refuse(batch, refused)
        raise
    file.seek(0)
    name_on_disk = _zip_name(batch)
    if default_storage.exists(name_on_disk):  # left by a database that was reset: not ours
        default_storage.delete(name_on_disk)
    stored = default_storage.save(name_on_disk, file)
    if stored != name_on_disk:
        default_storage.delete(stored)
        raise OSError(f"could not store the zip of batch {batch.pk} as {name_on_disk}")
    with transaction.atomic():
        IntakeBatch.objects.filter(pk=batch.pk).update(
            total=len(entries), source="zip", expected=[], name=name[:255] or batch.name
        )
        intake_progress_publish(batch_id=batch.pk)
        transaction.on_commit(lambda: _enqueue_expand(batch.pk), robust=True)
    logger.info("zip %s stored for batch %s: %s entries", stored, batch.pk, len(entries))
    batch.refresh_from_db()
    return batch


def _check_quota(matter: Matter, entries: list[ZipEntry]) -> None:
    incoming = sum(entry.info.file_size for entry in entries if entry.problem is None)
    try:
        matter_storage_check(matter=matter, incoming=incoming)
    except UploadRejected as rejected:
        raise ZipRefused(
            FailureCode.QUOTA_EXCEEDED, ENTRY_MESSAGES[FailureCode.QUOTA_EXCEEDED], rejected.params
        ) from None


def _zip_name(batch: IntakeBatch) -> str:
    # The creation time makes the name the batch's own, even where ids start again (a test
    # database, a restored backup), so a task never unpacks another batch's zip.
    return f"intake/{batch.matter_id}/batch-{batch.pk}-{batch.created_at:%Y%m%d%H%M%S%f}.zip"


def _refuse(batch: IntakeBatch, refused: ZipRefused) -> None:
    # The reason is kept as a catalogue id with its values, so each reader sees it translated.
    failure = {"name": batch.name, "path": "", "code": refused.code, "message": refused.message}
    with transaction.atomic():
        IntakeBatch.objects.filter(pk=batch.pk).update(
            status=IntakeStatus.REFUSED,
            error_code=refused.code,
            error_message=refused.text(),
            failures=[{**failure, "params": refused.params}],
        )
        intake_progress_publish(batch_id=batch.pk)
    batch.refresh_from_db()


def _enqueue_expand(batch_id: int) -> None:
    try:
        task_named("reviewapp.contracts.tasks.expand_intake_zip").delay(batch_id)
    except Exception:  # the broker is down: the zip is kept, the batch says it is receiving
        logger.warning("could not queue the unpacking of batch %s", batch_id, exc_info=True)


def intake_zip_expand(*, batch_id: int) -> IntakeBatch | None:
    """Unpack a stored zip into contracts, entry by entry. Safe to run twice: an entry (by its
    position in the zip) already turned into a contract or a failure is skipped."""
    batch = IntakeBatch.objects.filter(pk=batch_id, status=IntakeStatus.RECEIVING).first()
    if batch is None or not default_storage.exists(_zip_name(batch)):
        return batch
    with default_storage.open(_zip_name(batch), "rb") as stream:
        entries = zip_entries(stream, limits=_limits())
        archive = zipfile.ZipFile(stream)
        done = _positions_done(batch)
        for entry in entries:
            if entry.position not in done:
                _expand_entry(batch, archive, entry)
    with transaction.atomic():
        IntakeBatch.objects.filter(pk=batch.pk).update(status=IntakeStatus.RECEIVED)
        intake_progress_publish(batch_id=batch.pk)
    default_storage.delete(_zip_name(batch))
    batch.refresh_from_db()
    return batch


def _positions_done(batch: IntakeBatch) -> set[int]:
    positions = batch.contracts.values_list("intake_position", flat=True)
    done = {position for position in positions if position is not None}
    return done | {item["position"] for item in batch.failures if "position" in item}


def _expand_entry(batch: IntakeBatch, archive: zipfile.ZipFile, entry: ZipEntry) -> None:
    where = _Where(entry.name, entry.folder, entry.position)
    if entry.problem is not None:
        _fail_entry(batch, where, code=entry.problem)
        return
    if entry.info.file_size > settings.UPLOAD_MAX_BYTES:
        _fail_entry(batch, where, code=FailureCode.TOO_LARGE, params=_sizes(entry.info.file_size))
        return
    try:
        with tempfile.SpooledTemporaryFile(max_size=4 * 2**20) as spool:
            with archive.open(entry.info) as member:
                for chunk in iter(lambda: member.read(2**20), b""):
                    spool.write(chunk)
            size = spool.tell()
            spool.seek(0)
            intake_file_receive(
                batch=batch,
                file=spool,
                name=entry.name,
                size=size,
                folder_path=entry.folder,
                position=entry.position,
            )
    except (zipfile.BadZipFile, EOFError, NotImplementedError, RuntimeError, ValueError) as error:
        logger.info("entry %s of batch %s unreadable: %r", entry.info.filename, batch.pk, error)
        _fail_entry(batch, where, code=FailureCode.UNREADABLE)


def _sizes(size: int) -> dict[str, str]:
    return {"size": f"{size / 2**20:.1f}", "limit": f"{settings.UPLOAD_MAX_BYTES / 2**20:.1f}"}


def intake_file_receive(
    *,
    batch: IntakeBatch,
    file: IO[bytes],
    name: str,
    size: int,
    folder_path: str = "",
    position: int | None = None,
) -> tuple[Contract | None, bool]:
    """One file of a batch (``position``: its place in the batch's zip): a contract of the
    batch, or a listed failure; returns (contract, created). The file leaves the batch's list of
    those still expected."""
    folder_path = folder_path.strip("/")[:500]
    where = _Where(name, folder_path, position)
    if not name.strip(" ."):
        _fail_entry(batch, where, code=FailureCode.EMPTY_NAME)
        return None, False
    try:
        contract, created = contract_upload(
            matter=batch.matter,
            file=file,
            name=name,
            size=size,
            uploaded_by=batch.uploaded_by,
            intake_batch=batch,
            folder_path=folder_path,
            intake_position=position,
        )
    except UploadRejected as rejected:
        _fail_entry(batch, where, code=FailureCode(rejected.code), params=rejected.params)
        return None, False
    ours = contract.intake_batch_id == batch.pk and contract.intake_position == position
    if created or (ours and position is not None):  # a run that raced another over this entry
        _arrived(batch, name, folder_path)
    else:
        _fail_entry(batch, where, code=FailureCode.DUPLICATE, contract_id=contract.pk)
    return contract, created


def _arrived(
    batch: IntakeBatch, name: str, path: str, failure: dict[str, Any] | None = None
) -> None:
    with transaction.atomic():
        locked = IntakeBatch.objects.select_for_update().get(pk=batch.pk)
        expected = list(locked.expected)
        for index, item in enumerate(expected):
            if item.get("name") == name and item.get("path", "").strip("/") == path:
                del expected[index]
                break
        locked.expected = expected
        if failure is not None and not _listed(locked, failure):
            locked.failures = [*locked.failures, failure]
        if locked.source != "zip" and not expected and locked.status == IntakeStatus.RECEIVING:
            locked.status = IntakeStatus.RECEIVED
        locked.save(update_fields=["expected", "failures", "status", "updated_at"])
        intake_progress_publish(batch_id=locked.pk)


def _listed(batch: IntakeBatch, failure: dict[str, Any]) -> bool:
    position = failure.get("position")
    return position is not None and any(item.get("position") == position for item in batch.failures)


@dataclass(frozen=True)
class _Where:
    """A file of a batch: its name, its folder, and its place in the batch's zip."""

    name: str
    path: str
    position: int | None = None


def _fail_entry(
    batch: IntakeBatch,
    where: _Where,
    *,
    code: FailureCode,
    params: Mapping[str, object] | None = None,
    contract_id: int | None = None,
) -> None:
    """List a file the batch did not take, with its reason kept as a catalogue id (and its
    values), so that each reader sees it in their language."""
    message = ENTRY_MESSAGES.get(code, str(code.label))
    failure: dict[str, Any] = {"name": where.name[:255], "path": where.path}
    failure.update(code=code.value, message=message)
    if params:
        failure["params"] = dict(params)
    if where.position is not None:
        failure["position"] = where.position
    if contract_id is not None:
        failure["contract_id"] = contract_id
    _arrived(batch, where.name, where.path, failure)


def intake_batch_dismiss(*, batch: IntakeBatch) -> IntakeBatch:
    """Give up on files a browser announced and never sent: they are listed as not finished."""
    with transaction.atomic():
        locked = IntakeBatch.objects.select_for_update().get(pk=batch.pk)
        if locked.status == IntakeStatus.RECEIVING:
            unfinished = [
                {
                    **item,
                    "code": FailureCode.UPLOAD_INCOMPLETE.value,
                    "message": ENTRY_MESSAGES[FailureCode.UPLOAD_INCOMPLETE],
                }
                for item in locked.expected
            ]
            locked.failures = [*locked.failures, *unfinished]
            locked.expected = []
            locked.status = IntakeStatus.RECEIVED
            locked.save(update_fields=["failures", "expected", "status", "updated_at"])
            intake_progress_publish(batch_id=locked.pk)
    if default_storage.exists(_zip_name(locked)):
        default_storage.delete(_zip_name(locked))
    return locked
