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
from typing import IO, Any

from django.conf import settings
from django.core.files.storage import default_storage
from django.db import transaction
from django.utils.translation import gettext_noop

from reviewapp.accounts.models import Matter
from reviewapp.contracts.intake.archive import ZipEntry, ZipLimits, ZipRefused, zip_entries
from reviewapp.contracts.intake.progress import DUPLICATE, intake_progress_publish
from reviewapp.contracts.models import Contract, IntakeBatch, IntakeStatus
from reviewapp.contracts.services import UploadRejected, contract_upload

logger = logging.getLogger(__name__)

MAX_MANIFEST = 10_000
ALREADY_HERE = gettext_noop("Already in this matter")
UNREADABLE = gettext_noop("This file could not be read from the zip (it is damaged or truncated).")
DID_NOT_FINISH = gettext_noop("Upload did not finish")
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
            raise ZipRefused("TOO_LARGE", ZIP_TOO_LARGE, params)
        entries = zip_entries(file, limits=_limits())
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
    from reviewapp.contracts.tasks import expand_intake_zip

    try:
        expand_intake_zip.delay(batch_id)
    except Exception:  # the broker is down: the zip is kept, the batch says it is receiving
        logger.warning("could not queue the unpacking of batch %s", batch_id, exc_info=True)


def intake_zip_expand(*, batch_id: int) -> IntakeBatch | None:
    """Unpack a stored zip into contracts, entry by entry. Safe to run twice: an entry already
    turned into a contract or a failure is skipped."""
    batch = IntakeBatch.objects.filter(pk=batch_id, status=IntakeStatus.RECEIVING).first()
    if batch is None or not default_storage.exists(_zip_name(batch)):
        return batch
    with default_storage.open(_zip_name(batch), "rb") as stream:
        entries = zip_entries(stream, limits=_limits())
        archive = zipfile.ZipFile(stream)
        seen = _entries_done(batch)
        for entry in entries:
            if (entry.folder, entry.name) not in seen:
                _expand_entry(batch, archive, entry)
    with transaction.atomic():
        IntakeBatch.objects.filter(pk=batch.pk).update(status=IntakeStatus.RECEIVED)
        intake_progress_publish(batch_id=batch.pk)
    default_storage.delete(_zip_name(batch))
    batch.refresh_from_db()
    return batch


def _entries_done(batch: IntakeBatch) -> set[tuple[str, str]]:
    done = set(batch.contracts.values_list("folder_path", "original_name"))
    return done | {(item.get("path", ""), item.get("name", "")) for item in batch.failures}


def _expand_entry(batch: IntakeBatch, archive: zipfile.ZipFile, entry: ZipEntry) -> None:
    if entry.problem:
        _fail_entry(batch, entry.name, entry.folder, entry.problem.upper()[:32], entry.problem)
        return
    if entry.info.file_size > settings.UPLOAD_MAX_BYTES:
        megabytes = settings.UPLOAD_MAX_BYTES / 2**20
        message = (
            f"The file is {entry.info.file_size / 2**20:.1f} MB; the limit is {megabytes:.1f} MB."
        )
        _fail_entry(batch, entry.name, entry.folder, "TOO_LARGE", message)
        return
    try:
        with tempfile.SpooledTemporaryFile(max_size=4 * 2**20) as spool:
            with archive.open(entry.info) as member:
                for chunk in iter(lambda: member.read(2**20), b""):
                    spool.write(chunk)
            size = spool.tell()
            spool.seek(0)
            intake_file_receive(
                batch=batch, file=spool, name=entry.name, size=size, folder_path=entry.folder
            )
    except (zipfile.BadZipFile, EOFError, NotImplementedError, RuntimeError, ValueError) as error:
        logger.info("entry %s of batch %s unreadable: %r", entry.info.filename, batch.pk, error)
        _fail_entry(batch, entry.name, entry.folder, "UNREADABLE", UNREADABLE)


def intake_file_receive(
    *,
    batch: IntakeBatch,
    file: IO[bytes],
    name: str,
    size: int,
    folder_path: str = "",
) -> tuple[Contract | None, bool]:
    """One file of a batch: a contract of the batch, or a listed failure; returns
    (contract, created). The file leaves the batch's list of those still expected."""
    folder_path = folder_path.strip("/")[:500]
    try:
        contract, created = contract_upload(
            matter=batch.matter,
            file=file,
            name=name,
            size=size,
            uploaded_by=batch.uploaded_by,
            intake_batch=batch,
            folder_path=folder_path,
        )
    except UploadRejected as rejected:
        _fail_entry(batch, name, folder_path, rejected.code, rejected.message)
        return None, False
    if not created:
        _fail_entry(batch, name, folder_path, DUPLICATE, ALREADY_HERE, contract_id=contract.pk)
    else:
        _arrived(batch, name, folder_path)
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
        if failure is not None:
            locked.failures = [*locked.failures, failure]
        if locked.source != "zip" and not expected and locked.status == IntakeStatus.RECEIVING:
            locked.status = IntakeStatus.RECEIVED
        locked.save(update_fields=["expected", "failures", "status", "updated_at"])
        intake_progress_publish(batch_id=locked.pk)


def _fail_entry(
    batch: IntakeBatch,
    name: str,
    path: str,
    code: str,
    message: str,
    contract_id: int | None = None,
) -> None:
    failure: dict[str, Any] = {"name": name[:255], "path": path, "code": code, "message": message}
    if contract_id is not None:
        failure["contract_id"] = contract_id
    _arrived(batch, name, path, failure)


def intake_batch_dismiss(*, batch: IntakeBatch) -> IntakeBatch:
    """Give up on files a browser announced and never sent: they are listed as not finished."""
    with transaction.atomic():
        locked = IntakeBatch.objects.select_for_update().get(pk=batch.pk)
        if locked.status == IntakeStatus.RECEIVING:
            unfinished = [
                {**item, "code": "UPLOAD_INCOMPLETE", "message": DID_NOT_FINISH}
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
