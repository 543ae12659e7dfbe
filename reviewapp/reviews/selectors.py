from __future__ import annotations

from reviewapp.accounts.selectors import AnyUser, matter_list_for_user
from reviewapp.contracts.models import Contract
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


def review_for_contract(*, contract: Contract) -> Review | None:
    """The contract's review, holding the caller's contract (read once, without its text, not
    again by whatever then asks for ``review.contract``)."""
    review = (
        Review.objects.filter(contract=contract)
        .select_related("playbook_version__playbook")
        .first()
    )
    if review is not None:
        review.contract = contract
    return review
