"""The matter page: one status vocabulary, unfinished uploads, review status and open items."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from reviewapp.contracts.intake.services import intake_batch_announce
from reviewapp.contracts.matter_page import status_words
from reviewapp.contracts.models import Contract, DocumentStatus, IntakeBatch
from reviewapp.contracts.services import contract_ingest, contract_upload
from reviewapp.queue.models import ItemStatus, QueueItem
from tests.contracts.test_intake import contract_text

pytestmark = pytest.mark.django_db

RISKY = (
    b"MASTER SERVICES AGREEMENT\n\n1. Liability\n\n1.1 The Supplier's liability is unlimited "
    b"and the Customer shall indemnify the Supplier against all losses whatsoever.\n\n2. Term\n\n"
    b"2.1 This Agreement may be terminated by the Supplier at any time without notice.\n"
)


def ingest(matter, name: str, data: bytes, uploaded_by=None) -> Contract:
    import io

    contract, _ = contract_upload(
        matter=matter,
        file=io.BytesIO(data),
        name=name,
        size=len(data),
        enqueue=False,
        uploaded_by=uploaded_by,
    )
    return contract_ingest(contract_id=contract.pk) or contract


def test_rows_say_the_words_the_live_script_uses_with_review_status_and_open_items(
    client, matter, reviewer
):
    contract = ingest(matter, "msa.txt", RISKY)
    assert contract.status == DocumentStatus.INGESTED
    client.force_login(reviewer)
    page = client.get(f"/matters/{matter.pk}/").content.decode()
    rows = client.get(f"/matters/{matter.pk}/rows/").content.decode()
    ready = status_words()[DocumentStatus.INGESTED]
    assert ready == "Ready" and f'data-role="status">{ready}</span>' in rows
    assert '"INGESTED": "Ready"' in page  # the script's words (json_script) are the same
    open_items = QueueItem.objects.filter(
        passage__contract=contract, status__in=[ItemStatus.OPEN, ItemStatus.CLAIMED]
    ).count()
    review_status = contract.review.get_status_display()
    assert review_status in rows
    assert f'<td data-role="open-items">{open_items}</td>' in rows


def test_rows_stay_newest_first_in_a_stable_order(client, matter, reviewer):
    first = ingest(matter, "a.txt", contract_text(1))
    second = ingest(matter, "b.txt", contract_text(2))
    Contract.objects.filter(pk__in=[first.pk, second.pk]).update(created_at=timezone.now())
    client.force_login(reviewer)
    for _ in range(3):
        rows = client.get(f"/matters/{matter.pk}/rows/").content.decode()
        assert rows.index(f'data-contract-id="{second.pk}"') < rows.index(
            f'data-contract-id="{first.pk}"'
        )


def test_the_matter_page_reads_a_bounded_number_of_queries(client, matter, reviewer):
    client.force_login(reviewer)
    ingest(matter, "a.txt", RISKY)
    with CaptureQueriesContext(connection) as few:
        client.get(f"/matters/{matter.pk}/rows/")
    for number in range(2, 8):
        ingest(matter, f"c{number}.txt", RISKY + f"\n3. Schedule {number}\n".encode())
    intake_batch_announce(
        matter=matter,
        uploaded_by=reviewer,
        name="x",
        source="files",
        entries=[{"name": "late.pdf", "path": ""}],
    )
    with CaptureQueriesContext(connection) as many:
        client.get(f"/matters/{matter.pk}/rows/")
    # One more batch adds its own two counting queries; more contracts add none.
    assert len(many) <= len(few) + 2, [q["sql"] for q in many.captured_queries]


def test_an_upload_that_did_not_finish_says_so_and_can_be_dismissed(client, matter, reviewer):
    batch = intake_batch_announce(
        matter=matter,
        uploaded_by=reviewer,
        name="Deals",
        source="folder",
        entries=[{"name": "never sent.pdf", "path": "Deals"}],
    )
    client.force_login(reviewer)
    page = client.get(f"/matters/{matter.pk}/").content.decode()
    assert "Upload did not finish" not in page  # still sending, as far as anyone knows
    IntakeBatch.objects.filter(pk=batch.pk).update(updated_at=timezone.now() - timedelta(hours=1))
    page = client.get(f"/matters/{matter.pk}/").content.decode()
    assert "never sent.pdf" in page and "Upload did not finish" in page
    assert f"/api/intake/{batch.pk}/dismiss/" in page
    client.post(f"/api/intake/{batch.pk}/dismiss/")
    rows = client.get(f"/matters/{matter.pk}/rows/").content.decode()
    assert "never sent.pdf" not in rows
    panel = client.get(f"/matters/{matter.pk}/batches/").content.decode()
    assert "never sent.pdf" in panel and "Upload did not finish" in panel


def test_the_batch_model_review_box_shows_only_with_the_claude_engine(
    client, matter, reviewer, settings
):
    client.force_login(reviewer)
    words = "Batch model review (half price, results within 24 h)"
    settings.REVIEW_ENGINE = "offline"
    assert words not in client.get(f"/matters/{matter.pk}/").content.decode()
    settings.REVIEW_ENGINE = "anthropic"
    assert words in client.get(f"/matters/{matter.pk}/").content.decode()


def test_a_zh_reader_sees_the_same_status_in_chinese(client, matter, reviewer):
    ingest(matter, "a.txt", contract_text(1))
    client.force_login(reviewer)
    client.cookies["django_language"] = "zh-hans"
    rows = client.get(f"/matters/{matter.pk}/rows/", HTTP_ACCEPT_LANGUAGE="zh-hans").content
    assert "Ready" not in rows.decode()
