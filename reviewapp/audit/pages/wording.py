"""Audit events in words a lawyer reads: who, what, on which passage, in the active language.

Events keep references only (ids, rule ids, state codes); `EventLookups` resolves the
references of one page of events in a few queries, and `event_line` turns each event into words.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from reviewapp.audit.models import AuditAction, AuditActorKind, AuditEvent
from reviewapp.contracts.deletion import DELETION_REASONS, RETENTION
from reviewapp.contracts.models import PassageState
from reviewapp.reviews.reasons import reason_label
from reviewapp.rules.display_labels import category_label, severity_label

FIRST_WORDS = 8
FIRST_CHARS = 24  # Chinese text has no spaces between words

ACTION_LABELS: dict[str, Any] = {
    AuditAction.CONTRACT_UPLOADED: gettext_lazy("Contract uploaded"),
    AuditAction.PASSAGE_TRANSITION: gettext_lazy("Passage state changed"),
    AuditAction.QUEUE_CLAIMED: gettext_lazy("Item claimed"),
    AuditAction.QUEUE_DECIDED: gettext_lazy("Decision made"),
    AuditAction.QUEUE_OVERRIDDEN: gettext_lazy("Rejection overridden"),
    AuditAction.QUEUE_COMMENTED: gettext_lazy("Comment added"),
    AuditAction.QUEUE_OPENED: gettext_lazy("Sent to the lawyers' queue"),
    AuditAction.QUEUE_HANDED_OVER: gettext_lazy("Item handed over"),
    AuditAction.QUEUE_MENTIONED: gettext_lazy("Lawyer mentioned"),
    AuditAction.QUEUE_NOTE_EDITED: gettext_lazy("Decision note changed"),
    AuditAction.QUEUE_ESCALATED: gettext_lazy("Item escalated"),
    AuditAction.QUEUE_UNDONE: gettext_lazy("Decision undone"),
    AuditAction.QUEUE_SEVERITY_SET: gettext_lazy("Severity set for the party we act for"),
    AuditAction.QUEUE_ANSWERED: gettext_lazy("Categories answered"),
    AuditAction.QUEUE_RELEASED: gettext_lazy("Claim released"),
    AuditAction.QUEUE_FLAGGED: gettext_lazy("Clause flagged by a lawyer"),
    AuditAction.REDLINE_SAVED: gettext_lazy("Redline saved"),
    AuditAction.REDLINE_ACCEPTED: gettext_lazy("Redline accepted"),
    AuditAction.REDLINE_WITHDRAWN: gettext_lazy("Redline withdrawn"),
    AuditAction.REVIEW_RERUN: gettext_lazy("Review re-run on a newer playbook"),
    AuditAction.MATTER_RERUN: gettext_lazy("Matter re-run started"),
    AuditAction.PLAYBOOK_COPIED: gettext_lazy("Playbook copied"),
    AuditAction.PLAYBOOK_VERSION_CREATED: gettext_lazy("Playbook edited"),
    AuditAction.PLAYBOOK_ACTIVATED: gettext_lazy("Playbook activated"),
    AuditAction.ROUTER_TRAINED: gettext_lazy("Router retrained"),
    AuditAction.ROUTER_ACTIVATED: gettext_lazy("Router activated"),
    AuditAction.CONTRACT_DELETED: gettext_lazy("Contract deleted"),
    AuditAction.RETENTION_SET: gettext_lazy("Retention period set"),
    AuditAction.LEGAL_HOLD_SET: gettext_lazy("Legal hold placed"),
    AuditAction.LEGAL_HOLD_LIFTED: gettext_lazy("Legal hold lifted"),
    AuditAction.MATTER_ACTING_FOR_SET: gettext_lazy("Party we act for set for the matter"),
    AuditAction.CONTRACT_ACTING_FOR_SET: gettext_lazy("Party we act for set for the contract"),
    AuditAction.ORGANISATION_MEMBER_ADDED: gettext_lazy("Organisation member added"),
    AuditAction.ORGANISATION_MEMBER_REMOVED: gettext_lazy("Organisation member removed"),
    AuditAction.SESSIONS_REVOKED: gettext_lazy("Sessions and tokens revoked"),
    AuditAction.AUDIT_CHECKPOINT: gettext_lazy("Audit checkpoint written"),
    AuditAction.MATTER_CREATED: gettext_lazy("Matter created"),
    AuditAction.MEMBER_ADDED: gettext_lazy("Member added"),
    AuditAction.MEMBER_ROLE_CHANGED: gettext_lazy("Member's role changed"),
    AuditAction.MEMBER_REMOVED: gettext_lazy("Member removed"),
    AuditAction.EXPORT_CREATED: gettext_lazy("Review exported"),
    AuditAction.SIGNED_IN: gettext_lazy("Signed in"),
    AuditAction.SIGN_IN_FAILED: gettext_lazy("Sign-in failed"),
    AuditAction.SIGNED_OUT: gettext_lazy("Signed out"),
    AuditAction.ACCESS_DENIED: gettext_lazy("Permission denied"),
    AuditAction.WEBSOCKET_REFUSED: gettext_lazy("Live connection refused"),
    AuditAction.TWO_FACTOR_ENROLLED: gettext_lazy("Two-factor sign-in set up"),
    AuditAction.TWO_FACTOR_VERIFIED: gettext_lazy("Second factor passed"),
    AuditAction.TWO_FACTOR_FAILED: gettext_lazy("Wrong second-factor code"),
    AuditAction.TWO_FACTOR_RESET: gettext_lazy("Two-factor sign-in reset"),
    AuditAction.TWO_FACTOR_POLICY_SET: gettext_lazy("Two-factor sign-in requirement changed"),
    AuditAction.TIME_ZONE_SET: gettext_lazy("Time zone for due times chosen"),
}
DECISION_LABELS = {
    "accept": gettext_lazy("clause acceptable"),
    "reject": gettext_lazy("clause not acceptable"),
    "not_this": gettext_lazy("not this kind of clause"),
}


@dataclass(frozen=True)
class PassageRef:
    contract_id: int
    index: int
    number: str
    opening: str  # the first characters of its text


@dataclass
class EventLookups:
    """What one page of events refers to, read in one query per kind."""

    passages: dict[int, PassageRef] = field(default_factory=dict)  # by passage pk
    contracts: dict[int, str] = field(default_factory=dict)  # name by contract pk
    review_contracts: dict[int, int] = field(default_factory=dict)  # contract pk by review pk
    categories: dict[str, str] = field(default_factory=dict)  # category by rule id
    matters: dict[int, str] = field(default_factory=dict)  # name by matter pk


@dataclass(frozen=True)
class EventLine:
    pk: int
    when: datetime
    who: str
    what: str
    detail: str
    target: str
    contract_id: int | None
    passage_index: int | None


def event_line(event: AuditEvent, lookups: EventLookups) -> EventLine:
    passage_pk = event_passage_pk(event)
    passage = lookups.passages.get(passage_pk) if passage_pk is not None else None
    contract_id = event_contract_id(event, lookups)
    return EventLine(
        pk=event.pk,
        when=event.created_at,
        who=actor_words(event),
        what=str(ACTION_LABELS.get(event.action) or event.get_action_display()),
        detail=detail_words(event, lookups),
        target=target_words(event, passage, lookups),
        contract_id=contract_id,
        passage_index=passage.index if passage else None,
    )


def event_passage_pk(event: AuditEvent) -> int | None:
    if event.target_type == "passage" and event.target_id.isdigit():
        return int(event.target_id)
    passage_id = event.data.get("passage_id") if isinstance(event.data, dict) else None
    return passage_id if isinstance(passage_id, int) else None


def event_contract_id(event: AuditEvent, lookups: EventLookups) -> int | None:
    data = event.data if isinstance(event.data, dict) else {}
    if event.target_type == "contract" and event.target_id.isdigit():
        return int(event.target_id)
    if isinstance(data.get("contract_id"), int):
        return data["contract_id"]
    if isinstance(data.get("review_id"), int):
        return lookups.review_contracts.get(data["review_id"])
    return None


def actor_words(event: AuditEvent) -> str:
    kind, actor = event.actor_kind, event.actor
    if kind == AuditActorKind.USER:
        return actor
    if kind == AuditActorKind.RULE:
        return _("Trigger rules")
    if kind == AuditActorKind.ENGINE:
        return _("Offline engine")
    if kind == AuditActorKind.MODEL:
        return _("Model %(name)s") % {"name": actor}
    if kind == AuditActorKind.ANONYMOUS:
        return actor or _("Someone not signed in")
    return _("System")


def state_words(state: str | None) -> str:
    if not state:
        return _("new")
    labels = dict(PassageState.choices)
    return str(labels.get(state, state))


def rule_words(rule_ids: list[str], lookups: EventLookups) -> str:
    named = []
    for rule_id in rule_ids:
        category = lookups.categories.get(rule_id)
        named.append(f"{category_label(category)} ({rule_id})" if category else rule_id)
    return ", ".join(named)


# Who a redlined contract was exported for (the export event's `audience`).
EXPORT_AUDIENCES = {
    "counterparty": gettext_lazy("for the counterparty, no internal notes"),
    "firm": gettext_lazy("for the firm, with internal notes"),
}


def detail_words(event: AuditEvent, lookups: EventLookups) -> str:
    data = event.data if isinstance(event.data, dict) else {}
    if event.action == AuditAction.PASSAGE_TRANSITION:
        return _transition_words(data, lookups)
    if event.action in (
        AuditAction.QUEUE_DECIDED,
        AuditAction.QUEUE_NOTE_EDITED,
        AuditAction.QUEUE_UNDONE,
    ):
        words = str(DECISION_LABELS.get(data.get("decision", ""), data.get("decision", "")))
        if data.get("override"):
            words = _("%(decision)s, overriding the rejection: “%(why)s”") % {
                "decision": words,
                "why": data.get("justification", ""),
            }
        return words
    if event.action == AuditAction.EXPORT_CREATED:
        words = str(data.get("format", "")).upper()
        audience = EXPORT_AUDIENCES.get(str(data.get("audience", "")))
        return f"{words} ({audience})" if audience else words
    if event.action in (AuditAction.QUEUE_HANDED_OVER, AuditAction.QUEUE_CLAIMED):
        return data.get("claimed_by") or ""
    if event.action == AuditAction.QUEUE_RELEASED:
        return str(data.get("released_from") or "")
    if event.action == AuditAction.QUEUE_FLAGGED:
        return category_label(str(data.get("category", "")))
    if event.action == AuditAction.QUEUE_ANSWERED:
        return ", ".join(
            f"{category_label(c)}: {DECISION_LABELS.get(d, d)}"
            for c, d in sorted((data.get("decisions") or {}).items())
        )
    if event.action == AuditAction.QUEUE_COMMENTED and data.get("mentions"):
        return _("mentions %(names)s") % {"names": ", ".join(data["mentions"])}
    if event.action in (AuditAction.MATTER_ACTING_FOR_SET, AuditAction.CONTRACT_ACTING_FOR_SET):
        return _("no party chosen") if data.get("cleared") else str(data.get("role") or "")
    if event.action == AuditAction.QUEUE_SEVERITY_SET:
        before = severity_label(str(data.get("previous_severity", "")))
        return f"{before} → {severity_label(str(data.get('severity', '')))}"
    if event.action == AuditAction.CONTRACT_DELETED:
        return deletion_words(data)
    if event.action == AuditAction.TIME_ZONE_SET:
        return str(data.get("time_zone") or _("the browser's time zone"))
    if event.action == AuditAction.ACCESS_DENIED:
        return f"{data.get('method', '')} {data.get('path', '')} ({data.get('status', '')})"
    return ""


def _transition_words(data: dict[str, Any], lookups: EventLookups) -> str:
    words = f"{state_words(data.get('from'))} → {state_words(data.get('to'))}"
    if data.get("rules"):
        words += " · " + _("rules: %(rules)s") % {"rules": rule_words(data["rules"], lookups)}
    if data.get("reason"):
        words += " · " + reason_label(data["reason"])
    if data.get("justification"):
        words += " · “" + data["justification"] + "”"
    return words


def deletion_words(data: dict[str, Any]) -> str:
    """Why a contract was deleted and which file it was: the reason as the form offered it and
    the start of the file's SHA-256 (the log keeps no name, only its hash)."""
    reason = str(data.get("reason", ""))
    if reason == RETENTION:
        why = _("retention period over")
    else:
        why = str(DELETION_REASONS.get(reason, reason))
    digest = str(data.get("sha256", ""))[:12]
    if not digest:
        return why
    return _("%(reason)s; file SHA-256 %(digest)s…") % {"reason": why, "digest": digest}


