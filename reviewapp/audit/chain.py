"""The hash chain: canonical content of an event, its hash, and the walk that checks a chain.

No database access here: writers and the verifier feed rows in, so both hash the same bytes.
An event's hash is the HMAC-SHA256 of its canonical JSON keyed with AUDIT_HMAC_KEY ("v2"),
which is not in the database: whoever owns the tables cannot recompute it. Events written
before keyed hashes keep their plain SHA-256 ("v1"); a chain never goes back from v2 to v1.
"""

from __future__ import annotations

import hmac
import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from hashlib import sha256
from typing import Any

from django.conf import settings
from django.core.exceptions import ImproperlyConfigured

from reviewapp.audit.models import GENESIS_HASH, HashKind

_encode = json.JSONEncoder(
    sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False
).encode
_string = json.encoder.encode_basestring  # the escaping JSONEncoder(ensure_ascii=False) uses
ZERO = timedelta(0)

# The columns the verifier reads, in this order (see `walk_chain`).
ROW_FIELDS = (
    "id",
    "seq",
    "created_at",
    "action",
    "actor_kind",
    "actor",
    "target_type",
    "target_id",
    "data",
    "prev_hash",
    "hash",
    "hash_kind",
)
CURRENT_HASH_KIND = HashKind.HMAC_SHA256.value


def audit_key() -> bytes:
    """AUDIT_HMAC_KEY: keys the event hashes and signs the checkpoints."""
    key = getattr(settings, "AUDIT_HMAC_KEY", "")
    if not key:
        raise ImproperlyConfigured("AUDIT_HMAC_KEY must be set to write or verify the audit log")
    return key.encode()


def audit_key_fingerprint(key: bytes) -> str:
    """Names the key in checkpoints without giving it away: an HMAC of a fixed label."""
    return hmac.new(key, b"clausewise.audit.key-fingerprint", sha256).hexdigest()[:16]


class _Hasher:
    """Hash canonical content by kind; the keyed state is built once and copied per row."""

    def __init__(self, key: bytes | None = None) -> None:
        self._key = key
        self._keyed: Any = None

    def __call__(self, hash_kind: str, content: str) -> str | None:
        if hash_kind == HashKind.HMAC_SHA256:
            if self._keyed is None:
                key = self._key if self._key is not None else audit_key()
                self._keyed = hmac.new(key, digestmod=sha256)
            keyed = self._keyed.copy()
            keyed.update(content.encode())
            return keyed.hexdigest()
        if hash_kind == HashKind.SHA256:
            return sha256(content.encode()).hexdigest()
        return None


def utc_iso(moment: datetime) -> str:
    """ISO 8601 in UTC with microseconds: 2025-01-31T09:30:00.000000+00:00."""
    if moment.utcoffset() != ZERO:
        moment = moment.astimezone(UTC)
    return moment.isoformat(timespec="microseconds")


def event_hash(
    *,
    organisation_id: int | None,
    seq: int,
    prev_hash: str,
    created_at: datetime,
    action: str,
    actor_kind: str,
    actor: str,
    target_type: str,
    target_id: str,
    data: Mapping[str, Any],
    hash_kind: str = CURRENT_HASH_KIND,
    key: bytes | None = None,
) -> str:
    """The hash of the canonical JSON (sorted keys, fixed separators, UTC time) of an event:
    HMAC-SHA256 keyed with `key` (default AUDIT_HMAC_KEY) for v2, plain SHA-256 for v1."""
    digest = _Hasher(key)(
        hash_kind,
        _content(
            organisation_id,
            seq,
            prev_hash,
            created_at,
            action,
            actor_kind,
            actor,
            target_type,
            target_id,
            data,
        ),
    )
    if digest is None:
        raise ValueError(f"unknown audit hash kind {hash_kind!r}")
    return digest


def _content(
    organisation_id: int | None,
    seq: int,
    prev_hash: str,
    created_at: datetime | str,
    action: str,
    actor_kind: str,
    actor: str,
    target_type: str,
    target_id: str,
    data: Mapping[str, Any] | str,
) -> str:
    """canonical_content(...), built by hand: the verifier calls this per row.

    `created_at` may come already formatted by `utc_iso` (the database can do it faster),
    and `data` as JSON text (it is parsed, then written canonically).
    """
    when = created_at if isinstance(created_at, str) else utc_iso(created_at)
    payload = _encode(json.loads(data) if isinstance(data, str) else data)
    org = "null" if organisation_id is None else str(int(organisation_id))
    content = (
        f'{{"action":{_string(action)},"actor":{_string(actor)},'
        f'"actor_kind":{_string(actor_kind)},"created_at":{_string(when)},"data":{payload},'
        f'"org":{org},"prev_hash":{_string(prev_hash)},"seq":{int(seq)},'
        f'"target_id":{_string(target_id)},"target_type":{_string(target_type)}}}'
    )
    return content


def canonical_content(
    *,
    organisation_id: int | None,
    seq: int,
    prev_hash: str,
    created_at: datetime,
    action: str,
    actor_kind: str,
    actor: str,
    target_type: str,
    target_id: str,
    data: Mapping[str, Any],
) -> str:
    """The definition `_content` follows: JSON, sorted keys, no spaces, UTC time."""
    content = {
        "action": action,
        "actor": actor,
        "actor_kind": actor_kind,
        "created_at": utc_iso(created_at),
        "data": data,
        "org": organisation_id,
        "prev_hash": prev_hash,
        "seq": seq,
        "target_id": target_id,
        "target_type": target_type,
    }
    return _encode(content)


