"""`manage.py verify_audit [--organisation X]`: check every audit chain, name the first bad row."""

from __future__ import annotations

import time
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from reviewapp.audit.selectors import (
    OrganisationNotFound,
    audit_chain_ids,
    audit_chain_verify,
    audit_organisation_resolve,
)


class Command(BaseCommand):
    help = (
        "Walk each organisation's audit hash chain; exit 1 naming the first changed, "
        "removed or reordered row."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--organisation",
            help='id, name or slug of one organisation ("system" for events of no organisation)',
        )

    def handle(self, *args: Any, organisation: str | None = None, **options: Any) -> None:
        started = time.perf_counter()
        try:
            chain_ids = (
                [audit_organisation_resolve(reference=organisation)]
                if organisation is not None
                else audit_chain_ids()
            )
        except OrganisationNotFound as missing:
            raise CommandError(str(missing)) from missing
        broken, checked = 0, 0
        for organisation_id in chain_ids:
            report = audit_chain_verify(organisation_id=organisation_id)
            checked += report.events
            if report.intact:
                self.stdout.write(f"ok: {report.describe()}")
            else:
                broken += 1
                self.stderr.write(f"TAMPERED: {report.describe()}")
        elapsed = time.perf_counter() - started
        self.stdout.write(f"{checked} events in {len(chain_ids)} chains checked in {elapsed:.1f} s")
        if broken:
            raise CommandError(f"{broken} of {len(chain_ids)} audit chains are broken.")
