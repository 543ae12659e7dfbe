from __future__ import annotations

import json
import logging
import os
import time
from typing import Any

from django.conf import settings
from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db import connection

from reviewapp.accounts.models import Matter, Organisation
from reviewapp.contracts.models import FAILED_STATUSES, Contract, DocumentStatus
from reviewapp.contracts.services import UploadRejected, contract_ingest, contract_upload
from reviewapp.reviews.inline import review_model_work_run, review_use_engine
from reviewapp.reviews.models import Review
from reviewapp.reviews.review_output import (
    TABLE_HEADER,
    document_record,
    error_record,
    iter_documents,
    table_row,
)

CLI_ORGANISATION = "Command line"
logger = logging.getLogger(__name__)


class Command(BaseCommand):
    help = (
        "Review contract files or folders (recursively) with the same services as the web app, "
        "printing one JSON object per document."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("paths", nargs="+", metavar="PATH")
        parser.add_argument("--engine", choices=["offline", "anthropic"], default=None)
        parser.add_argument("--format", choices=["jsonl", "table"], default="jsonl")
        parser.add_argument("--with-text", action="store_true", help="include passage text")
        parser.add_argument("--matter", default="Command line", help="matter to file them under")

    def handle(self, *args: Any, **options: Any) -> None:
        if options["engine"] == "anthropic" and not settings.ANTHROPIC_API_KEY:
            raise CommandError("--engine anthropic needs ANTHROPIC_API_KEY to be set.")
        self._database_ready()
        self.engine = options["engine"] or settings.REVIEW_ENGINE
        matter = self._matter(options["matter"])
        table = options["format"] == "table"
        if table:
            self.stdout.write(TABLE_HEADER)
        failed = False
        for document in iter_documents(options["paths"]):
            record = self._review(matter, document, with_text=options["with_text"])
            failed |= record["status"] != DocumentStatus.INGESTED
            self.stdout.write(
                table_row(record) if table else json.dumps(record, ensure_ascii=False)
            )
            self.stdout.flush()
        if failed:
            raise SystemExit(1)

    def _matter(self, name: str) -> Matter:
        matter = Matter.objects.filter(name=name).order_by("pk").first()
        if matter is not None:
            return matter
        organisation, _ = Organisation.objects.get_or_create(name=CLI_ORGANISATION)
        return Matter.objects.create(organisation=organisation, name=name)

    def _database_ready(self) -> None:
        """On the embedded default (SQLite) a fresh clone is set up here; elsewhere one line
        says what to run."""
        if "accounts_matter" in connection.introspection.table_names():
            return
        if connection.vendor == "sqlite":
            self.stderr.write("Setting up the local database (first run)...")
            call_command("migrate", verbosity=0)
            return
        raise CommandError("The database has no tables yet: run `manage.py migrate` first.")

    def _review(self, matter: Matter, document: str, *, with_text: bool) -> dict[str, Any]:
        try:
            return self._review_one(matter, document, with_text=with_text)
        except Exception as error:  # one document's failure is its record, never the batch's
            logger.exception("review of %s failed", document)
            message = f"{type(error).__name__}: {error}"[:300]
            return error_record(document=document, code="REVIEW_FAILED", message=message)

    def _review_one(self, matter: Matter, document: str, *, with_text: bool) -> dict[str, Any]:
        started = time.perf_counter()
        try:
            contract = self._ingest(matter, document)
        except UploadRejected as rejected:
            return error_record(document=document, code=rejected.code, message=rejected.message)
        except FileNotFoundError:
            return error_record(document=document, code="NOT_FOUND", message="No such file.")
        except (IsADirectoryError, PermissionError) as error:
            return error_record(document=document, code="NOT_READABLE", message=str(error))
        total = round((time.perf_counter() - started) * 1000, 1)
        return document_record(
            document=document, contract=contract, with_text=with_text, timings_ms={"total": total}
        )

    def _ingest(self, matter: Matter, document: str) -> Contract:
        with open(document, "rb") as handle:
            size = os.fstat(handle.fileno()).st_size
            contract, _ = contract_upload(
                matter=matter,
                file=handle,
                name=os.path.basename(document),
                size=size,
                enqueue=False,
            )
        if contract.status not in FAILED_STATUSES:
            contract = (
                contract_ingest(contract_id=contract.pk, engine=self.engine, enqueue=False)
                or contract
            )
        review = Review.objects.filter(contract=contract).first()
        if review is not None:
            # A document reviewed before (same file in the matter) finishes with this engine.
            review_use_engine(review_id=review.pk, engine=self.engine)
            review_model_work_run(review_id=review.pk)
        return contract
