from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from reviewapp.accounts.models import Organisation
from reviewapp.rules.learned.organisation_training import router_train_organisation
from reviewapp.rules.learned.router_training import RouterTrainingError, router_train_from_folder
from reviewapp.text.evaluation import is_labelled_folder


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
            help="add this organisation's lawyers' labels (name or id: clauses found there, "
            "flags they raised, and false flags as negative examples) and store the router, with "
            "the second-stage check retrained alike, as its next version, inactive until an "
            "admin activates it (or --activate)",
        )
        parser.add_argument(
            "--activate",
            action="store_true",
            help="with --organisation: make the new version the one new reviews use (audited "
            "as router.activated, as the admins' button is)",
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
        if options["activate"] and options["organisation"] is None:
            raise CommandError(
                "--activate activates an organisation's version: add --organisation."
            )
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
                version, report = router_train_organisation(
                    organisation=organisation, activate=options["activate"], **common
                )
                if options["activate"]:
                    self.stderr.write(f"stored {version.label}, active for new reviews")
                else:
                    self.stderr.write(
                        f"stored {version.label} (inactive until an admin activates it)"
                    )
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
    rows += _decision_rows(report)
    return "\n".join(rows)


def _decision_rows(report: dict[str, Any]) -> list[str]:
    """The organisation's own decided items: the new version (out of fold, by contract)
    beside the active one."""
    rows = []
    for key, name in (("decisions", "new router"), ("decisions_active", "active router")):
        part = report.get(key)
        if part:
            rows.append(
                f"  {name:14} on your lawyers' labels ({part['labels']}): clauses flagged "
                f"{_share(part['recall'])} (not acceptable {_share(part['recall_not_acceptable'])})"
                f", false flags still raised {_share(part['false_flags_raised'])} "
                f"of {part['false_flags']}"
            )
    for key, name in (("check", "new check"), ("check_active", "active check")):
        part = report.get(key)
        if part:
            rows.append(
                f"  {name:14} on your lawyers' labels: clauses kept {_share(part['clauses_kept'])}"
                f" of {part['clauses']}, false flags dropped "
                f"{_share(part['false_flags_dropped'])} of {part['false_flags']}"
            )
    return rows


def _share(value: float | None) -> str:
    return "-" if value is None else f"{value:.3f}"
