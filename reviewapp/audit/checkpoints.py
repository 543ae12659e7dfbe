"""Signed checkpoints of every chain's head, kept outside the database.

A checkpoint is one JSON file per run in AUDIT_CHECKPOINT_DIR (never rewritten): for each chain
its head at that moment (key, seq, hash, the row's id and time), the hash kind the app writes and
the key's fingerprint (never the key), signed with AUDIT_HMAC_KEY. Whoever owns the tables but
cannot write that directory cannot cut a chain short, drop it, or rewrite it up to a checkpoint
without `verify_audit` noticing, even with the key; nor rewrite a chain as unkeyed v1 hashes
after it, since a checkpoint records that the app writes keyed ones. A new checkpoint only moves
a chain forward from the previous one: a chain that no longer holds the previous checkpoint's
hash keeps its old entry (and the writer logs it), so a forged state is never signed over the
old one.

The first checkpoint is written by the first `migrate` (even of an empty log), then beat writes
one every AUDIT_CHECKPOINT_EVERY_S when a chain moved. What stays open: events written after the
newest checkpoint can be cut off the end, with the chain head moved back, unseen.
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
from django.db.models import QuerySet
from django.utils import timezone

from reviewapp.audit.chain import (
    CURRENT_HASH_KIND,
    BreakKind,
    ChainBreak,
    audit_key,
    audit_key_fingerprint,
    utc_iso,
)
from reviewapp.audit.models import (
    SYSTEM_CHAIN,
    AuditAction,
    AuditActorKind,
    AuditChain,
    AuditEvent,
    HashKind,
)
from reviewapp.audit.selectors import audit_events_of_chain
from reviewapp.audit.services import audit_record, chain_key

logger = logging.getLogger(__name__)

CHECKPOINT_FORMAT = "clausewise.audit.checkpoint/2"
# /1 files lack the head row's id and time and the hash kind: they were all written by an app
# that wrote keyed hashes (both came in one change), and their signature proves the key.
_READABLE_FORMATS = ("clausewise.audit.checkpoint/1", CHECKPOINT_FORMAT)
_encode = json.JSONEncoder(sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode


class CheckpointInvalid(ValueError):
    """A checkpoint file that is unreadable, malformed or whose signature does not match."""


@dataclass(frozen=True)
class ChainMark:
    chain: str
    seq: int
    hash: str
    hash_kind: str
    event_id: int | None = None
    created_at: str | None = None

    @property
    def organisation_id(self) -> int | None:
        return None if self.chain == SYSTEM_CHAIN else int(self.chain.removeprefix("org:"))


@dataclass(frozen=True)
class Checkpoint:
    name: str
    written_at: str
    marks: dict[str, ChainMark]
    hash_kind: str = HashKind.HMAC_SHA256.value  # the kind of hash the app wrote then
    key_fingerprint: str | None = None

    @property
    def label(self) -> str:
        return f"checkpoint {self.name} ({self.written_at})"

    def covered_seq(self, organisation_id: int | None) -> int:
        """The seq up to which the chain is pinned (0: the chain had no event then)."""
        mark = self.marks.get(chain_key(organisation_id))
        return mark.seq if mark else 0


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
        well_formed = body["format"] in _READABLE_FORMATS and all(
            isinstance(m.seq, int) and isinstance(m.hash, str) for m in marks.values()
        )
        hash_kind = str(body.get("hash_kind", HashKind.HMAC_SHA256))
        fingerprint = body.get("key_fingerprint")
    except (OSError, ValueError, KeyError, TypeError) as error:
        raise CheckpointInvalid(f"unreadable ({type(error).__name__})") from error
    if not signed:
        raise CheckpointInvalid("its signature does not match (forged or altered)")
    if not well_formed:
        raise CheckpointInvalid("not a checkpoint of this format")
    return Checkpoint(
        path.name,
        str(body["written_at"]),
        marks,
        hash_kind,
        None if fingerprint is None else str(fingerprint),
    )


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


def audit_checkpoint_write(*, directory: Path | None = None, record: bool = True) -> Path:
    """Write a new signed checkpoint of every chain head and (`record`) note it on the system
    chain."""
    folder = directory or checkpoint_directory()
    key = audit_key()
    previous = audit_checkpoint_latest(directory=folder, key=key).latest
    marks, kept = _marks_from(previous)
    written_at = timezone.now()
    body: dict[str, Any] = {
        "format": CHECKPOINT_FORMAT,
        "written_at": utc_iso(written_at),
        "hash_kind": CURRENT_HASH_KIND,
        "key_fingerprint": audit_key_fingerprint(key),
        "events": sum(mark.seq for mark in marks.values()),  # 0: "no events yet"
        "chains": [asdict(mark) for _, mark in sorted(marks.items())],
    }
    body["signature"] = checkpoint_signature(body, key=key)
    path = _write_new(folder, f"checkpoint-{written_at:%Y%m%dT%H%M%S%fZ}", body)
    if not record:
        return path
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


def audit_checkpoint_first(*, directory: Path | None = None) -> Path | None:
    """The first checkpoint, when the folder holds none yet (the first `migrate` writes it).

    On a new database it records no chain ("no events yet") and that the app writes keyed
    hashes, so a log rewritten later as plain SHA-256 is refused. It is not noted as an event:
    that would make "no events yet" false the moment it is written.
    """
    folder = directory or checkpoint_directory()
    if any(folder.glob("checkpoint-*.json")):
        return None
    return audit_checkpoint_write(directory=folder, record=False)


def audit_checkpoint_refresh(*, directory: Path | None = None) -> Path | None:
    """Beat's checkpoint: a new one only when a chain moved since the newest, apart from that
    checkpoint's own note on the system chain; an idle log gains no file and no event."""
    folder = directory or checkpoint_directory()
    previous = audit_checkpoint_latest(directory=folder).latest
    if previous is not None and not _moved_since(previous):
        return None
    return audit_checkpoint_write(directory=folder)


