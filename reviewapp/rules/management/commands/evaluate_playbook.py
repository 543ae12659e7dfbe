from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db import DatabaseError

from reviewapp.rules.evaluation import evaluate, format_table
from reviewapp.rules.models import Playbook
from reviewapp.rules.services import DEFAULTS_DIR, playbook_compiled


class Command(BaseCommand):
    help = (
        "Measure a playbook against a labelled folder (labels.jsonl in the CUAD format, see "
        "README): per-category recall and precision, routed share, overall figures."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("directory", metavar="DIR")
        parser.add_argument(
            "--playbook",
            default="commercial-en",
            help="a playbook name in the database, a shipped playbook name, or a YAML file",
        )
        parser.add_argument("--format", choices=["json", "table"], default="table")

    def handle(self, *args: Any, **options: Any) -> None:
        folder = Path(options["directory"])
        if not (folder / "labels.jsonl").is_file():
            raise CommandError(f"{folder} has no labels.jsonl (see README: evaluate_playbook).")
        report = evaluate(folder, self._playbook(options["playbook"]))
        if options["format"] == "json":
            self.stdout.write(json.dumps(report, indent=2, ensure_ascii=False))
        else:
            self.stdout.write(format_table(report))

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
