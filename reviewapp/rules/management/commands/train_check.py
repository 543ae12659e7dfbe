from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from reviewapp.rules.learned.check_training import check_train_from_folder, format_lawyer_figures
from reviewapp.rules.learned.router_training import RouterTrainingError
from reviewapp.text.check.training import DEFAULT_PASSAGE_RECALL, DEFAULT_RECALL
from reviewapp.text.evaluation import is_labelled_folder


class Command(BaseCommand):
    help = (
        "Train the second-stage check from a labelled folder (labels.jsonl in the CUAD format): "
        "router scores and the check's own by document folds, calibrated, thresholds chosen to "
        "keep --recall of the clauses the first stage caught, and the passage gate's to keep "
        "--passage-recall of those. Prints what reaches a lawyer, first stage, check alone and "
        "checked, on held-out documents."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("directory", metavar="DIR")
        parser.add_argument("--out", type=Path, required=True, help="write the model file here")
        parser.add_argument("--playbook", default="commercial-en", help="shipped playbook name")
        parser.add_argument("--folds", type=int, default=5)
        parser.add_argument("--recall", type=float, default=DEFAULT_RECALL)
        parser.add_argument("--passage-recall", type=float, default=DEFAULT_PASSAGE_RECALL)
        parser.add_argument("--format", choices=["json", "table"], default="table")

    def handle(self, *args: Any, **options: Any) -> None:
        folder = Path(options["directory"])
        if not is_labelled_folder(folder):
            raise CommandError(
                f"{folder} has no labels.jsonl and no *.labels.json (see README: train_check)."
            )
        for name in ("recall", "passage_recall"):
            if not 0 < options[name] <= 1:
                raise CommandError(f"--{name.replace('_', '-')} must be in (0, 1].")
        try:
            model, report = check_train_from_folder(
                folder=folder,
                playbook=options["playbook"],
                folds=options["folds"],
                recall=options["recall"],
                passage_recall=options["passage_recall"],
                log=lambda line: self.stderr.write(line),
            )
        except RouterTrainingError as error:
            raise CommandError(str(error)) from error
        data = model.to_bytes()
        options["out"].write_bytes(data)
        self.stderr.write(f"wrote {options['out']} ({len(data) / 1e6:.1f} MB)")
        if options["format"] == "json":
            self.stdout.write(json.dumps(report, indent=2, ensure_ascii=False))
        else:
            self.stdout.write(format_lawyer_figures(report))
