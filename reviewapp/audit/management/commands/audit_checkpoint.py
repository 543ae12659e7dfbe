"""`manage.py audit_checkpoint [--directory DIR]`: write a signed checkpoint of every chain head."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandParser

from reviewapp.audit.checkpoints import audit_checkpoint_read, audit_checkpoint_write


class Command(BaseCommand):
    help = (
        "Append a new checkpoint file (each chain's key, seq and hash, signed with "
        "AUDIT_HMAC_KEY) to AUDIT_CHECKPOINT_DIR; verify_audit compares chains with the newest."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--directory", type=Path, help="instead of AUDIT_CHECKPOINT_DIR")

    def handle(self, *args: Any, directory: Path | None = None, **options: Any) -> None:
        path = audit_checkpoint_write(directory=directory)
        checkpoint = audit_checkpoint_read(path)
        self.stdout.write(f"{path}: {len(checkpoint.marks)} chains")
