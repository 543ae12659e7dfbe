"""One function per kind of event, so callers in other apps make one call with their objects.

Each picks the chain (the organisation the event belongs to) and keeps to references: ids,
rule ids, states, hashes. Free text a model wrote is stored as its hash, never as text.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from django.contrib.auth import get_user_model

from reviewapp.audit.models import AuditAction, AuditActorKind
from reviewapp.audit.services import AuditEntry, audit_record, audit_record_many

if TYPE_CHECKING:
    from reviewapp.contracts.models import Contract
    from reviewapp.reviews.models import PassageTransition
    from reviewapp.rules.models import Playbook, PlaybookVersion

_REASON_CODE = re.compile(r"[A-Z][A-Z0-9_]{0,63}")
NO_RULE_FIRED = "no rule fired"


def sha256_text(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def _actor_of(user: Any) -> tuple[str, str]:
    if user is not None and getattr(user, "is_authenticated", False):
        return AuditActorKind.USER, user.get_username()
    return AuditActorKind.SYSTEM, "system"


def user_chains(user: Any) -> list[int | None]:
    """The chains of the organisations whose matters the user belongs to, else the system's."""
    if user is None or not getattr(user, "is_authenticated", False):
        return [None]
    ids = user.memberships.values_list("matter__organisation_id", flat=True)
    return [*sorted(set(ids))] or [None]


def audit_contract_upload(*, contract: Contract) -> None:
    actor_kind, actor = _actor_of(contract.uploaded_by)
    audit_record(
        organisation_id=contract.matter.organisation_id,
        action=AuditAction.CONTRACT_UPLOADED,
        actor_kind=actor_kind,
        actor=actor,
        target_type="contract",
        target_id=contract.pk,
        data={
            "matter_id": contract.matter_id,
            "sha256": contract.sha256,
            "size": contract.size,
            "kind": contract.kind,
        },
    )


def audit_passage_transitions(*, transitions: Sequence[PassageTransition]) -> None:
    """Every state change of passages of one contract (a scan writes hundreds at once)."""
    if not transitions:
        return
    passage = transitions[0].passage
    organisation_id = (  # the Passage model, without importing the contracts app above
        type(passage)
        .objects.filter(pk=passage.pk)
        .values_list("contract__matter__organisation_id", flat=True)
        .get()
    )
    audit_record_many(
        organisation_id=organisation_id,
        entries=[_transition_entry(transition) for transition in transitions],
    )


def _transition_entry(transition: PassageTransition) -> AuditEntry:
    passage = transition.passage
    data: dict[str, Any] = {
        "contract_id": passage.contract_id,
        "review_id": transition.review_id,
        "passage_index": passage.index,
        "transition_id": transition.pk,
        "from": transition.from_state,
        "to": transition.to_state,
        **_reason_fields(transition.actor_kind, transition.reason),
    }
    return AuditEntry(
        action=AuditAction.PASSAGE_TRANSITION,
        actor_kind=transition.actor_kind,
        actor=transition.actor,
        target_type="passage",
        target_id=passage.pk,
        data=data,
    )


def _reason_fields(actor_kind: str, reason: str) -> dict[str, Any]:
    if actor_kind == AuditActorKind.RULE:
        return {"rules": [] if reason == NO_RULE_FIRED else reason.split(", ")}
    if actor_kind == AuditActorKind.USER:
        return {"justification": reason}  # the lawyer's own note, asked for by the issue
    if not reason:
        return {}
    if _REASON_CODE.fullmatch(reason):
        return {"reason": reason}
    return {"reason_sha256": sha256_text(reason)}  # a model's rationale may quote the contract


def audit_playbook_change(
    *,
    action: AuditAction,
    playbook: Playbook,
    version: PlaybookVersion | None = None,
    user: Any = None,
) -> None:
    actor_kind, actor = _actor_of(user)
    data: dict[str, Any] = {
        "name": playbook.name,
        "language": playbook.language,
        "copied_from_id": playbook.copied_from_id,
    }
    if version is not None:
        data |= {
            "version_id": version.pk,
            "version": version.number,
            "source_sha256": sha256_text(version.source),
        }
    audit_record(
        organisation_id=playbook.organisation_id,
        action=action,
        actor_kind=actor_kind,
        actor=actor,
        target_type="playbook",
        target_id=playbook.pk,
        data=data,
    )


