"""`manage.py verify_audit [--organisation X]`: check every audit chain, name the first bad row.

Each chain is also held against the newest signed checkpoint (AUDIT_CHECKPOINT_DIR): a chain
shorter than its checkpoint, one whose hash at the checkpoint's seq differs, a chain the
checkpoint knows but the database lost, and a checkpoint file whose signature fails all count.
"""

from __future__ import annotations

import dataclasses
import time
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from reviewapp.audit.checkpoints import (
    Checkpoint,
    audit_checkpoint_check,
    audit_checkpoint_latest,
    checkpoint_directory,
)
from reviewapp.audit.selectors import (
    ChainReport,
    OrganisationNotFound,
    audit_chain_ids,
    audit_chain_verify,
    audit_organisation_resolve,
)
from reviewapp.audit.services import chain_key


class Command(BaseCommand):
    help = (
        "Walk each organisation's audit hash chain and compare it with the newest signed "
        "checkpoint; exit 1 naming the first changed, removed or reordered row."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--organisation",
            help='id, name or slug of one organisation ("system" for events of no organisation)',
        )

    def handle(self, *args: Any, organisation: str | None = None, **options: Any) -> None:
        started = time.perf_counter()
        checkpoint = self._checkpoint()
        try:
            chain_ids = (
                [audit_organisation_resolve(reference=organisation)]
                if organisation is not None
                else self._all_chains(checkpoint)
            )
        except OrganisationNotFound as missing:
            raise CommandError(str(missing)) from missing
        broken, checked = 0, 0
        for organisation_id in chain_ids:
            report = self._verify(organisation_id, checkpoint)
            checked += report.events
            if report.intact:
                self.stdout.write(f"ok: {report.describe()}")
            else:
                broken += 1
                self.stderr.write(f"TAMPERED: {report.describe()}")
        elapsed = time.perf_counter() - started
        self.stdout.write(f"{checked} events in {len(chain_ids)} chains checked in {elapsed:.1f} s")
        failures = [f"{broken} of {len(chain_ids)} audit chains are broken."] if broken else []
        if self.rejected:
            failures.append(f"{self.rejected} checkpoint files fail their check.")
        if failures:
            raise CommandError(" ".join(failures))

    def _checkpoint(self) -> Checkpoint | None:
        finding = audit_checkpoint_latest()
        self.rejected = len(finding.rejected)
        for problem in finding.rejected:
            self.stderr.write(f"TAMPERED: checkpoint {problem}")
        latest = finding.latest
        if latest is None:
            self.stdout.write(
                f"no checkpoint in {checkpoint_directory()}: chains are checked on their own "
                "(run manage.py audit_checkpoint)"
            )
        else:
            self.stdout.write(
                f"checkpoint {latest.name} ({latest.written_at}): {len(latest.marks)} chains"
            )
        return latest

    @staticmethod
    def _all_chains(checkpoint: Checkpoint | None) -> list[int | None]:
        ids = audit_chain_ids()
        marked = [mark.organisation_id for mark in checkpoint.marks.values()] if checkpoint else []
        gone = {pk for pk in marked if pk not in ids}
        return ids + sorted(gone, key=lambda pk: -1 if pk is None else pk)

    @staticmethod
    def _verify(organisation_id: int | None, checkpoint: Checkpoint | None) -> ChainReport:
        report = audit_chain_verify(organisation_id=organisation_id)
        mark = checkpoint.marks.get(chain_key(organisation_id)) if checkpoint else None
        if mark is None or checkpoint is None or not report.intact:
            return report
        problem = audit_checkpoint_check(mark=mark, checkpoint=checkpoint, events=report.events)
        if problem is not None and problem.seq is None:
            report = dataclasses.replace(report, label=f"chain {mark.chain}")
        return dataclasses.replace(report, problem=problem)
