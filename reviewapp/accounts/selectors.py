"""Every read of matters goes through here, scoped to the user's memberships."""

from __future__ import annotations

from django.contrib.auth.models import AnonymousUser, User
from django.db.models import QuerySet

from reviewapp.accounts.models import Matter, Membership, Organisation, Role

AnyUser = User | AnonymousUser


def matter_list_for_user(*, user: AnyUser) -> QuerySet[Matter]:
    if not user.is_authenticated:
        return Matter.objects.none()
    return (
        Matter.objects.filter(memberships__user=user)
        .select_related("organisation")
        .order_by("organisation__name", "name")
    )


def matter_get_for_user(*, user: AnyUser, matter_id: int) -> Matter | None:
    return matter_list_for_user(user=user).filter(pk=matter_id).first()


def membership_role(*, user: AnyUser, matter_id: int) -> str | None:
    if not user.is_authenticated:
        return None
    membership = Membership.objects.filter(user=user, matter_id=matter_id).only("role").first()
    return membership.role if membership else None


def user_can_access_matter(*, user: AnyUser, matter_id: int) -> bool:
    return membership_role(user=user, matter_id=matter_id) is not None


def organisations_administered(*, user: AnyUser) -> QuerySet[Organisation]:
    """Organisations where the user is an admin of at least one matter."""
    if not user.is_authenticated:
        return Organisation.objects.none()
    admin_of = Membership.objects.filter(user=user, role=Role.ADMIN).values("matter__organisation")
    return Organisation.objects.filter(pk__in=admin_of)


def matter_members(*, matter: Matter) -> QuerySet[Membership]:
    return matter.memberships.select_related("user").order_by("user__username")