def audit_router_change(
    *, action: AuditAction, organisation_id: int | None, version: Any, user: Any = None
) -> None:
    """A learned router trained or activated: which version, on how many decisions, its figures."""
    actor_kind, actor = _actor_of(user)
    audit_record(
        organisation_id=organisation_id,
        action=action,
        actor_kind=actor_kind,
        actor=actor,
        target_type="router",
        target_id=version.pk,
        data={
            "router": version.label,
            "sha256": version.sha256,
            "decisions": version.decisions,
            "figures": version.figures,
        },
    )


def audit_sign_in(*, user: Any, ip: str | None, signed_out: bool = False) -> None:
    action = AuditAction.SIGNED_OUT if signed_out else AuditAction.SIGNED_IN
    for organisation_id in user_chains(user):
        audit_record(
            organisation_id=organisation_id,
            action=action,
            actor_kind=AuditActorKind.USER,
            actor=user.get_username(),
            target_type="user",
            target_id=user.pk,
            data={"ip": ip},
        )


def audit_sign_in_failure(*, username: str, ip: str | None) -> None:
    """A known user's failure goes to their organisations' chains; anyone else's to the system's."""
    user = get_user_model().objects.filter(username=username).first() if username else None
    for organisation_id in user_chains(user):
        audit_record(
            organisation_id=organisation_id,
            action=AuditAction.SIGN_IN_FAILED,
            actor_kind=AuditActorKind.ANONYMOUS,
            actor=username[:150],
            target_type="user" if user else "",
            target_id=user.pk if user else "",
            data={"ip": ip, "known_user": user is not None},
        )


def audit_two_factor_event(
    *, user: Any, action: AuditAction, data: dict[str, Any], by: Any
) -> None:
    """Two-factor sign-in of ``user``: set up, passed or a wrong code (``by`` the user), or reset
    ``by`` an admin (None: a site operator's command). Codes themselves are never kept."""
    actor_kind, actor = _actor_of(by)
    for organisation_id in user_chains(user):
        audit_record(
            organisation_id=organisation_id,
            action=action,
            actor_kind=actor_kind,
            actor=actor,
            target_type="user",
            target_id=user.pk,
            data=data,
        )


def audit_two_factor_policy(*, organisation_id: int, required: bool, by: Any) -> None:
    actor_kind, actor = _actor_of(by)
    audit_record(
        organisation_id=organisation_id,
        action=AuditAction.TWO_FACTOR_POLICY_SET,
        actor_kind=actor_kind,
        actor=actor,
        target_type="organisation",
        target_id=organisation_id,
        data={"require_two_factor": required},
    )


def audit_time_zone_set(*, user: Any, time_zone: str, previous: str) -> None:
    """The time zone ``user`` chose for due times ("" for the browser's), in each of their
    organisations' chains."""
    for organisation_id in user_chains(user):
        audit_record(
            organisation_id=organisation_id,
            action=AuditAction.TIME_ZONE_SET,
            actor_kind=AuditActorKind.USER,
            actor=user.get_username(),
            target_type="user",
            target_id=user.pk,
            data={"time_zone": time_zone, "previous": previous},
        )


def audit_access_denial(
    *, user: Any, ip: str | None, method: str, path: str, status: int, via: str = "http"
) -> None:
    """A 401/403 answered to a page or API request, or a websocket refused (`via="websocket"`)."""
    signed_in = user is not None and getattr(user, "is_authenticated", False)
    action = AuditAction.WEBSOCKET_REFUSED if via == "websocket" else AuditAction.ACCESS_DENIED
    for organisation_id in user_chains(user):
        audit_record(
            organisation_id=organisation_id,
            action=action,
            actor_kind=AuditActorKind.USER if signed_in else AuditActorKind.ANONYMOUS,
            actor=user.get_username() if signed_in else "",
            target_type="path",
            target_id=path[:64],
            data={"ip": ip, "method": method, "path": path[:500], "status": status},
        )


def audit_websocket_refusal(*, scope: dict[str, Any], code: int) -> None:
    """A websocket connection refused (from a consumer's `connect`; scope is the ASGI scope)."""
    client = scope.get("client") or (None, None)
    audit_access_denial(
        user=scope.get("user"),
        ip=client[0],
        method="WEBSOCKET",
        path=str(scope.get("path", "")),
        status=code,
        via="websocket",
    )