def target_words(event: AuditEvent, passage: PassageRef | None, lookups: EventLookups) -> str:
    if passage is not None:
        return passage_words(passage)
    contract_id = event_contract_id(event, lookups)
    if contract_id is not None:
        name = lookups.contracts.get(contract_id)
        return name or _("contract %(id)d (deleted)") % {"id": contract_id}
    if event.target_type == "matter" and event.target_id.isdigit():
        return lookups.matters.get(int(event.target_id), "")
    if event.target_type in ("user", "path"):
        return event.target_id if event.target_type == "path" else event.actor
    return ""


def passage_words(passage: PassageRef) -> str:
    """ "Passage #12, §7.2: “The Supplier shall not…”": the number the queue shows, the clause
    number the contract shows, and the first words after it."""
    number = passage.number.rstrip(".")
    opening = passage.opening.lstrip()
    if passage.number and opening.startswith(passage.number):
        opening = opening[len(passage.number) :]
    words = first_words(opening)
    if number:
        return _("Passage #%(index)d, §%(number)s: “%(words)s”") % {
            "number": number,
            "index": passage.index,
            "words": words,
        }
    return _("Passage #%(index)d: “%(words)s”") % {"index": passage.index, "words": words}


def first_words(text: str) -> str:
    words = text.split()
    if len(words) >= 3:
        shown = " ".join(words[:FIRST_WORDS])
        return shown + ("…" if len(words) > FIRST_WORDS else "")
    flat = " ".join(words)
    return flat[:FIRST_CHARS] + ("…" if len(flat) > FIRST_CHARS else "")
