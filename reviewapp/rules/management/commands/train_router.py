from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from reviewapp.accounts.models import Organisation
from reviewapp.rules.evaluation import is_labelled_folder
from reviewapp.rules.router_training import (
    RouterTrainingError,
    router_train_from_folder,
    router_train_organisation,
)


class Command(BaseCommand):
    help = (
        "Train the learned router from a labelled folder (labels.jsonl in the CUAD format) and, "
        "with --organisation, that organisation's lawyers' decisions. Prints the "
        "cross-validated figures (5 folds by document) of rules, router and both."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("directory", metavar="DIR")
        parser.add_argument("--out", type=Path, help="write the model file here")
        parser.add_argument(
            "--organisation",
            help="add this organisation's decisions (name or id) and store the model as its "
            "next router version, inactive until an admin activates it",
        )
        parser.add_argument("--playbook", default="commercial-en", help="shipped playbook name")
        parser.add_argument("--folds", type=int, default=5)
        parser.add_argument("--budget", type=float, default=None, help="routed share to aim for")
        parser.add_argument("--format", choices=["json", "table"], default="table")

    def handle(self, *args: Any, **options: Any) -> None:
        folder = Path(options["directory"])
        if not is_labelled_folder(folder):
            raise CommandError(
                f"{folder} has no labels.jsonl and no *.labels.json (see README: train_router)."
            )
        if options["organisation"] is None and options["out"] is None:
            raise CommandError("Say where the model goes: --out FILE, or --organisation NAME.")
        common = {
            "folder": folder,
            "playbook": options["playbook"],
            "folds": options["folds"],
            "budget": options["budget"],
            "log": lambda line: self.stderr.write(line),
        }
        try:
            if options["organisation"] is not None:
                organisation = self._organisation(options["organisation"])
                version, report = router_train_organisation(organisation=organisation, **common)
                self.stderr.write(f"stored {version.label} (inactive until an admin activates it)")
                model_bytes = None
            else:
                model, report = router_train_from_folder(**common)
                model_bytes = model.to_bytes()
        except RouterTrainingError as error:
            raise CommandError(str(error)) from error
        if options["out"] is not None:
            data = model_bytes if model_bytes is not None else bytes(version.artefact)
            options["out"].write_bytes(data)
            self.stderr.write(f"wrote {options['out']} ({len(data) / 1e6:.1f} MB)")
        if options["format"] == "json":
            self.stdout.write(json.dumps(report, indent=2, ensure_ascii=False))
        else:
            self.stdout.write(format_report(report))

    def _organisation(self, name: str) -> Organisation:
        found = Organisation.objects.filter(name=name).first()
        if found is None and name.isdigit():
            found = Organisation.objects.filter(pk=int(name)).first()
        if found is None:
            raise CommandError(f"No organisation named {name!r}.")
        return found


def format_report(report: dict[str, Any]) -> str:
    rows = ["cross-validated on held-out documents (5 folds by document; thresholds chosen on "]
    rows[0] += "the other half):"
    for name in ("rules", "router", "both"):
        part = report.get(name)
        if not part:
            continue
        lowest = part.get("lowest_frequent") or {}
        rows.append(
            f"  {name:7} recall {part['recall']:.3f}  routed share {part['routed_share']:.3f}  "
            f"lowest (>= 10 labels) {lowest.get('category', '-')} {lowest.get('recall', 0):.2f}"
        )
    decisions = report.get("decisions")
    if decisions:
        rows.append(
            f"  lawyers' decisions: {decisions['labels']} labels, out-of-fold recall "
            f"{decisions['recall']:.3f} (not acceptable: {decisions['recall_not_acceptable']:.3f})"
        )
    return "\n".join(rows)
