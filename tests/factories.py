"""Test data built through the same models the app uses."""

from __future__ import annotations

import hashlib

from reviewapp.accounts.models import Matter, Organisation
from reviewapp.contracts.models import Contract, DocumentStatus, Passage
from reviewapp.contracts.segmentation import segment
from reviewapp.rules.models import Playbook
from reviewapp.rules.services import (
    playbook_activate,
    playbook_copy,
    playbook_sync_defaults,
    playbook_version_create,
)


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
            text=text[seg.start : seg.end],
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
