"""Training the learned router from a labelled folder and an organisation's decisions."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from django.conf import settings
from django.utils import timezone

from reviewapp.accounts.models import Organisation
from reviewapp.rules.learned.training_labels import (
    DecisionLabel,
    decided_since,
    decision_labels,
    label_examples,
    labels_by_contract,
    router_decision_figures,
)
from reviewapp.rules.learned.versions import router_for
from reviewapp.rules.models import RouterVersion
from reviewapp.rules.services import DEFAULTS_DIR
from reviewapp.text.contract_type import detect_contract_type
from reviewapp.text.engine import CompiledPlaybook, compile_playbook, load_playbook, scan
from reviewapp.text.evaluation import LabelsUnreadable, read_labelled_folder
from reviewapp.text.router import training
from reviewapp.text.router.model import RouterModel
from reviewapp.text.segmentation import segment

Log = Callable[[str], None]


class RouterTrainingError(Exception):
    pass


def _quiet(line: str) -> None:
    return None


def rule_scanner(compiled: CompiledPlaybook) -> Callable[[str, Any], tuple[list, list]]:
    """Per passage: did a routing rule fire, and the categories of every rule that did."""

    def run(text: str, segments: Any) -> tuple[list[bool], list[frozenset[str]]]:
        hits = scan(compiled, text, segments, contract_type=detect_contract_type(text))
        routed = [False] * len(segments)
        fired: list[set[str]] = [set() for _ in segments]
        for hit in hits:
            fired[hit.segment_index].add(hit.category)
            routed[hit.segment_index] |= compiled.routes(hit.rule_id)
        return routed, [frozenset(found) for found in fired]

    return run


def labelled_folder(
    folder: Path, playbook: str, *, minimum: int
) -> tuple[CompiledPlaybook, list[Any], list[str]]:
    """A shipped playbook compiled, and a labelled folder's documents and clause categories;
    RouterTrainingError with a sentence for a user when either is missing or too small."""
    path = DEFAULTS_DIR / f"{playbook}.yaml"
    if not path.is_file():
        raise RouterTrainingError(f"No shipped playbook named {playbook!r}.")
    try:
        documents, categories = read_labelled_folder(folder)
    except LabelsUnreadable as error:
        raise RouterTrainingError(str(error)) from error
    if len(documents) < minimum:
        raise RouterTrainingError(
            f"{folder}: {len(documents)} documents; at least {minimum} are needed."
        )
    return compile_playbook(load_playbook(path)), list(documents), categories


def folder_examples(
    folder: Path, playbook: str = "commercial-en"
) -> tuple[list[training.Example], list[str]]:
    compiled, documents, categories = labelled_folder(folder, playbook, minimum=10)
    examples = training.examples_from_documents(
        documents, categories, scanner=rule_scanner(compiled), segmenter=segment
    )
    return examples, categories


def router_train_from_folder(
    *,
    folder: Path,
    playbook: str = "commercial-en",
    folds: int = 5,
    budget: float | None = None,
    log: Log = _quiet,
) -> tuple[RouterModel, dict[str, Any]]:
    examples, categories = folder_examples(folder, playbook)
    log(f"{len(examples)} documents, {sum(len(e.views) for e in examples)} passages")
    meta = {"trained_on": str(folder.name), "playbook": playbook, "created": _now()}
    return training.train(
        examples,
        categories,
        folds=folds,
        budget=budget or training.DEFAULT_BUDGET,
        meta=meta,
        log=log,
    )


def router_fit_organisation(
    *,
    organisation: Any,
    folder: Path | None = None,
    playbook: str = "commercial-en",
    folds: int = 5,
    budget: float | None = None,
    log: Log = _quiet,
    without_decisions: bool = False,
) -> tuple[RouterModel, dict[str, Any], list[DecisionLabel], Path]:
    """The router trained on the base data plus the organisation's labels (not stored), its
    report, the labels it learnt and the base folder. ``report["decisions"]``: out of fold,
    each of the organisation's contracts scored by a router trained without it, how many of
    its lawyers' clauses the router flags and how many of their false flags it still raises;
    ``report["decisions_active"]``: the same for the router its reviews use now.
    ``without_decisions`` trains on the base data alone when there is no decision yet (a
    benchmark's baseline); otherwise an organisation with nothing decided is refused."""
    base_folder = folder or _base_folder()
    base, categories = folder_examples(base_folder, playbook)
    labels = [
        label
        for label in decision_labels(organisation_id=organisation.pk)
        if label.category in categories
    ]
    if not labels and not without_decisions:
        raise RouterTrainingError(f"{organisation.name} has no decided items to learn from.")
    decisions = label_examples(labels)
    grouped = labels_by_contract(labels)
    examples = base + decisions
    negatives = sum(not label.positive for label in labels)
    log(
        f"{len(base)} documents and {len(decisions)} contracts of decisions "
        f"({len(labels)} labels, {negatives} false flags)"
    )
    scores = training.out_of_fold(examples, categories, folds=folds)
    base_rows = list(range(len(base)))
    limit = budget or training.DEFAULT_BUDGET
    report = training.cross_validated_report(examples, scores, budget=limit, only=base_rows)
    thresholds = training.choose_thresholds(examples, scores, budget=limit, only=base_rows)
    report["decisions"] = router_decision_figures(
        grouped, scores.by_example[len(base) :], list(categories), thresholds
    )
    report["decisions_active"] = _active_figures(organisation, grouped)
    model = training.fit(
        examples,
        categories,
        meta={"trained_on": f"{base_folder.name} + {organisation.name}", "created": _now()},
    )
    model.thresholds = thresholds
    model.meta["attach_margin"] = training.ATTACH_MARGIN
    model.meta["figures"] = _figures(report)
    return model, report, labels, base_folder


def _active_figures(organisation: Any, grouped: list[list[list[DecisionLabel]]]) -> dict:
    """The router the organisation's reviews use now, on the same labelled passages (it may
    have learnt some of them: an earlier version of the organisation's own)."""
    model, label = router_for(organisation_id=organisation.pk, language="en")
    if model is None:
        return {}
    probabilities = [
        model.probabilities([group[0].view for group in passages]) for passages in grouped
    ]
    figures = router_decision_figures(
        grouped, probabilities, list(model.categories), dict(model.thresholds)
    )
    return {"version": label, **figures}


def _figures(report: dict[str, Any]) -> dict[str, Any]:
    return {
        name: {k: v for k, v in part.items() if k != "categories"}
        for name, part in report.items()
        if isinstance(part, dict)
    }


def _base_folder() -> Path:
    folder = Path(settings.ROUTER_TRAINING_DATA) if settings.ROUTER_TRAINING_DATA else None
    if folder is None or not (folder / "labels.jsonl").is_file():
        raise RouterTrainingError(
            "ROUTER_TRAINING_DATA must name a labelled folder (labels.jsonl) to retrain on."
        )
    return folder


def organisations_due_for_retraining(*, only: int | None = None) -> list[int]:
    """Organisations (or just ``only``) with decisions newer than their newest router version,
    or with decisions and no version yet."""
    organisations = Organisation.objects.all()
    if only is not None:
        organisations = organisations.filter(pk=only)
    due = []
    for organisation_id in organisations.values_list("pk", flat=True):
        latest = (
            RouterVersion.objects.filter(organisation_id=organisation_id)
            .order_by("-created_at")
            .values_list("created_at", flat=True)
            .first()
        )
        if decided_since(organisation_id=organisation_id, since=latest):
            due.append(organisation_id)
    return due


def _now() -> str:
    return timezone.now().isoformat(timespec="seconds")
