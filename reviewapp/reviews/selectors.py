from __future__ import annotations

from reviewapp.accounts.selectors import AnyUser, matter_list_for_user
from reviewapp.reviews.models import Review, Verification


def review_get_for_user(*, user: AnyUser, review_id: int) -> Review | None:
    return (
        Review.objects.filter(pk=review_id, contract__matter__in=matter_list_for_user(user=user))
        .select_related("contract", "playbook_version__playbook")
        .first()
    )


def verification_get_for_user(*, user: AnyUser, verification_id: int) -> Verification | None:
    return (
        Verification.objects.filter(
            pk=verification_id, review__contract__matter__in=matter_list_for_user(user=user)
        )
        .select_related("passage")
        .first()
    )
