"""The router in the app: a review runs with it, lawyers' decisions become labels, an
organisation retrains and an admin activates the new version."""

from __future__ import annotations

import hashlib
import json

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from reviewapp.audit.models import AuditEvent
from reviewapp.contracts.models import PassageState
from reviewapp.queue.models import QueueItem
from reviewapp.queue.services import queue_item_claim, queue_item_decide
from reviewapp.reviews.model_work import verifications_run
from reviewapp.reviews.models import RuleFiring, Verification
from reviewapp.reviews.services import review_scan
from reviewapp.rules.learned.organisation_training import router_train_organisation
from reviewapp.rules.learned.router_training import organisations_due_for_retraining
from reviewapp.rules.learned.training_labels import decision_labels
from reviewapp.rules.learned.versions import router_for
from reviewapp.rules.models import RouterVersion
from reviewapp.rules.tasks import retrain_router
from reviewapp.text.engine.model import router_rule_id
from reviewapp.text.router import training
from reviewapp.text.router.model import load_router
from reviewapp.text.segmentation import segment
from tests.factories import active_playbook, ingested_contract
from tests.rules.router_corpus import (
    BOILERPLATE,
    CAP,
    MFN,
    MFN_CLAUSES,
    corpus,
    playbook_source,
    write_folder,
)

pytestmark = pytest.mark.django_db

CONTRACT = f"1. Pricing. {MFN_CLAUSES[3]}\n\n2. Counterparts. {BOILERPLATE[1]}\n"


@pytest.fixture
def small_router(db):
    """A model trained on the synthetic corpus, installed as the newest shipped version."""
    examples = training.examples_from_documents(
        corpus(), [MFN, CAP], scanner=None, segmenter=segment
    )
    model = training.fit(examples, [MFN, CAP])
    model.thresholds = {MFN: 0.5, CAP: 0.5}
    model.meta["attach_margin"] = 1.5
    data = model.to_bytes()
    newest = RouterVersion.objects.filter(organisation=None, language="en").count()
    return RouterVersion.objects.create(
        organisation=None,
        language="en",
        number=newest + 100,
        artefact=data,
        sha256=hashlib.sha256(data).hexdigest(),
        is_active=True,
    )


def _reviewed(matter, text=CONTRACT):
    active_playbook(organisation=matter.organisation, source=playbook_source(enabled=True))
    review = review_scan(contract_id=ingested_contract(matter=matter, text=text).pk, enqueue=False)
    pending = list(Verification.objects.filter(review=review).values_list("pk", flat=True))
    verifications_run(review_id=review.pk, verification_ids=pending)
    return review


def test_a_clause_only_the_router_knows_is_flagged_and_reaches_a_lawyer(matter, small_router):
    review = _reviewed(matter)
    assert review.router_version == small_router.label
    firing = RuleFiring.objects.get(review=review, rule_id=router_rule_id(MFN))
    assert firing.action == "verify" and firing.severity == "high"
    assert 0.5 <= firing.score <= 1 and firing.words
    passage = firing.passage
    assert "no higher than the fees" in passage.text
    passage.refresh_from_db()
    # The offline engine cannot settle a router flag: a lawyer decides.
    assert passage.state == PassageState.NEEDS_HUMAN_REVIEW
    assert QueueItem.objects.filter(passage=passage).exists()
    boilerplate = review.contract.passages.get(text__contains="counterparts")
    assert boilerplate.state == PassageState.CONFIRMED


def test_queue_and_review_page_say_the_router_fired_and_why(client, matter, small_router, lawyer):
    review = _reviewed(matter)
    client.force_login(lawyer)
    queue = client.get("/queue/").content.decode()
    assert "the learned router (" in queue and "words that weighed most:" in queue
    page = client.get(f"/contracts/{review.contract_id}/").content.decode()
    assert "learned router: Most Favored Nation" in page


def test_router_off_in_the_playbook_means_no_router_flags(matter, small_router):
    active_playbook(organisation=matter.organisation, source=playbook_source(enabled=False))
    review = review_scan(
        contract_id=ingested_contract(matter=matter, text=CONTRACT).pk, enqueue=False
    )
    assert review.router_version == ""
    assert not RuleFiring.objects.filter(review=review, rule_id__startswith="router.").exists()


def _decide(item: QueueItem, lawyer, decision: str) -> None:
    queue_item_claim(item_id=item.pk, user=lawyer)
    queue_item_decide(item_id=item.pk, user=lawyer, decision=decision, note="seen")


