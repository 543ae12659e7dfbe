from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db import DatabaseError

from reviewapp.accounts.models import Organisation
from reviewapp.rules.learned.check_training import check_cross_validated, format_lawyer_figures
from reviewapp.rules.learned.router_training import RouterTrainingError, folder_examples
from reviewapp.rules.learned.training_labels import score_on_decisions
from reviewapp.rules.models import Playbook
from reviewapp.rules.services import DEFAULTS_DIR, playbook_compiled
from reviewapp.text.evaluation import (
    LabelsUnreadable,
    evaluate,
    format_table,
    is_labelled_folder,
    read_labelled_folder,
)
from reviewapp.text.router import shipped_router_path, training
from reviewapp.text.router.model import RouterFileInvalid, load_router

from .train_router import format_report


class Command(BaseCommand):
    help = (
        "Measure a playbook against a labelled folder (labels.jsonl in the CUAD format, see "
        "README): per-category recall and precision, routed share, overall figures. "
        "--router cross-validate scores rules, router and both by document folds (no document "
        "is scored by a model that saw it): the estimate for contracts nobody tuned on."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("directory", metavar="DIR")
        parser.add_argument(
            "--playbook",
            default="commercial-en",
            help="a playbook name in the database, a shipped playbook name, or a YAML file",
        )
        parser.add_argument(
            "--router",
            default="off",
            help="off (rules only), shipped (the shipped model: only for documents it was not "
            "trained on), a model FILE, or cross-validate (train and score by folds)",
        )
        parser.add_argument(
            "--check",
            choices=["off", "cross-validate"],
            default="off",
            help="cross-validate: what reaches a lawyer (items per contract, passage and "
            "category precision, categories per item), first stage and with the second-stage "
            "check, by document folds",
        )
        parser.add_argument("--folds", type=int, default=5)
        parser.add_argument(
            "--organisation", help="score on this organisation's lawyers' decisions instead"
        )
        parser.add_argument("--format", choices=["json", "table"], default="table")

    def handle(self, *args: Any, **options: Any) -> None:
        folder = Path(options["directory"])
        if not is_labelled_folder(folder):
            raise CommandError(
                f"{folder} has no labels.jsonl and no *.labels.json "
                "(see README: evaluate_playbook)."
            )
        if options["check"] == "cross-validate":
            report = self._check(folder, options)
        elif options["organisation"]:
            report = self._decisions(options)
        elif options["router"] == "cross-validate":
            report = self._cross_validated(folder, options)
        else:
            router = self._router(options["router"])
            try:
                documents, categories = read_labelled_folder(folder)
            except LabelsUnreadable as error:
                raise CommandError(str(error)) from error
            playbook = self._playbook(options["playbook"])
            report = evaluate(documents, playbook, categories=categories, router=router)
        if options["format"] == "json":
            self.stdout.write(json.dumps(report, indent=2, ensure_ascii=False))
        elif options["check"] == "cross-validate":
            self.stdout.write(format_lawyer_figures(report))
        elif options["organisation"]:
            self.stdout.write(_decisions_table(report))
        elif "rules" in report:
            self.stdout.write(format_report(report))
        else:
            self.stdout.write(format_table(report))

    def _cross_validated(self, folder: Path, options: dict[str, Any]) -> dict[str, Any]:

        try:
            examples, categories = folder_examples(folder, options["playbook"])
        except RouterTrainingError as error:
            raise CommandError(str(error)) from error
        scores = training.out_of_fold(examples, categories, folds=options["folds"])
        return training.cross_validated_report(examples, scores)

    def _check(self, folder: Path, options: dict[str, Any]) -> dict[str, Any]:

        try:
            return check_cross_validated(
                folder=folder,
                playbook=options["playbook"],
                folds=options["folds"],
                log=lambda line: self.stderr.write(line),
            )
        except RouterTrainingError as error:
            raise CommandError(str(error)) from error

    def _decisions(self, options: dict[str, Any]) -> dict[str, Any]:

        organisation = Organisation.objects.filter(name=options["organisation"]).first()
        if organisation is None:
            raise CommandError(f"No organisation named {options['organisation']!r}.")
        router = self._router(options["router"])
        return score_on_decisions(
            organisation=organisation,
            playbook=self._playbook(options["playbook"]),
            router=router,
        )

    def _router(self, name: str) -> Any:
        if name == "off":
            return None
        path = shipped_router_path() if name == "shipped" else Path(name)
        if not path.is_file():
            raise CommandError(f"No router model at {path}.")
        try:
            return load_router(path)
        except RouterFileInvalid as error:
            raise CommandError(str(error)) from error

    def _playbook(self, name: str) -> Any:
        path = Path(name)
        if path.suffix in (".yaml", ".yml") and path.is_file():
            return path
        try:
            playbook = Playbook.objects.filter(name=name).order_by("organisation_id").first()
            version = playbook.versions.order_by("-number").first() if playbook else None
        except DatabaseError:  # no database yet (not migrated): the shipped files still work
            version = None
        if version is not None:
            return playbook_compiled(version)
        shipped = DEFAULTS_DIR / f"{name}.yaml"
        if shipped.is_file():
            return shipped
        raise CommandError(f"No playbook named {name!r}.")


def _decisions_table(report: dict[str, Any]) -> str:
    rows = [f"{'category':36} {'decided':>7} {'flagged':>7} {'recall':>7}"]
    for category, row in report["categories"].items():
        rows.append(
            f"{category[:36]:36} {row['labelled']:7d} {row['caught']:7d} {row['recall']:7.3f}"
        )
    recall = report["recall"]
    hard = report["recall_not_acceptable"]
    rows.append(
        f"\n{report['organisation']}: {report['labels']} decided passages and categories, "
        f"flagged today {'-' if recall is None else f'{recall:.3f}'}; of those a lawyer found "
        f"not acceptable {'-' if hard is None else f'{hard:.3f}'}"
    )
    return "\n".join(rows)
