"""Retraining with every kind of label, end to end: false flags reach the router and the check
of the organisation's next version, whose figures stand beside the active version's on the
organisation's own decided items; `train_router --organisation --activate` trains and
activates it, audited like the admins' button; new reviews then run with its router and check."""

from __future__ import annotations

import pytest
import yaml
from django.core.management import call_command
from django.core.management.base import CommandError

from reviewapp.audit.models import AuditEvent
from reviewapp.queue.models import QueueItem
from reviewapp.queue.services import queue_item_claim, queue_item_decide
from reviewapp.reviews.services import review_scan
from reviewapp.rules.checks import check_for
from reviewapp.rules.learned.organisation_training import router_train_organisation
from reviewapp.rules.learned.versions import router_for
from reviewapp.rules.models import RouterVersion
from tests.factories import active_playbook, ingested_contract
from tests.rules import test_router_service
from tests.rules.router_corpus import MFN_CLAUSES, PLAYBOOK, corpus, write_folder

_reviewed = test_router_service._reviewed
small_router = test_router_service.small_router  # the fixture, shared

pytestmark = pytest.mark.django_db


def false_flag(matter, lawyer) -> None:
    """The router names Most Favored Nation on a passage; the lawyer says it is not that."""
    item = QueueItem.objects.get(review=_reviewed(matter))
    queue_item_claim(item_id=item.pk, user=lawyer)
    queue_item_decide(item_id=item.pk, user=lawyer, decision="not_this")


def test_retraining_learns_false_flags_and_reports_them_beside_the_active_version(
    matter,
    small_router,
    lawyer,
    admin,
    client,
    tmp_path,
):
    false_flag(matter, lawyer)
    folder = write_folder(tmp_path / "labelled", corpus(30))
    version, report = router_train_organisation(
        organisation=matter.organisation, folder=folder, folds=3, budget=0.3
    )
    assert not version.is_active and version.decisions == 1
    assert "1 false flags" in version.note
    assert report["decisions"]["false_flags"] == 1
    assert report["decisions"]["false_flags_raised"] is not None
    assert report["decisions_active"]["version"] == small_router.label
    assert report["decisions_active"]["false_flags_raised"] == 1.0  # the active one raised it
    assert report["check"]["false_flags"] == 1 and "check_active" in report
    assert version.check_artefact is not None
    assert version.figures["decisions"]["false_flags"] == 1
    assert version.figures["check"]["false_flags"] == 1
    client.force_login(admin)
    page = client.get("/playbooks/").content.decode()
    assert "of 1 false flag" in page and "still raised by the router" in page
    # Inactive: reviews keep the shipped router and check.
    assert check_for(language="en", organisation_id=matter.organisation_id)[1].startswith(
        "check-en@"
    )


def test_train_router_activate_trains_activates_and_new_reviews_use_it(
    matter,
    small_router,
    lawyer,
    tmp_path,
    capsys,
):
    false_flag(matter, lawyer)
    folder = write_folder(tmp_path / "labelled", corpus(30))
    call_command(
        "train_router",
        str(folder),
        "--organisation",
        matter.organisation.name,
        "--activate",
        "--folds",
        "3",
    )
    version = RouterVersion.objects.get(organisation=matter.organisation)
    assert version.is_active
    assert AuditEvent.objects.filter(
        action="router.activated", target_id=str(version.pk), actor="system"
    ).exists()
    printed = capsys.readouterr()
    assert "active for new reviews" in printed.err
    assert "false flags still raised" in printed.out and "active router" in printed.out
    assert router_for(organisation_id=matter.organisation_id, language="en")[1] == version.label
    with_check = yaml.safe_dump(
        {**PLAYBOOK, "router": {"enabled": True}, "check": {"enabled": True}}, sort_keys=False
    )
    active_playbook(organisation=matter.organisation, source=with_check, name="with-check")
    review = review_scan(
        contract_id=ingested_contract(
            matter=matter, text=f"1. Pricing. {MFN_CLAUSES[0]}\n", name="next.txt"
        ).pk,
        enqueue=False,
    )
    assert review.router_version == version.label
    assert review.check_version == version.check_label


def test_activate_needs_an_organisation(tmp_path):
    folder = write_folder(tmp_path / "labelled", corpus(12))
    with pytest.raises(CommandError, match="--organisation"):
        call_command("train_router", str(folder), "--out", str(tmp_path / "r.npz"), "--activate")