class BreakKind:
    CHANGED = "changed"
    REMOVED = "removed"
    REORDERED = "reordered"
    TRUNCATED = "truncated"
    HEAD = "head"
    DOWNGRADED = "downgraded"
    CHECKPOINT = "checkpoint"
    UNKEYED = "unkeyed"


@dataclass(frozen=True)
class ChainBreak:
    """The first row where a chain stops being what was written."""

    kind: str
    seq: int | None
    event_id: int | None
    message: str


@dataclass(frozen=True)
class ChainWalk:
    events: int
    last_seq: int
    last_hash: str
    problem: ChainBreak | None


def walk_chain(
    rows: Iterable[Sequence[Any]],
    *,
    organisation_id: int | None,
    seq_of_hash: Callable[[str], int | None],
    key: bytes | None = None,
) -> ChainWalk:
    """Check rows (ROW_FIELDS tuples, in seq order); stop at the first bad one.

    Each row is hashed by its own kind (`key`, default AUDIT_HMAC_KEY, for v2); a v1 row
    after a v2 row is a break. `seq_of_hash` finds which row carries a hash; it is only
    called once a link is broken, to tell a reordered row from a removed or rewritten one.
    """
    hasher = _Hasher(key)
    expected_seq, previous_hash, count, keyed = 1, GENESIS_HASH, 0, False
    for row in rows:
        event_id, seq, created_at, action, actor_kind, actor, target_type, target_id = row[:8]
        data, prev_hash, stored_hash, hash_kind = row[8:]
        if seq != expected_seq:
            return ChainWalk(
                count, expected_seq - 1, previous_hash, _gap(seq, event_id, expected_seq)
            )
        content = _content(
            organisation_id,
            seq,
            prev_hash,
            created_at,
            action,
            actor_kind,
            actor,
            target_type,
            target_id,
            data,
        )
        computed = hasher(hash_kind, content)
        kind_problem = _kind_problem(seq, event_id, hash_kind, computed, keyed=keyed)
        if kind_problem is not None:
            return ChainWalk(count, seq - 1, previous_hash, kind_problem)
        if computed != stored_hash or prev_hash != previous_hash:
            linked = prev_hash == previous_hash
            problem = _bad_row(
                seq,
                event_id,
                content_ok=computed == stored_hash,
                linked=linked,
                seq_of_hash=seq_of_hash,
                prev_hash=prev_hash,
            )
            return ChainWalk(count, seq - 1, previous_hash, problem)
        expected_seq, previous_hash, count = seq + 1, stored_hash, count + 1
        keyed = keyed or hash_kind == HashKind.HMAC_SHA256
    return ChainWalk(count, expected_seq - 1, previous_hash, None)


def _kind_problem(
    seq: int, event_id: int, hash_kind: str, computed: str | None, *, keyed: bool
) -> ChainBreak | None:
    if computed is None:
        return ChainBreak(
            BreakKind.CHANGED, seq, event_id, f"changed: unknown hash kind {hash_kind!r}"
        )
    if keyed and hash_kind == HashKind.SHA256:
        return ChainBreak(
            BreakKind.DOWNGRADED,
            seq,
            event_id,
            "downgraded: a plain SHA-256 row after keyed rows (a chain never goes back to v1; "
            "rows were rewritten without the key)",
        )
    return None


def _gap(seq: int, event_id: int, expected_seq: int) -> ChainBreak:
    missing = f"seq {expected_seq}" if seq == expected_seq + 1 else f"seqs {expected_seq}-{seq - 1}"
    return ChainBreak(
        BreakKind.REMOVED, seq, event_id, f"{missing} removed: the next row found is seq {seq}"
    )


def _bad_row(
    seq: int,
    event_id: int,
    *,
    content_ok: bool,
    linked: bool,
    seq_of_hash: Callable[[str], int | None],
    prev_hash: str,
) -> ChainBreak:
    if linked:
        return ChainBreak(
            BreakKind.CHANGED, seq, event_id, "changed: its content does not match its hash"
        )
    follows = seq_of_hash(prev_hash)
    if follows is not None and follows != seq - 1:
        return ChainBreak(
            BreakKind.REORDERED,
            seq,
            event_id,
            f"reordered: it was written after the row now at seq {follows}, "
            f"not after seq {seq - 1}",
        )
    if not content_ok:
        return ChainBreak(
            BreakKind.CHANGED, seq, event_id, "changed: its content and link do not match its hash"
        )
    return ChainBreak(
        BreakKind.REMOVED,
        seq,
        event_id,
        f"its link does not match the row at seq {seq - 1}: a row before it was removed or "
        "rewritten",
    )


def check_head(
    walk: ChainWalk, *, head_seq: int | None, head_hash: str | None
) -> ChainBreak | None:
    """The chain head records the last row written: rows cut off the end show up here."""
    if walk.problem is not None:
        return walk.problem
    if head_seq is None:
        if walk.events:
            return ChainBreak(BreakKind.HEAD, walk.last_seq, None, "the chain head is missing")
        return None
    if head_seq > walk.last_seq:
        return ChainBreak(
            BreakKind.TRUNCATED,
            walk.last_seq + 1,
            None,
            f"seq {walk.last_seq + 1}-{head_seq} removed: the chain head records {head_seq} "
            f"events, the last row found is seq {walk.last_seq}",
        )
    if head_seq < walk.last_seq or head_hash != walk.last_hash:
        return ChainBreak(
            BreakKind.HEAD,
            walk.last_seq,
            None,
            f"the chain head (seq {head_seq}) does not match the last row (seq {walk.last_seq})",
        )
    return None