def audit_export(*, review: Any, user: Any, fmt: str, audience: str = "") -> None:
    """A reviewer downloaded a review as ``fmt`` (docx, json, csv or a redlined contract, which
    is for ``audience``: the counterparty or the firm)."""
    actor_kind, actor = _actor_of(user)
    contract = review.contract
    data = {"format": fmt, "contract_id": contract.pk, "review_status": review.status}
    if audience:
        data["audience"] = audience
    audit_record(
        organisation_id=contract.matter.organisation_id,
        action=AuditAction.EXPORT_CREATED,
        actor_kind=actor_kind,
        actor=actor,
        target_type="review",
        target_id=review.pk,
        data=data,
    )


def audit_queue_event(
    *, item: Any, user: Any, action: str, data: dict[str, Any] | None = None
) -> None:
    """A lawyer claimed, decided, overrode, commented on or handed over a queue item."""
    audit_queue_events(items=[item], user=user, action=action, data=[data or {}])


def audit_queue_events(
    *, items: Sequence[Any], user: Any, action: str, data: Sequence[dict]
) -> None:
    """``audit_queue_event`` for several items of one matter at once (items opened by a check
    batch), appended to the chain under one lock; ``data[i]`` goes with ``items[i]``."""
    if not items:
        return
    actor_kind, actor = _actor_of(user)
    audit_record_many(
        organisation_id=items[0].matter.organisation_id,
        entries=[
            AuditEntry(
                action=action,
                actor_kind=actor_kind,
                actor=actor,
                target_type="queue_item",
                target_id=item.pk,
                data={"passage_id": item.passage_id, "review_id": item.review_id, **extra},
            )
            for item, extra in zip(items, data, strict=True)
        ],
    )


def audit_matter_event(
    *, matter: Any, user: Any, action: str, data: dict[str, Any] | None = None
) -> None:
    """An admin created a matter or changed who is on it (user ids and roles, no names)."""
    actor_kind, actor = _actor_of(user)
    audit_record(
        organisation_id=matter.organisation_id,
        action=action,
        actor_kind=actor_kind,
        actor=actor,
        target_type="matter",
        target_id=matter.pk,
        data=data or {},
    )


def audit_redline_event(
    *, redline: Any, user: Any, action: str, previous_status: str | None
) -> None:
    """A lawyer saved, accepted or withdrew a redline. Its wording may be a model's suggestion,
    so only its hash and length are kept, with the words' place in the contract."""
    actor_kind, actor = _actor_of(user)
    review = redline.review
    audit_record(
        organisation_id=review.contract.matter.organisation_id,
        action=action,
        actor_kind=actor_kind,
        actor=actor,
        target_type="redline",
        target_id=redline.pk,
        data={
            "review_id": review.pk,
            "contract_id": review.contract_id,
            "passage_id": redline.passage_id,
            "category": redline.category,
            "rule_id": redline.rule_id,
            "from": previous_status,
            "status": redline.status,
            "source": redline.source,
            "span": [redline.span_start, redline.span_end],
            "replacement_sha256": sha256_text(redline.replacement),
            "replacement_chars": len(redline.replacement),
            "counterparty_comment_sha256": sha256_text(redline.counterparty_comment),
            "counterparty_comment_chars": len(redline.counterparty_comment),
        },
    )


def audit_acting_for_set(
    *, matter: Any, contract: Any = None, user: Any, name: str, role: str, previous_name: str
) -> None:
    """A lawyer or admin chose the party the firm acts for, on a matter or (over it) a contract.
    The party's name is a company's or a person's, so it is kept as its hash; the role it plays
    ("Buyer", "甲方") is a defined term of the contract and is kept as it is."""
    actor_kind, actor = _actor_of(user)
    data: dict[str, Any] = {
        "name_sha256": sha256_text(name) if name else None,
        "role": role[:80],
        "cleared": not name,
        "previous_name_sha256": sha256_text(previous_name) if previous_name else None,
    }
    if contract is not None:
        data["contract_id"] = contract.pk
    audit_record(
        organisation_id=matter.organisation_id,
        action=AuditAction.CONTRACT_ACTING_FOR_SET
        if contract
        else AuditAction.MATTER_ACTING_FOR_SET,
        actor_kind=actor_kind,
        actor=actor,
        target_type="contract" if contract else "matter",
        target_id=contract.pk if contract else matter.pk,
        data=data,
    )
