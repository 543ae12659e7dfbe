"""A lawyer reopens a flag the second-stage check dropped: the passage goes to the queue."""

from __future__ import annotations

from typing import Any

from django.db import transaction

from reviewapp.accounts.models import Role
from reviewapp.accounts.selectors import membership_role
from reviewapp.contracts.models import Passage, PassageState
from reviewapp.reviews.models import ActorKind, Review, RuleFiring
from reviewapp.reviews.reasons import CATEGORY_NOT_PRESENT, FLAG_REOPENED
from reviewapp.reviews.states import REOPEN_FLOW, TransitionNotAllowed
from reviewapp.reviews.transitions import (
    hand_to_lawyers,
    passage_move,
    passage_state_publish,
    review_refresh_status,
)

DECIDERS = frozenset({Role.LAWYER, Role.ADMIN})


class ReopenRefused(Exception):
    """Not a lawyer of the matter, or not a passage the check settled."""


def passage_flag_reopen(*, passage_id: int, user: Any) -> Passage:
    """CONFIRMED by the check -> NEEDS_HUMAN_REVIEW (actor: the lawyer), its dropped categories
    standing again, a queue item opened for the matter's lawyers; audited like every move."""
    with transaction.atomic():
        passage = Passage.objects.select_for_update().select_related("contract").get(pk=passage_id)
        if membership_role(user=user, matter_id=passage.contract.matter_id) not in DECIDERS:
            raise ReopenRefused("Only the matter's lawyers and admins may reopen a flag.")
        review = Review.objects.select_for_update().get(contract_id=passage.contract_id)
        verification = getattr(passage, "verification", None)
        settled_by_check = verification is not None and verification.reason == CATEGORY_NOT_PRESENT
        if passage.state != PassageState.CONFIRMED or not settled_by_check:
            raise ReopenRefused("Only a flag the second-stage check settled can be reopened.")
        try:
            passage_move(
                passage=passage,
                review=review,
                to_state=PassageState.NEEDS_HUMAN_REVIEW,
                actor_kind=ActorKind.USER,
                actor=user.get_username(),
                reason=FLAG_REOPENED,
                flow=REOPEN_FLOW,
            )
        except TransitionNotAllowed as error:
            raise ReopenRefused(str(error)) from error
        RuleFiring.objects.filter(passage=passage).update(dropped=False)
        hand_to_lawyers(passage, review, FLAG_REOPENED)
        review_refresh_status(review=review)
        passage_state_publish(review=review, passage=passage)
    return passage
