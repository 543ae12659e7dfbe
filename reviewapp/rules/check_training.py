"""Training and measuring the second-stage check from a labelled folder (CUAD layout)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from django.utils import timezone

from reviewapp.contracts.segmentation import segment
from reviewapp.rules.check import training
from reviewapp.rules.check.model import CheckModel
from reviewapp.rules.detect import detect_contract_type
from reviewapp.rules.router import shipped_router_path
from reviewapp.rules.router.model import load_router
from reviewapp.rules.router_training import labelled_folder

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
    log: Log = _quiet,
) -> tuple[CheckModel, dict[str, Any]]:
    examples = check_examples(folder, playbook, folds=folds, log=log)
    meta = {
        "name": f"check-{playbook}",
        "trained_on": folder.name,
        "playbook": playbook,
        "created": timezone.now().isoformat(timespec="seconds"),
    }
    return training.train(examples, folds=folds, recall=recall, meta=meta, log=log)


def check_cross_validated(
    *,
    folder: Path,
    playbook: str = "commercial-en",
    folds: int = 5,
    recall: float = training.DEFAULT_RECALL,
    log: Log = _quiet,
) -> dict[str, Any]:
    """What reaches a lawyer on contracts nobody tuned for: the first stage, then the check,
    each document scored by models trained on other folds, thresholds chosen on the other half."""
    examples = check_examples(folder, playbook, folds=folds, log=log)
    margins = training.out_of_fold(examples, folds=folds)
    scores = training.probabilities(margins, training.calibrate(examples, margins))
    return training.cross_validated_report(examples, scores, recall=recall)


def format_lawyer_figures(report: dict[str, Any]) -> str:
    """The lawyer-facing table of ``check_cross_validated`` (or a trained check's report)."""
    rows = [
        "what reaches a lawyer, by document folds (thresholds chosen on the other half):",
        f"  {'':12} {'recall':>7} {'items/contract':>15} {'labelled passages':>18} "
        f"{'passage prec':>13} {'category prec':>14} {'categories/item':>16}",
    ]
    for name in ("first_stage", "checked"):
        part = report[name]
        label = name.replace("_", " ")
        rows.append(
            f"  {label:12} {part['recall']:7.3f} {part['items_per_contract']:15.1f} "
            f"{part['labelled_passages_per_contract']:18.1f} {part['passage_precision']:13.3f} "
            f"{part['category_precision']:14.3f} {part['categories_per_item']:16.2f}"
        )
    return "\n".join(rows)
