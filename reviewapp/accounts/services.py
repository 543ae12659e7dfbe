from __future__ import annotations

import hashlib
import secrets
from typing import Any

from django.contrib.auth import get_user_model
from django.core.exceptions import PermissionDenied
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from reviewapp.accounts.models import Matter, Membership, Organisation, OrganisationMember, Role
from reviewapp.audit.models import AuditAction
from reviewapp.audit.recorders import audit_matter_event

DEMO_ORGANISATION = "Demo LLP"
DEMO_MATTER = "Demo matter"
DEMO_USERS = (("reviewer", Role.REVIEWER), ("lawyer", Role.LAWYER), ("admin", Role.ADMIN))


@transaction.atomic
def demo_seed() -> dict[str, str]:
    """Create the demo organisation, matter and users once.

    Returns the generated passwords of users created by this call (none on later runs), so
    they can be shown exactly once.
    """
    organisation, _ = Organisation.objects.get_or_create(name=DEMO_ORGANISATION)
    matter, _ = Matter.objects.get_or_create(
        organisation=organisation, name=DEMO_MATTER, defaults={"reference": "DEMO-001"}
    )
    created: dict[str, str] = {}
    user_model = get_user_model()
    for username, role in DEMO_USERS:
        user, is_new = user_model.objects.get_or_create(username=username)
        if is_new:
            password = secrets.token_urlsafe(12)
            user.set_password(password)
            user.is_staff = user.is_superuser = role == Role.ADMIN
            user.email = f"{username}@demo-llp.example"
            user.save()
            created[username] = password
        Membership.objects.get_or_create(user=user, matter=matter, defaults={"role": role})
        OrganisationMember.objects.get_or_create(organisation=organisation, user=user)
    return created


def _organisation_person(organisation: Organisation, username: str, by: Any) -> Any:
    """A person of ``organisation`` by username. A site admin may bring in anyone, who then
    becomes a person of it. Whether the name exists in another organisation is never said."""
    users = get_user_model().objects.filter(username=username.strip())
    if not getattr(by, "is_superuser", False):
        users = users.filter(organisations__organisation=organisation)
    user = users.first()
    if user is None:
        message = _("No one in your organisation is called “%(name)s”.")
        raise MatterChangeRefused(message % {"name": username.strip()[:150]})
    OrganisationMember.objects.get_or_create(organisation=organisation, user=user)
    return user


class MatterChangeRefused(ValueError):
    """A matter or membership change that cannot be made; the message says why, to the admin."""


def _require_org_admin(user: Any, organisation_id: int) -> None:
    is_admin = Membership.objects.filter(
        user=user, role=Role.ADMIN, matter__organisation_id=organisation_id
    ).exists()
    if not (getattr(user, "is_authenticated", False) and is_admin):
        raise PermissionDenied("Only an admin of the organisation can do this.")


@transaction.atomic
def matter_create(*, organisation: Organisation, name: str, reference: str, by: Any) -> Matter:
    """A new matter in an organisation ``by`` administers; ``by`` becomes its admin."""
    _require_org_admin(by, organisation.pk)
    name = " ".join(name.split())
    if not name:
        raise MatterChangeRefused(_("Give the matter a name."))
    if Matter.objects.filter(organisation=organisation, name__iexact=name).exists():
        raise MatterChangeRefused(_("This organisation already has a matter with that name."))
    matter = Matter.objects.create(
        organisation=organisation, name=name, reference=reference.strip()[:64]
    )
    Membership.objects.create(user=by, matter=matter, role=Role.ADMIN)
    audit_matter_event(
        matter=matter, user=by, action=AuditAction.MATTER_CREATED, data={"admin_id": by.pk}
    )
    return matter


