"""Training and measuring the second-stage check from a labelled folder (CUAD layout), and an
organisation's check: the folder plus its lawyers' labels (a false flag is a negative
candidate, a clause found there a positive one)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from django.utils import timezone

from reviewapp.rules.learned.router_training import labelled_folder
from reviewapp.rules.learned.training_labels import DecisionLabel, decided_passages
from reviewapp.text.check import training
from reviewapp.text.check.model import CheckModel
from reviewapp.text.contract_type import detect_contract_type
from reviewapp.text.router import shipped_router_path
from reviewapp.text.router.model import RouterModel, load_router
from reviewapp.text.segmentation import segment

Log = Callable[[str], None]


def _quiet(line: str) -> None:
    return None


def check_examples(
    folder: Path, playbook: str = "commercial-en", *, folds: int = 5, log: Log = _quiet
) -> list[training.CheckExample]:
    """Every labelled document's candidates, with router scores out of fold (a few minutes)."""
    compiled, documents, categories = labelled_folder(folder, playbook, minimum=2 * folds)
    language = compiled.playbook.language
    router = (
        load_router(shipped_router_path(language)) if compiled.playbook.router.enabled else None
    )
    return training.examples_from_documents(
        documents,
        categories,
        compiled,
        router=router,
        segmenter=segment,
        contract_type=detect_contract_type,
        folds=folds,
        log=log,
    )


def check_train_from_folder(
    *,
    folder: Path,
    playbook: str = "commercial-en",
    folds: int = 5,
    recall: float = training.DEFAULT_RECALL,
    passage_recall: float = training.DEFAULT_PASSAGE_RECALL,
    log: Log = _quiet,
) -> tuple[CheckModel, dict[str, Any]]:
    examples = check_examples(folder, playbook, folds=folds, log=log)
    meta = {
        "name": f"check-{playbook}",
        "trained_on": folder.name,
        "playbook": playbook,
        "created": timezone.now().isoformat(timespec="seconds"),
    }
    return training.train(
        examples,
        folds=folds,
        recall=recall,
        passage_recall=passage_recall,
        meta=meta,
        log=log,
    )


def check_train_organisation(
    *,
    labels: list[DecisionLabel],
    folder: Path,
    playbook: str = "commercial-en",
    folds: int = 5,
    recall: float = training.DEFAULT_RECALL,
    passage_recall: float = training.DEFAULT_PASSAGE_RECALL,
    router: RouterModel | None = None,
    log: Log = _quiet,
) -> tuple[CheckModel, dict[str, Any]]:
    """The check trained on the folder's documents and the organisation's labelled passages.
    Each labelled passage's candidates are what ``router`` (the one whose flags the lawyers
    answered: the organisation's reviews' router; default the shipped one) and the rules name
    on it; for the figures each is scored by checks trained on the other folds:
    ``report["decisions"]`` says how many of the lawyers' false flags it drops and how many of
    their clauses it keeps."""
    compiled, _documents, _categories = labelled_folder(folder, playbook, minimum=2 * folds)
    base = check_examples(folder, playbook, folds=folds, log=log)
    if router is None and compiled.playbook.router.enabled:
        router = load_router(shipped_router_path(compiled.playbook.language))
    decided = training.examples_from_passages(decided_passages(labels), compiled, router=router)
    examples = base + decided
    log(f"{len(base)} documents and {len(decided)} labelled passages")
    scored = training.scored_out_of_fold(examples, folds=folds)
    report = training.cross_validated_report(
        base,
        scored.scores[: len(base)],
        recall=recall,
        blends=scored.blends[: len(base)],
        passage_recall=passage_recall,
    )
    meta = {
        "name": f"check-{playbook}",
        "trained_on": f"{folder.name} + {len(decided)} labelled passages",
        "playbook": playbook,
        "created": timezone.now().isoformat(timespec="seconds"),
    }
    model = training.fitted(
        examples, scored, recall=recall, passage_recall=passage_recall, meta=meta
    )
    rows = range(len(base), len(examples))
    report["decisions"] = decision_check_figures(examples, scored, model, rows)
    model.meta.update({"documents": len(examples), "folds": folds, "cross_validated": report})
    return model, report


def decision_check_figures(
    examples: list[training.CheckExample],
    scored: training.Scored,
    model: CheckModel,
    rows: Any,
) -> dict[str, Any]:
    """Out of fold, on the lawyers' labelled passages: false flags the check drops, and
    clauses (acceptable or not, or flagged) it keeps, of the candidates the first stage names."""
    negatives = [0, 0]  # candidates, dropped
    positives = [0, 0]  # candidates, kept
    for i in rows:
        example, score, blend = examples[i], scored.scores[i], scored.blends[i]
        for k, candidate in enumerate(example.candidates):
            if not example.judged[k]:
                continue
            stands = candidate.hard or model.stands(
                candidate.category, float(score[k]), float(blend[k])
            )
            tally = positives if example.target[k] else negatives
            tally[0] += 1
            tally[1] += stands if example.target[k] else not stands
    return {
        "false_flags": negatives[0],
        "false_flags_dropped": negatives[1] / negatives[0] if negatives[0] else None,
        "clauses": positives[0],
        "clauses_kept": positives[1] / positives[0] if positives[0] else None,
    }


def check_cross_validated(
    *,
    folder: Path,
    playbook: str = "commercial-en",
    folds: int = 5,
    recall: float = training.DEFAULT_RECALL,
    passage_recall: float = training.DEFAULT_PASSAGE_RECALL,
    log: Log = _quiet,
) -> dict[str, Any]:
    """What reaches a lawyer on contracts nobody tuned for: the first stage, then the check,
    each document scored by models trained on other folds, thresholds chosen on the other half."""
    examples = check_examples(folder, playbook, folds=folds, log=log)
    scored = training.scored_out_of_fold(examples, folds=folds)
    report = training.cross_validated_report(
        examples,
        scored.scores,
        recall=recall,
        blends=scored.blends,
        passage_recall=passage_recall,
    )
    report["without_gate"] = training.cross_validated_report(
        examples, scored.scores, recall=recall
    )["checked"]
    return report


def format_lawyer_figures(report: dict[str, Any]) -> str:
    """The lawyer-facing table of ``check_cross_validated`` (or a trained check's report)."""
    rows = [
        "what reaches a lawyer, by document folds (thresholds chosen on the other half):",
        f"  {'':12} {'recall':>7} {'items/contract':>15} {'labelled passages':>18} "
        f"{'passage prec':>13} {'category prec':>14} {'categories/item':>16}",
    ]
    names = {"first_stage": "first stage", "without_gate": "check alone", "checked": "checked"}
    for name, label in names.items():
        if name not in report:
            continue
        part = report[name]
        rows.append(
            f"  {label:12} {part['recall']:7.3f} {part['items_per_contract']:15.1f} "
            f"{part['labelled_passages_per_contract']:18.1f} {part['passage_precision']:13.3f} "
            f"{part['category_precision']:14.3f} {part['categories_per_item']:16.2f}"
            + _boilerplate(part)
        )
    return "\n".join(rows)


def _boilerplate(part: dict[str, Any]) -> str:
    """Where the labels mark boilerplate (the quoted layout), how much of it reaches a lawyer."""
    if not part.get("boilerplate"):
        return ""
    return (
        f"   boilerplate reaching a lawyer {part['boilerplate_reached']} of {part['boilerplate']}"
    )
