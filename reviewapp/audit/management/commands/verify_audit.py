"""`manage.py verify_audit [--organisation X]`: check every audit chain, name the first bad row.

Each chain is also held against the newest signed checkpoint (AUDIT_CHECKPOINT_DIR): a chain
shorter than its checkpoint, one whose hash at the checkpoint's seq differs, a chain the
checkpoint knows but the database lost, an unkeyed (v1) row after a checkpoint that records
keyed hashes, and a checkpoint file whose signature fails all count. The output ends with what
no checkpoint covers yet: the events written after the newest one.
"""

from __future__ import annotations

import dataclasses
import time
from datetime import datetime
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.utils import timezone

from reviewapp.audit.checkpoints import (
    Checkpoint,
    audit_checkpoint_check,
    audit_checkpoint_latest,
    checkpoint_directory,
)
from reviewapp.audit.models import HashKind
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
        broken, checked, uncovered = 0, 0, 0
        for organisation_id in chain_ids:
            report = self._verify(organisation_id, checkpoint)
            checked += report.events
            if report.intact:
                self.stdout.write(f"ok: {report.describe()}")
                covered = checkpoint.covered_seq(organisation_id) if checkpoint else 0
                uncovered += max(report.events - covered, 0)
            else:
                broken += 1
                self.stderr.write(f"TAMPERED: {report.describe()}")
        elapsed = time.perf_counter() - started
        self.stdout.write(f"{checked} events in {len(chain_ids)} chains checked in {elapsed:.1f} s")
        self.stdout.write(self._window(checkpoint, uncovered))
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
            chains = f"{len(latest.marks)} chains" if latest.marks else "no events yet"
            keyed = "keyed hashes" if latest.hash_kind == HashKind.HMAC_SHA256 else "plain hashes"
            if latest.key_fingerprint:
                keyed += f", key {latest.key_fingerprint}"
            self.stdout.write(f"{latest.label}: {chains} ({keyed})")
        return latest

    @staticmethod
    def _window(checkpoint: Checkpoint | None, uncovered: int) -> str:
        every_s = settings.AUDIT_CHECKPOINT_EVERY_S
        if checkpoint is None:
            return (
                "not covered: every event is checked by its chain alone; whoever owns the "
                "tables can cut the newest events and move the chain head back unseen"
            )
        age_s = (timezone.now() - datetime.fromisoformat(checkpoint.written_at)).total_seconds()
        window = (
            f"not covered: {uncovered} events written after {checkpoint.label}, {age_s:.0f} s "
            "ago. Whoever owns the tables can cut them off the end and move the chain head back "
            f"unseen; beat writes a checkpoint every {every_s:g} s (AUDIT_CHECKPOINT_EVERY_S) "
            f"when a chain moved, so while it runs that is at most the last {every_s:g} s of "
            "events."
        )
        if uncovered and age_s > 2 * every_s:
            window += " The newest checkpoint is older than that: is beat running?"
        return window

    @staticmethod
    def _all_chains(checkpoint: Checkpoint | None) -> list[int | None]:
        ids = audit_chain_ids()
        marked = [mark.organisation_id for mark in checkpoint.marks.values()] if checkpoint else []
        gone = {pk for pk in marked if pk not in ids}
        return ids + sorted(gone, key=lambda pk: -1 if pk is None else pk)

    @staticmethod
    def _verify(organisation_id: int | None, checkpoint: Checkpoint | None) -> ChainReport:
        report = audit_chain_verify(organisation_id=organisation_id)
        if checkpoint is None or not report.intact:
            return report
        problem = audit_checkpoint_check(
            organisation_id=organisation_id, checkpoint=checkpoint, events=report.events
        )
        if problem is not None and problem.seq is None:
            report = dataclasses.replace(report, label=f"chain {chain_key(organisation_id)}")
        return dataclasses.replace(report, problem=problem)
