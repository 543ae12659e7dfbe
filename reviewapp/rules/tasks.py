from __future__ import annotations

import logging

from celery import shared_task

from reviewapp.accounts.models import Organisation
from reviewapp.retries import INFRASTRUCTURE_RETRY
from reviewapp.rules.learned.organisation_training import router_train_organisation
from reviewapp.rules.learned.router_training import (
    RouterTrainingError,
    organisations_due_for_retraining,
)

logger = logging.getLogger(__name__)


@shared_task(**INFRASTRUCTURE_RETRY)
def retrain_routers() -> list[int]:
    """Weekly: a new router version (router and check, with the organisation's positive and
    negative examples) for each organisation with new labels (inactive until an admin
    activates it after reading its figures)."""
    due = organisations_due_for_retraining()
    for organisation_id in due:
        retrain_router.delay(organisation_id)
    return due


@shared_task(soft_time_limit=3600, time_limit=3700, acks_late=True, **INFRASTRUCTURE_RETRY)
def retrain_router(organisation_id: int) -> int | None:
    if not organisations_due_for_retraining(only=organisation_id):
        return None  # a second delivery, or nothing new since the last version
    organisation = Organisation.objects.get(pk=organisation_id)
    try:
        version, _report = router_train_organisation(organisation=organisation)
    except RouterTrainingError as error:
        logger.warning("router not retrained for %s: %s", organisation.name, error)
        return None
    return version.pk