@transaction.atomic
def membership_set(*, matter: Matter, username: str, role: str, by: Any) -> Membership:
    """Add a user to a matter with ``role``, or change the role of one already on it."""
    _require_org_admin(by, matter.organisation_id)
    if role not in Role.values:
        raise MatterChangeRefused(_("Choose a role."))
    if username.strip() == by.get_username():
        raise MatterChangeRefused(_("Another admin must change your own role."))
    user = _organisation_person(matter.organisation, username, by)
    membership = Membership.objects.select_for_update().filter(user=user, matter=matter).first()
    data = {"user_id": user.pk, "role": role}
    if membership is None:
        membership = Membership.objects.create(user=user, matter=matter, role=role)
        audit_matter_event(matter=matter, user=by, action=AuditAction.MEMBER_ADDED, data=data)
    elif membership.role != role:
        data["previous_role"] = membership.role
        membership.role = role
        membership.save(update_fields=["role"])
        action = AuditAction.MEMBER_ROLE_CHANGED
        audit_matter_event(matter=matter, user=by, action=action, data=data)
    return membership


@transaction.atomic
def membership_remove(*, matter: Matter, membership_id: int, by: Any) -> None:
    """Take a user off a matter: their open pages and sockets lose access at once."""
    _require_org_admin(by, matter.organisation_id)
    membership = Membership.objects.filter(pk=membership_id, matter=matter).first()
    if membership is None:
        raise MatterChangeRefused(_("That person is no longer on this matter."))
    if membership.user_id == by.pk:
        raise MatterChangeRefused(_("Another admin must take you off a matter."))
    data = {"user_id": membership.user_id, "role": membership.role}
    membership.delete()
    audit_matter_event(matter=matter, user=by, action=AuditAction.MEMBER_REMOVED, data=data)


RETENTION_MAX_DAYS = 36500


def _sha256(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


@transaction.atomic
def matter_retention_set(*, matter: Matter, days: int | None, by: Any) -> Matter:
    """Keep the matter's contracts for ``days`` after upload (None: forever); audited."""
    _require_org_admin(by, matter.organisation_id)
    if days is not None and not 1 <= days <= RETENTION_MAX_DAYS:
        raise MatterChangeRefused(
            _("Keep contracts for 1 to %(max)s days, or leave it empty to keep them.")
            % {"max": RETENTION_MAX_DAYS}
        )
    locked = Matter.objects.select_for_update().get(pk=matter.pk)
    if locked.retention_days != days:
        data = {"retention_days": days, "previous_retention_days": locked.retention_days}
        locked.retention_days = days
        locked.save(update_fields=["retention_days"])
        audit_matter_event(matter=locked, user=by, action=AuditAction.RETENTION_SET, data=data)
    return locked


@transaction.atomic
def matter_legal_hold_set(*, matter: Matter, reason: str, by: Any) -> Matter:
    """Stop every deletion in the matter (by people and by retention) until the hold is lifted."""
    _require_org_admin(by, matter.organisation_id)
    reason = " ".join(reason.split())[:500]
    if not reason:
        raise MatterChangeRefused(_("Say why the matter is on hold."))
    locked = Matter.objects.select_for_update().get(pk=matter.pk)
    if locked.legal_hold:
        raise MatterChangeRefused(_("This matter is already on legal hold."))
    locked.legal_hold, locked.legal_hold_by, locked.legal_hold_at = True, by, timezone.now()
    locked.legal_hold_reason = reason
    locked.save(update_fields=["legal_hold", "legal_hold_by", "legal_hold_at", "legal_hold_reason"])
    data = {"reason_sha256": _sha256(reason)}  # the reason may name people: kept as a hash
    audit_matter_event(matter=locked, user=by, action=AuditAction.LEGAL_HOLD_SET, data=data)
    return locked


@transaction.atomic
def matter_legal_hold_lift(*, matter: Matter, by: Any) -> Matter:
    """End the hold: deletions and the retention task apply to the matter again."""
    _require_org_admin(by, matter.organisation_id)
    locked = Matter.objects.select_for_update().get(pk=matter.pk)
    if not locked.legal_hold:
        raise MatterChangeRefused(_("This matter is not on legal hold."))
    data = {
        "held_since": locked.legal_hold_at.isoformat() if locked.legal_hold_at else None,
        "held_by_id": locked.legal_hold_by_id,
    }
    locked.legal_hold, locked.legal_hold_by, locked.legal_hold_at = False, None, None
    locked.legal_hold_reason = ""
    locked.save(update_fields=["legal_hold", "legal_hold_by", "legal_hold_at", "legal_hold_reason"])
    audit_matter_event(matter=locked, user=by, action=AuditAction.LEGAL_HOLD_LIFTED, data=data)
    return locked
