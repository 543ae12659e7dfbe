from __future__ import annotations

import secrets
from typing import Any

from django.contrib.auth import get_user_model
from django.core.exceptions import PermissionDenied
from django.db import transaction
from django.utils.translation import gettext as _

from reviewapp.accounts.models import Matter, Membership, Organisation, Role

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
    return created


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
    from reviewapp.audit.models import AuditAction
    from reviewapp.audit.recorders import audit_matter_event

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
    from reviewapp.audit.models import AuditAction
    from reviewapp.audit.recorders import audit_matter_event

    _require_org_admin(by, matter.organisation_id)
    if role not in Role.values:
        raise MatterChangeRefused(_("Choose a role."))
    user = get_user_model().objects.filter(username=username.strip()).first()
    if user is None:
        raise MatterChangeRefused(_("There is no user named “%(name)s”.") % {"name": username})
    if user.pk == by.pk:
        raise MatterChangeRefused(_("Another admin must change your own role."))
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
    from reviewapp.audit.models import AuditAction
    from reviewapp.audit.recorders import audit_matter_event

    _require_org_admin(by, matter.organisation_id)
    membership = Membership.objects.filter(pk=membership_id, matter=matter).first()
    if membership is None:
        raise MatterChangeRefused(_("That person is no longer on this matter."))
    if membership.user_id == by.pk:
        raise MatterChangeRefused(_("Another admin must take you off a matter."))
    data = {"user_id": membership.user_id, "role": membership.role}
    membership.delete()
    audit_matter_event(matter=matter, user=by, action=AuditAction.MEMBER_REMOVED, data=data)