def _moved_since(checkpoint: Checkpoint) -> bool:
    for organisation_id, seq in AuditChain.objects.values_list("organisation_id", "last_seq"):
        done = checkpoint.covered_seq(organisation_id)
        if seq > done + 1 or (seq == done + 1 and not _notes(checkpoint, organisation_id, seq)):
            return True
    return False


def _notes(checkpoint: Checkpoint, organisation_id: int | None, seq: int) -> bool:
    """Whether the event at `seq` is the system chain's note that `checkpoint` was written."""
    return (
        organisation_id is None
        and audit_events_of_chain(organisation_id=None)
        .filter(seq=seq, action=AuditAction.AUDIT_CHECKPOINT, target_id=checkpoint.name)
        .exists()
    )


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
            marks[key] = _head_mark(events, key, seq, digest)
    for key in earlier:
        logger.error("audit chain %s no longer extends its last checkpoint: entry kept", key)
    return {**marks, **earlier}, sorted(earlier)


def _head_mark(events: Any, key: str, seq: int, digest: str) -> ChainMark:
    row = events.filter(seq=seq).values_list("id", "hash_kind", "created_at").first()
    if row is None:  # a head without its row: verify_audit reports the chain; pin the head
        return ChainMark(key, seq, digest, "")
    return ChainMark(key, seq, digest, row[1], row[0], utc_iso(row[2]))


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
    *, organisation_id: int | None, checkpoint: Checkpoint, events: int
) -> ChainBreak | None:
    """An intact chain of `events` rows against the checkpoint: it reaches the head the
    checkpoint recorded with the same hash there (which pins that row's time), and holds no
    unkeyed row after it once the checkpoint records that the app writes keyed hashes."""
    chain = audit_events_of_chain(organisation_id=organisation_id)
    mark = checkpoint.marks.get(chain_key(organisation_id))
    if mark is not None:
        problem = _against_head(chain, mark=mark, checkpoint=checkpoint, events=events)
        if problem is not None:
            return problem
    return _unkeyed_after(chain, checkpoint=checkpoint, seq=mark.seq if mark else 0)


def _against_head(
    chain: QuerySet[AuditEvent], *, mark: ChainMark, checkpoint: Checkpoint, events: int
) -> ChainBreak | None:
    when = checkpoint.label
    if events == 0:
        return ChainBreak(
            BreakKind.CHECKPOINT, None, None, f"missing: {when} records {mark.seq} events"
        )
    if events < mark.seq:
        head = f"seq {mark.seq}"
        if mark.created_at is not None:
            head += f" (id {mark.event_id}, written {mark.created_at})"
        return ChainBreak(
            BreakKind.TRUNCATED,
            events + 1,
            None,
            f"seq {events + 1}-{mark.seq} removed: {when} records {mark.seq} events, "
            f"the chain holds {events}: its newest event is older than the head {head} "
            "the checkpoint signed (the tail was cut)",
        )
    row = chain.filter(seq=mark.seq).values_list("id", "hash").first()
    if row is None or row[1] != mark.hash:
        return ChainBreak(
            BreakKind.CHECKPOINT,
            mark.seq,
            row[0] if row else None,
            f"rewritten: its hash is not the one {when} signed",
        )
    return None


def _unkeyed_after(
    chain: QuerySet[AuditEvent], *, checkpoint: Checkpoint, seq: int
) -> ChainBreak | None:
    if checkpoint.hash_kind != HashKind.HMAC_SHA256:
        return None
    row = (
        chain.filter(seq__gt=seq, hash_kind=HashKind.SHA256)
        .order_by("seq")
        .values_list("seq", "id")
        .first()
    )
    if row is None:
        return None
    key = f" (key {checkpoint.key_fingerprint})" if checkpoint.key_fingerprint else ""
    return ChainBreak(
        BreakKind.UNKEYED,
        row[0],
        row[1],
        f"unkeyed: a plain SHA-256 (v1) row after {checkpoint.label}, which records that the "
        f"app writes keyed hashes{key}: no v1 row is written since, the chain was rewritten "
        "without the key",
    )