def test_decided_items_are_labels_and_retraining_stores_an_inactive_version(
    matter, small_router, lawyer, admin, client, tmp_path
):
    review = _reviewed(matter)
    item = QueueItem.objects.get(review=review)
    _decide(item, lawyer, "reject")
    labels = decision_labels(organisation_id=matter.organisation_id)
    assert [(label.category, label.acceptable) for label in labels] == [(MFN, False)]
    assert "no higher than the fees" in labels[0].view.text
    assert organisations_due_for_retraining() == [matter.organisation_id]

    folder = write_folder(tmp_path / "labelled", corpus(30))
    version, report = router_train_organisation(
        organisation=matter.organisation, folder=folder, folds=3, budget=0.3
    )
    assert not version.is_active and version.decisions == 1
    assert report["decisions"]["labels"] == 1 and "both" in report
    assert version.figures["both"]["recall"] is not None
    assert AuditEvent.objects.filter(action="router.trained", target_id=str(version.pk)).exists()
    assert organisations_due_for_retraining() == []
    assert retrain_router(matter.organisation_id) is None  # nothing new: no second version
    # Until an admin activates it, reviews keep the shipped model.
    assert (
        router_for(organisation_id=matter.organisation_id, language="en")[1] == small_router.label
    )

    client.force_login(admin)
    listing = client.get("/playbooks/").content.decode()
    assert version.label in listing and "Activate" in listing
    response = client.post(f"/routers/{version.pk}/activate/")
    assert response.status_code == 302
    version.refresh_from_db()
    assert version.is_active
    assert router_for(organisation_id=matter.organisation_id, language="en")[1] == version.label
    assert AuditEvent.objects.filter(action="router.activated", actor="ada").exists()


def test_a_lawyer_cannot_activate_a_router(client, matter, lawyer, small_router):
    version = RouterVersion.objects.create(
        organisation=matter.organisation,
        number=1,
        artefact=bytes(small_router.artefact),
        sha256=small_router.sha256,
    )
    client.force_login(lawyer)
    assert client.post(f"/routers/{version.pk}/activate/").status_code == 404
    version.refresh_from_db()
    assert not version.is_active


def test_train_router_command_writes_a_model_and_prints_held_out_figures(tmp_path, capsys):
    folder = write_folder(tmp_path / "labelled", corpus(30))
    out = tmp_path / "router.npz"
    call_command("train_router", str(folder), "--out", str(out), "--folds", "3")
    printed = capsys.readouterr().out
    assert "rules" in printed and "router" in printed and "both" in printed
    model = load_router(out)
    assert set(model.categories) == {MFN, CAP} or MFN in model.categories
    assert model.thresholds and model.meta["cross_validated"]["both"]["recall"] > 0


def test_train_router_says_where_the_model_goes(tmp_path):
    folder = write_folder(tmp_path / "labelled", corpus(12))
    with pytest.raises(CommandError, match="--out"):
        call_command("train_router", str(folder))
    with pytest.raises(CommandError, match="labels.jsonl"):
        call_command("train_router", str(tmp_path), "--out", str(tmp_path / "x.npz"))


def test_evaluate_playbook_cross_validates_rules_router_and_both(tmp_path, capsys):
    folder = write_folder(tmp_path / "labelled", corpus(30))
    call_command("evaluate_playbook", str(folder), "--router", "cross-validate", "--folds", "3")
    printed = capsys.readouterr().out
    assert "held-out" in printed and "both" in printed


def test_evaluate_playbook_scores_on_an_organisations_decisions(
    matter, small_router, lawyer, capsys, tmp_path
):
    review = _reviewed(matter)
    _decide(QueueItem.objects.get(review=review), lawyer, "reject")
    folder = write_folder(tmp_path / "labelled", corpus(12))
    model_file = tmp_path / "router.npz"
    model_file.write_bytes(bytes(small_router.artefact))
    call_command(
        "evaluate_playbook",
        str(folder),
        "--organisation",
        matter.organisation.name,
        "--router",
        str(model_file),
        "--playbook",
        str(write_playbook(tmp_path)),
        "--format",
        "json",
    )
    report = json.loads(capsys.readouterr().out)
    assert report["labels"] == 1
    assert report["recall"] == 1.0 and report["recall_not_acceptable"] == 1.0
    call_command(
        "evaluate_playbook",
        str(folder),
        "--organisation",
        matter.organisation.name,
        "--playbook",
        str(write_playbook(tmp_path)),
        "--format",
        "json",
    )
    assert json.loads(capsys.readouterr().out)["recall"] == 0.0  # the rules alone miss it
    call_command("evaluate_playbook", str(folder), "--organisation", matter.organisation.name)
    assert "not acceptable" in capsys.readouterr().out


def write_playbook(folder):
    path = folder / "router-test.yaml"
    path.write_text(playbook_source(enabled=True), encoding="utf-8")
    return path
