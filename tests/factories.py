"""Test data built through the same models the app uses."""

from __future__ import annotations

import hashlib
from pathlib import Path

from reviewapp.accounts.models import Matter, Organisation
from reviewapp.contracts.models import Contract, DocumentStatus, Passage
from reviewapp.contracts.services import contract_ingest, contract_upload
from reviewapp.rules.models import Playbook
from reviewapp.rules.services import (
    playbook_activate,
    playbook_copy,
    playbook_sync_defaults,
    playbook_version_create,
)
from reviewapp.text.segmentation import segment

# A small contract and a playbook with one hard rule (MFN: REJECTED) and one verify rule
# (assignment), shared by the tests of the queue, the audit log, exports and the pages.
CONTRACT = """1. Assignment. Neither party may assign this Agreement without consent.

2. Pricing. Customer shall receive most favored nation pricing.

3. Notices. Notices shall be in writing.
"""

STRICT = """
name: strict
version: "1"
language: en
rules:
  - id: en.strict.mfn
    category: Most Favored Nation
    severity: critical
    action: reject
    patterns: ['most favou?red nation']
  - id: en.strict.assignment
    category: Anti-Assignment
    severity: medium
    action: verify
    patterns: ['assign']
"""


def upload_and_ingest(matter: Matter, path: Path) -> Contract:
    """A file uploaded as the browser does and ingested here (nothing queued)."""
    with path.open("rb") as handle:
        contract, _ = contract_upload(
            matter=matter, file=handle, name=path.name, size=path.stat().st_size, enqueue=False
        )
    return contract_ingest(contract_id=contract.pk)


def ingested_contract(*, matter: Matter, text: str, name: str = "contract.txt") -> Contract:
    """A contract as ingestion leaves it: text stored, passages segmented, not yet scanned."""
    contract = Contract.objects.create(
        matter=matter,
        original_name=name,
        file=f"contracts/{matter.pk}/{name}",
        sha256=hashlib.sha256(text.encode()).hexdigest(),
        size=len(text.encode()),
        kind="txt",
        status=DocumentStatus.INGESTED,
        text=text,
        page_count=1,
        page_spans=[[0, len(text)]],
        progress=100,
    )
    Passage.objects.bulk_create(
        Passage(
            contract=contract,
            index=seg.index,
            page=seg.page,
            start=seg.start,
            end=seg.end,
            number=seg.number,
            heading=seg.heading[:300],
            is_heading=seg.is_heading,
            text=seg.text,
        )
        for seg in segment(text)
    )
    return contract


def active_playbook(*, organisation: Organisation, source: str, name: str = "strict") -> Playbook:
    """The organisation's own playbook, active for new reviews, with exactly these rules."""
    playbook_sync_defaults()
    copy = playbook_copy(
        playbook=Playbook.objects.get(name="commercial-en"), organisation=organisation, name=name
    )
    playbook_version_create(playbook=copy, source=source)
    return playbook_activate(playbook=copy)
