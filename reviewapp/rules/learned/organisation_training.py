"""An organisation's retraining: the router and the second-stage check, each on the shipped
labelled data plus the organisation's lawyers' labels (clauses found there, acceptable or not,
and flags a lawyer raised, as positive examples; false flags as negative ones), stored as the
organisation's next router version with its check, inactive until an admin activates it after
reading its figures beside the active version's on the organisation's own decided items (each
contract held out whole by the folds)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from reviewapp.rules.checks import check_for
from reviewapp.rules.learned.check_training import check_train_organisation, decision_check_figures
from reviewapp.rules.learned.router_training import router_fit_organisation
from reviewapp.rules.learned.training_labels import DecisionLabel, decided_passages
from reviewapp.rules.learned.versions import (
    router_for,
    router_version_activate,
    router_version_create,
)
from reviewapp.rules.models import RouterVersion
from reviewapp.rules.services import DEFAULTS_DIR
from reviewapp.text.check import shipped_check_path
from reviewapp.text.check.training import examples_from_passages, scored_by
from reviewapp.text.engine import compile_playbook, load_playbook
from reviewapp.text.router import shipped_router_path
from reviewapp.text.router.model import RouterModel, load_router

Log = Callable[[str], None]


def _quiet(line: str) -> None:
    return None


def router_train_organisation(
    *,
    organisation: Any,
    folder: Path | None = None,
    playbook: str = "commercial-en",
    folds: int = 5,
    budget: float | None = None,
    log: Log = _quiet,
    activate: bool = False,
    activated_by: Any = None,
    without_decisions: bool = False,
) -> tuple[RouterVersion, dict[str, Any]]:
    """Retrain and store the organisation's next version (router, and check where the playbook
    has the check on and one ships); with ``activate``, make it the one new reviews use
    (audited as the admins' button is: ``router.activated``)."""
    model, report, labels, base_folder = router_fit_organisation(
        organisation=organisation,
        folder=folder,
        playbook=playbook,
        folds=folds,
        budget=budget,
        log=log,
        without_decisions=without_decisions,
    )
    check = None
    if _check_wanted(playbook):
        # The candidates of the lawyers' passages: what the router in use named there.
        in_use, _label = router_for(organisation_id=organisation.pk, language="en")
        check, check_report = check_train_organisation(
            labels=labels,
            folder=base_folder,
            playbook=playbook,
            folds=folds,
            router=in_use,
            log=log,
        )
        report["check"] = check_report["decisions"]
        report["check_active"] = _active_check_figures(organisation, labels, playbook, in_use)
        model.meta["figures"] = {
            **model.meta.get("figures", {}),
            "check": report["check"],
            "check_active": report["check_active"],
        }
    negatives = sum(not label.positive for label in labels)
    version = router_version_create(
        organisation=organisation,
        model=model,
        decisions=len(labels),
        note=f"Retrained on {len(labels)} labels ({negatives} false flags)",
        check=check,
    )
    if activate:
        router_version_activate(version=version, activated_by=activated_by)
    return version, report


def _check_wanted(playbook: str) -> bool:
    compiled = compile_playbook(load_playbook(DEFAULTS_DIR / f"{playbook}.yaml"))
    language = compiled.playbook.language
    return compiled.playbook.check.enabled and shipped_check_path(language).is_file()


def _active_check_figures(
    organisation: Any, labels: list[DecisionLabel], playbook: str, router: RouterModel | None
) -> dict[str, Any]:
    """The check the organisation's reviews use now, on its labelled passages."""
    compiled = compile_playbook(load_playbook(DEFAULTS_DIR / f"{playbook}.yaml"))
    language = compiled.playbook.language
    check, label = check_for(language=language, organisation_id=organisation.pk)
    if check is None:
        return {}
    router = (
        load_router(shipped_router_path(language)) if compiled.playbook.router.enabled else None
    )
    examples = examples_from_passages(decided_passages(labels), compiled, router=router)
    scored = scored_by(check, examples)
    figures = decision_check_figures(examples, scored, check, range(len(examples)))
    return {"version": label, **figures}
