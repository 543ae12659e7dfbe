"""Signed checkpoints of every chain's head, kept outside the database.

A checkpoint is one JSON file per run in AUDIT_CHECKPOINT_DIR (never rewritten): for each chain
its key, seq and hash at that moment, signed with AUDIT_HMAC_KEY. Whoever owns the tables but
cannot write that directory cannot cut a chain short, drop it, or rewrite it up to a checkpoint
without `verify_audit` noticing, even with the key. A new checkpoint only moves a chain forward
from the previous one: a chain that no longer holds the previous checkpoint's hash keeps its old
entry (and the writer logs it), so a forged state is never signed over the old one.
"""

from __future__ import annotations

import hmac
import json
import logging
import os
import secrets
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from hashlib import sha256
from pathlib import Path
from typing import Any

from django.conf import settings
from django.utils import timezone

from reviewapp.audit.chain import BreakKind, ChainBreak, audit_key, utc_iso
from reviewapp.audit.models import SYSTEM_CHAIN, AuditAction, AuditActorKind, AuditChain
from reviewapp.audit.selectors import audit_events_of_chain
from reviewapp.audit.services import audit_record

logger = logging.getLogger(__name__)

CHECKPOINT_FORMAT = "clausewise.audit.checkpoint/1"
_encode = json.JSONEncoder(sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode


class CheckpointInvalid(ValueError):
    """A checkpoint file that is unreadable, malformed or whose signature does not match."""


@dataclass(frozen=True)
class ChainMark:
    chain: str
    seq: int
    hash: str
    hash_kind: str

    @property
    def organisation_id(self) -> int | None:
        return None if self.chain == SYSTEM_CHAIN else int(self.chain.removeprefix("org:"))


@dataclass(frozen=True)
class Checkpoint:
    name: str
    written_at: str
    marks: dict[str, ChainMark]


@dataclass(frozen=True)
class CheckpointFinding:
    """The newest checkpoint whose signature holds, and the newer files that failed."""

    latest: Checkpoint | None
    rejected: list[str]


def checkpoint_signature(body: Mapping[str, Any], *, key: bytes) -> str:
    """HMAC-SHA256 of the body's canonical JSON (sorted keys, no spaces), "signature" left out."""
    unsigned = {name: value for name, value in body.items() if name != "signature"}
    return hmac.new(key, _encode(unsigned).encode(), sha256).hexdigest()


def checkpoint_directory() -> Path:
    return Path(settings.AUDIT_CHECKPOINT_DIR)


def audit_checkpoint_read(path: Path, *, key: bytes | None = None) -> Checkpoint:
    try:
        body = json.loads(path.read_text(encoding="utf-8"))
        marks = {mark["chain"]: ChainMark(**mark) for mark in body["chains"]}
        signed = hmac.compare_digest(
            str(body["signature"]), checkpoint_signature(body, key=key or audit_key())
        )
        well_formed = body["format"] == CHECKPOINT_FORMAT and all(
            isinstance(m.seq, int) and isinstance(m.hash, str) for m in marks.values()
        )
    except (OSError, ValueError, KeyError, TypeError) as error:
        raise CheckpointInvalid(f"unreadable ({type(error).__name__})") from error
    if not signed:
        raise CheckpointInvalid("its signature does not match (forged or altered)")
    if not well_formed:
        raise CheckpointInvalid("not a checkpoint of this format")
    return Checkpoint(path.name, str(body["written_at"]), marks)


def audit_checkpoint_latest(
    *, directory: Path | None = None, key: bytes | None = None
) -> CheckpointFinding:
    """Files are named by UTC time: read from the newest until one's signature holds."""
    folder = directory or checkpoint_directory()
    rejected: list[str] = []
    for path in sorted(folder.glob("checkpoint-*.json"), reverse=True):
        try:
            return CheckpointFinding(audit_checkpoint_read(path, key=key), rejected)
        except CheckpointInvalid as invalid:
            rejected.append(f"{path.name}: {invalid}")
    return CheckpointFinding(None, rejected)


def audit_checkpoint_write(*, directory: Path | None = None) -> Path:
    """Write a new signed checkpoint of every chain head and record it on the system chain."""
    folder = directory or checkpoint_directory()
    key = audit_key()
    previous = audit_checkpoint_latest(directory=folder, key=key).latest
    marks, kept = _marks_from(previous)
    written_at = timezone.now()
    body: dict[str, Any] = {
        "format": CHECKPOINT_FORMAT,
        "written_at": utc_iso(written_at),
        "chains": [asdict(mark) for _, mark in sorted(marks.items())],
    }
    body["signature"] = checkpoint_signature(body, key=key)
    path = _write_new(folder, f"checkpoint-{written_at:%Y%m%dT%H%M%S%fZ}", body)
    audit_record(
        organisation_id=None,
        action=AuditAction.AUDIT_CHECKPOINT,
        actor_kind=AuditActorKind.SYSTEM,
        actor="audit_checkpoint",
        target_type="checkpoint",
        target_id=path.name,
        data={"chains": len(marks), "signature": body["signature"], "kept": kept},
    )
    return path


def _marks_from(previous: Checkpoint | None) -> tuple[dict[str, ChainMark], list[str]]:
    """Each chain's head now, unless the chain no longer extends the previous checkpoint."""
    earlier = dict(previous.marks) if previous else {}
    marks: dict[str, ChainMark] = {}
    for key, organisation_id, seq, digest in AuditChain.objects.values_list(
        "key", "organisation_id", "last_seq", "last_hash"
    ):
        events = audit_events_of_chain(organisation_id=organisation_id)
        before = earlier.pop(key, None)
        if before is not None and not _extends(events, before, seq):
            earlier[key] = before
            continue
        if seq:
            kind = events.filter(seq=seq).values_list("hash_kind", flat=True).first() or ""
            marks[key] = ChainMark(key, seq, digest, kind)
    for key in earlier:
        logger.error("audit chain %s no longer extends its last checkpoint: entry kept", key)
    return {**marks, **earlier}, sorted(earlier)


def _extends(events: Any, before: ChainMark, seq: int) -> bool:
    held = events.filter(seq=before.seq).values_list("hash", flat=True).first()
    return seq >= before.seq and held == before.hash


def _write_new(folder: Path, stem: str, body: Mapping[str, Any]) -> Path:
    """Create a file that did not exist ("x"), flush it to disk, and make it read-only."""
    folder.mkdir(parents=True, exist_ok=True, mode=0o700)
    path = folder / f"{stem}-{secrets.token_hex(4)}.json"
    with path.open("x", encoding="utf-8") as out:
        out.write(json.dumps(body, sort_keys=True, ensure_ascii=False, indent=1) + "\n")
        out.flush()
        os.fsync(out.fileno())
    path.chmod(0o444)
    return path


def audit_checkpoint_check(
    *, mark: ChainMark, checkpoint: Checkpoint, events: int
) -> ChainBreak | None:
    """An intact chain of `events` rows against its checkpoint entry."""
    when = f"checkpoint {checkpoint.name} ({checkpoint.written_at})"
    if events == 0:
        return ChainBreak(
            BreakKind.CHECKPOINT, None, None, f"missing: {when} records {mark.seq} events"
        )
    if events < mark.seq:
        return ChainBreak(
            BreakKind.TRUNCATED,
            events + 1,
            None,
            f"seq {events + 1}-{mark.seq} removed: {when} records {mark.seq} events, "
            f"the chain holds {events}",
        )
    chain = audit_events_of_chain(organisation_id=mark.organisation_id)
    row = chain.filter(seq=mark.seq).values_list("id", "hash").first()
    if row is None or row[1] != mark.hash:
        return ChainBreak(
            BreakKind.CHECKPOINT,
            mark.seq,
            row[0] if row else None,
            f"rewritten: its hash is not the one {when} signed",
        )
    return None
