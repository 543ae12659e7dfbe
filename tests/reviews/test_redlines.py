"""Redlines: a lawyer's wording per issue, accepted into the review, exported as tracked changes."""

from __future__ import annotations

import hashlib

import pytest
from django.core.files.base import ContentFile

from reviewapp.accounts.models import Membership, Role
from reviewapp.audit.models import AuditEvent
from reviewapp.contracts.models import Contract, DocumentStatus, Passage
from reviewapp.reviews.models import Redline, RedlineStatus
from reviewapp.reviews.redlines.services import redline_proposal
from reviewapp.reviews.services import review_scan
from reviewapp.text.segmentation import segment
from reviewapp.text.wordml import docx_text
from tests.factories import active_playbook, ingested_contract, upload_and_ingest
from tests.reviews.docx_files import (
    accepted_text,
    comment_anchors,
    comment_texts,
    part,
    revisions,
)

pytestmark = pytest.mark.django_db

PLAYBOOK = """
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
    standard_position: Assignment needs the other's consent, not unreasonably withheld.
    fallback_clause: >-
      Neither party may assign this Agreement without the other's written consent, not to be
      unreasonably withheld.
"""
TEXT = """1. Assignment. Neither party may assign this Agreement without consent.

2. Pricing. Customer shall receive most favored nation pricing.

3. Notices. Notices shall be in writing.
"""
STANDARD = (
    "Neither party may assign this Agreement without the other's written consent, "
    "not to be unreasonably withheld."
)


@pytest.fixture
def lawyer(make_user, matter):
    lee = make_user("lee", first_name="Lee", last_name="Lawyer")
    Membership.objects.create(user=lee, matter=matter, role=Role.LAWYER)
    return lee


def scanned(contract, capture):
    with capture(execute=True):
        return review_scan(contract_id=contract.pk)


def docx_contract(matter, content: bytes, name: str = "msa.docx") -> Contract:
    """A DOCX upload as ingestion leaves it: the file stored, its text read, passages cut."""
    text = docx_text(content)
    contract = Contract(
        matter=matter,
        original_name=name,
        sha256=hashlib.sha256(content).hexdigest(),
        size=len(content),
        kind="docx",
        language="en",
        status=DocumentStatus.INGESTED,
        text=text,
        page_count=1,
        page_spans=[[0, len(text)]],
        progress=100,
    )
    contract.file.save(name, ContentFile(content), save=False)
    contract.save()
    Passage.objects.bulk_create(
        Passage(
            contract=contract,
            index=s.index,
            page=s.page,
            start=s.start,
            end=s.end,
            number=s.number,
            heading=s.heading[:300],
            text=s.text,
        )
        for s in segment(text)
    )
    return contract


@pytest.fixture
def review(matter, django_capture_on_commit_callbacks):
    active_playbook(organisation=matter.organisation, source=PLAYBOOK)
    contract = ingested_contract(matter=matter, text=TEXT, name="msa.txt")
    return scanned(contract, django_capture_on_commit_callbacks)


def assignment(review):
    return review.contract.passages.get(index=0)


def save(client, review, replacement, category="Anti-Assignment", passage=None):
    passage = passage or assignment(review)
    return client.post(
        f"/api/reviews/{review.pk}/redlines/",
        {"passage": passage.pk, "category": category, "replacement": replacement},
        content_type="application/json",
    )


def test_a_proposal_keeps_the_clause_heading_and_takes_the_playbooks_wording(review):
    proposal = redline_proposal(
        review=review, passage=assignment(review), category="Anti-Assignment"
    )
    assert proposal.replacement == "1. Assignment. " + STANDARD
    assert proposal.source == "playbook"


def test_a_lawyer_saves_and_accepts_and_every_step_is_audited(client, review, lawyer):
    client.force_login(lawyer)
    saved = save(client, review, "1. Assignment. " + STANDARD)
    assert saved.status_code == 200, saved.content
    body = saved.json()
    assert body["status"] == "DRAFT" and body["source"] == "playbook"
    assert {"op": "ins", "text": "the other's written "} in body["diff"]
    accepted = client.post(f"/api/redlines/{body['id']}/accept/")
    assert accepted.status_code == 200 and accepted.json()["accepted_by"] == "lee"
    detail = client.get(f"/api/redlines/{body['id']}/").json()
    assert [h["action"] for h in detail["history"]] == ["redline.saved", "redline.accepted"]
    event = AuditEvent.objects.get(action="redline.accepted")
    assert event.actor == "lee" and event.data["status"] == "ACCEPTED"
    assert event.data["from"] == "DRAFT" and "replacement_sha256" in event.data


def test_editing_an_accepted_redline_makes_it_a_draft_again(client, review, lawyer):
    client.force_login(lawyer)
    pk = save(client, review, "1. Assignment. " + STANDARD).json()["id"]
    client.post(f"/api/redlines/{pk}/accept/")
    edited = save(client, review, "1. Assignment. Either party may assign freely.")
    assert edited.json()["status"] == "DRAFT" and edited.json()["source"] == "lawyer"
    assert Redline.objects.get(pk=pk).accepted_by is None


def test_reviewers_read_redlines_and_may_not_write_them(client, review, lawyer, reviewer):
    client.force_login(lawyer)
    pk = save(client, review, "1. Assignment. " + STANDARD).json()["id"]
    client.force_login(reviewer)
    assert client.get(f"/api/reviews/{review.pk}/redlines/").json()[0]["id"] == pk
    refused = save(client, review, "1. Assignment. Anything.")
    assert refused.status_code == 403
    assert refused.json()["error"]["code"] == "PERMISSION_DENIED"
    assert client.post(f"/api/redlines/{pk}/accept/").status_code == 403
    assert Redline.objects.get(pk=pk).status == RedlineStatus.DRAFT


def test_someone_outside_the_matter_sees_nothing(client, review, lawyer, make_user):
    client.force_login(lawyer)
    pk = save(client, review, "1. Assignment. " + STANDARD).json()["id"]
    client.force_login(make_user("mallory"))
    assert client.get(f"/api/reviews/{review.pk}/redlines/").status_code == 404
    assert client.get(f"/api/redlines/{pk}/").status_code == 404
    assert client.post(f"/api/redlines/{pk}/withdraw/").status_code == 404
    assert client.get(f"/contracts/{review.contract_id}/redlines/").status_code == 404


def test_a_category_no_rule_flagged_and_a_redline_that_changes_nothing_are_refused(
    client, review, lawyer
):
    client.force_login(lawyer)
    wrong = save(client, review, "x", category="Most Favored Nation")
    assert wrong.status_code == 409
    assert "No rule flagged" in wrong.json()["error"]["message"]
    same = save(client, review, assignment(review).text).json()
    refused = client.post(f"/api/redlines/{same['id']}/accept/")
    assert refused.status_code == 409


def test_withdrawn_redlines_leave_the_review_and_come_back_as_drafts(client, review, lawyer):
    client.force_login(lawyer)
    pk = save(client, review, "1. Assignment. " + STANDARD).json()["id"]
    client.post(f"/api/redlines/{pk}/accept/")
    withdrawn = client.post(f"/api/redlines/{pk}/withdraw/").json()
    assert withdrawn["status"] == "WITHDRAWN"
    assert client.post(f"/api/redlines/{pk}/withdraw/").status_code == 409
    assert save(client, review, "1. Assignment. " + STANDARD).json()["status"] == "DRAFT"


def anchored(content: bytes, heading: str) -> str:
    (words,) = [w for text, w in comment_anchors(content).items() if text.startswith(heading)]
    return words


def test_a_text_upload_exports_as_a_generated_docx_with_the_change(client, review, lawyer):
    client.force_login(lawyer)
    pk = save(client, review, "1. Assignment. " + STANDARD).json()["id"]
    client.post(f"/api/redlines/{pk}/accept/")
    response = client.get(f"/reviews/{review.pk}/export.redline-internal.docx")
    assert response.status_code == 200
    assert 'filename="msa-review-' in response["Content-Disposition"]
    content = b"".join(response)
    clause = "Neither party may assign this Agreement without consent."
    assert accepted_text(content) == TEXT.replace(clause, STANDARD)
    # Cut to the words: "consent" stays, the words before and after it are typed in.
    assert revisions(content) == [
        ("ins", "Lee Lawyer (Org)", "the other's written "),
        ("ins", "Lee Lawyer (Org)", ", not to be unreasonably withheld"),
    ]
    assert anchored(content, "Anti-Assignment (medium)") == "Assign"  # 1. Assignment
    assert anchored(content, "Most Favored Nation (critical)") == "most favored nation"
    assert AuditEvent.objects.filter(
        action="export.created", data__format="redline-internal.docx", data__audience="firm"
    )


UNCAPPED = """
name: uncapped
version: "1"
language: en
rules:
  - id: en.t.uncapped
    category: Uncapped Liability
    severity: high
    action: verify
    patterns: ['unlimited']
    fallback_clause: Liability is capped at the fees paid in the twelve months before the claim.
"""


def test_a_pdf_upload_exports_as_a_generated_docx_with_the_change_and_its_pages(
    client, matter, lawyer, reviewer, tmp_path, django_capture_on_commit_callbacks
):
    from tests.text.hostile_files import make_text_pdf

    active_playbook(organisation=matter.organisation, source=PLAYBOOK)
    pages = [
        ["SUPPLY AGREEMENT", "1. Assignment. Neither party may assign this Agreement without"],
        ["consent.", "", "2. Notices. Notices shall be in writing."],
    ]
    contract = upload_and_ingest(matter, make_text_pdf(tmp_path, pages, name="supply.pdf"))
    assert contract.kind == "pdf" and contract.page_count == 2
    review = scanned(contract, django_capture_on_commit_callbacks)
    (target,) = [p for p in contract.passages.all() if p.firings.exists()]
    clause = contract.text[target.start : target.end]
    assert "without" in clause and "consent" in clause  # the clause runs over the page break
    replacement = clause.replace("without", "without the other's written", 1)
    client.force_login(lawyer)
    saved = save(client, review, replacement, passage=target)
    assert saved.status_code == 200, saved.content
    client.post(f"/api/redlines/{saved.json()['id']}/accept/")
    client.force_login(reviewer)
    content = b"".join(client.get(f"/reviews/{review.pk}/export.redline-internal.docx"))
    assert revisions(content) == [("ins", "Lee Lawyer (Org)", " the other's written")]
    assert accepted_text(content) == contract.text.replace(clause, replacement)
    assert anchored(content, "Anti-Assignment (medium)")
    assert part(content, "word/document.xml").count(b"<w:pageBreakBefore/>") == 1  # two pages


def test_the_uploaded_word_file_gets_the_change_at_its_clause(
    client, matter, lawyer, reviewer, django_capture_on_commit_callbacks
):
    from tests.reviews.docx_files import contract_docx, part

    active_playbook(organisation=matter.organisation, source=UNCAPPED, name="uncapped")
    original = contract_docx(chinese=False)
    contract = docx_contract(matter, original)
    review = scanned(contract, django_capture_on_commit_callbacks)
    (target,) = [p for p in contract.passages.all() if p.firings.exists()]
    clause = contract.text[target.start : target.end]
    new = clause.replace("unlimited for all claims", "capped at the fees paid for claims")
    client.force_login(lawyer)
    saved = save(client, review, new, category="Uncapped Liability", passage=target)
    assert saved.status_code == 200, saved.content
    client.post(f"/api/redlines/{saved.json()['id']}/accept/")
    client.force_login(reviewer)
    content = b"".join(client.get(f"/reviews/{review.pk}/export.redline-internal.docx"))
    assert revisions(content) == [
        ("del", "Lee Lawyer (Org)", "unlimited"),
        ("ins", "Lee Lawyer (Org)", "capped at the fees paid"),
        ("del", "Lee Lawyer (Org)", " all"),
    ]
    text = contract.text
    assert accepted_text(content) == text.replace(clause, new)
    assert anchored(content, "Uncapped Liability (high)").startswith("unlimited")
    for name in ("word/styles.xml", "word/numbering.xml", "word/header1.xml", "word/footer1.xml"):
        assert part(content, name) == part(original, name)


def test_a_word_file_whose_text_changed_exports_its_text_instead(
    client, matter, lawyer, django_capture_on_commit_callbacks
):
    from tests.reviews.docx_files import contract_docx

    active_playbook(organisation=matter.organisation, source=UNCAPPED, name="uncapped")
    contract = docx_contract(matter, contract_docx(chinese=False))
    Contract.objects.filter(pk=contract.pk).update(text=contract.text.replace("Master", "Mister"))
    review = scanned(Contract.objects.get(pk=contract.pk), django_capture_on_commit_callbacks)
    client.force_login(lawyer)
    content = b"".join(client.get(f"/reviews/{review.pk}/export.redline-internal.docx"))
    assert docx_text(content).startswith("Mister Services Agreement")
    assert anchored(content, "This document is the contract's text as Clausewise read it")


def test_the_queue_and_the_review_page_show_the_clause_with_the_change_marked(
    client, review, lawyer, reviewer
):
    from reviewapp.queue.models import QueueItem

    client.force_login(lawyer)
    queue = client.get("/queue/").content.decode()
    # Before anything is saved the editor holds the playbook's wording, marked as a proposal.
    assert "Proposal, not saved" in queue and "<ins>the other&#x27;s written </ins>" in queue
    assert 'data-action="redline-accept"' in queue and queue.count("js/redline.js") == 1
    pk = save(client, review, "1. Assignment. Neither party may assign this Agreement.").json()
    client.post(f"/api/redlines/{pk['id']}/accept/")
    item = QueueItem.objects.filter(passage=assignment(review)).first()
    fragment = client.get(f"/queue/{item.pk}/").content.decode()
    assert "<del> without consent</del>" in fragment and "accepted by Lee Lawyer" in fragment
    assert "edited by Lee Lawyer" in fragment  # the lawyer's own words, by full name
    client.force_login(reviewer)
    page = client.get(f"/contracts/{review.contract_id}/").content.decode()
    # The review page links the editor once and fetches its redlines section after the document.
    assert page.count("js/redline.js") == 1 and "<del>" not in page
    assert f'data-url="/contracts/{review.contract_id}/redlines/"' in page
    section = client.get(f"/contracts/{review.contract_id}/redlines/").content.decode()
    assert "<del> without consent</del>" in section and "js/redline.js" not in section
    assert f"/reviews/{review.pk}/export.redline.docx" in section
    assert 'data-action="redline-save"' not in section  # reviewers read


def test_the_offline_verifier_and_the_draft_propose_the_standard_wording(review):
    from reviewapp.reviews.drafting import draft_instructions
    from reviewapp.reviews.models import Verification

    verification = Verification.objects.get(passage=assignment(review))
    assert verification.engine == "offline" and verification.redline == STANDARD
    assert f"Standard wording: {STANDARD}" in draft_instructions(review)


def test_a_redline_across_table_cells_reaches_the_file_as_a_comment_with_its_wording(
    client, matter, lawyer, django_capture_on_commit_callbacks
):
    from reviewapp.reviews.redlines.services import redline_accept, redline_save
    from tests.reviews.docx_files import contract_docx

    active_playbook(organisation=matter.organisation, source=UNCAPPED, name="uncapped")
    contract = docx_contract(matter, contract_docx(chinese=False))
    review = scanned(contract, django_capture_on_commit_callbacks)
    (target,) = [p for p in contract.passages.all() if p.firings.exists()]
    start, end = contract.text.index("per hour"), contract.text.index("Term") + 4
    redline = redline_save(
        review=review,
        passage=target,
        category="Uncapped Liability",
        replacement="per day Period",
        user=lawyer,
        span=(start, end),
    )
    redline_accept(redline_id=redline.pk, user=lawyer)
    client.force_login(lawyer)
    content = b"".join(client.get(f"/reviews/{review.pk}/export.redline.docx"))
    assert revisions(content) == []
    assert anchored(content, "Proposed wording, not shown") == "per hourTerm"
    assert "Uncapped Liability" not in "".join(comment_texts(content))  # the firm's reading
    internal = b"".join(client.get(f"/reviews/{review.pk}/export.redline-internal.docx"))
    assert anchored(internal, "Proposed wording (Uncapped Liability)") == "per hourTerm"


def test_the_queue_pages_redline_panels_cost_the_same_queries_for_many_items(
    client, matter, lawyer, django_capture_on_commit_callbacks
):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from reviewapp.reviews.redlines import panels
    from reviewapp.reviews.templatetags import redlines

    active_playbook(organisation=matter.organisation, source=PLAYBOOK)
    for n in range(6):
        text = TEXT.replace("Notices.", f"Notices {n}.")
        scanned(
            ingested_contract(matter=matter, text=text, name=f"c{n}.txt"),
            django_capture_on_commit_callbacks,
        )
    client.force_login(lawyer)

    def queries() -> int:
        with CaptureQueriesContext(connection) as captured:
            page = client.get("/queue/").content.decode()
        assert page.count('class="card queue-item') == 12
        return len(captured)

    with_panels = queries()
    original = redlines.panels_for
    redlines.panels_for = lambda **_kwargs: panels.Panels([])
    try:
        without = queries()
    finally:
        redlines.panels_for = original
    assert with_panels - without <= 6, (with_panels, without)


COMMENT = "We can accept an assignment to an affiliate."


def save_commented(client, review, comment, replacement="1. Assignment. " + STANDARD):
    return client.post(
        f"/api/reviews/{review.pk}/redlines/",
        {
            "passage": assignment(review).pk,
            "category": "Anti-Assignment",
            "replacement": replacement,
            "counterparty_comment": comment,
        },
        content_type="application/json",
    )


def test_a_comment_for_the_counterparty_round_trips_through_the_api(client, review, lawyer):
    client.force_login(lawyer)
    saved = save_commented(client, review, COMMENT)
    assert saved.status_code == 200 and saved.json()["counterparty_comment"] == COMMENT
    pk = saved.json()["id"]
    assert client.get(f"/api/redlines/{pk}/").json()["counterparty_comment"] == COMMENT
    listed = client.get(f"/api/reviews/{review.pk}/redlines/").json()
    assert [r["counterparty_comment"] for r in listed] == [COMMENT]
    # Saving the words without the field keeps the comment.
    assert save(client, review, "1. Assignment. " + STANDARD).json()["counterparty_comment"] == (
        COMMENT
    )
    assert client.post(f"/api/redlines/{pk}/accept/").json()["status"] == "ACCEPTED"
    # What goes to the other side was accepted: a new comment must be accepted anew.
    changed = save_commented(client, review, "Affiliates only.").json()
    assert changed["status"] == "DRAFT" and changed["counterparty_comment"] == "Affiliates only."
    cleared = save_commented(client, review, "").json()
    assert cleared["counterparty_comment"] == ""
    event = AuditEvent.objects.filter(action="redline.saved").order_by("-seq").first()
    assert event.data["counterparty_comment_chars"] == 0
    too_long = save_commented(client, review, "x" * 5001)
    assert too_long.status_code == 400


def test_only_the_matters_lawyers_write_the_comment_for_the_counterparty(
    client, review, lawyer, reviewer, make_user
):
    client.force_login(lawyer)
    pk = save_commented(client, review, COMMENT).json()["id"]
    client.force_login(reviewer)
    assert client.get(f"/api/redlines/{pk}/").json()["counterparty_comment"] == COMMENT
    assert save_commented(client, review, "Anything goes.").status_code == 403
    client.force_login(make_user("mallory"))
    assert save_commented(client, review, "Anything goes.").status_code == 404
    assert Redline.objects.get(pk=pk).counterparty_comment == COMMENT


def test_words_that_are_still_the_clauses_own_are_not_written_by_a_lawyer():
    from reviewapp.reviews.redlines.labels import source_label
    from reviewapp.reviews.redlines.models import RedlineSource

    unchanged = source_label(source=RedlineSource.LAWYER, unchanged=True)
    assert unchanged == "Unchanged: the playbook has no standard wording for this"
    assert source_label(source=RedlineSource.LAWYER, unchanged=False) == "Written by a lawyer"


def test_standard_wording_replaces_the_matched_sentence_and_keeps_the_rest_of_the_clause(
    matter, django_capture_on_commit_callbacks
):
    active_playbook(organisation=matter.organisation, source=PLAYBOOK)
    text = (
        "1. Transfer. This Agreement binds the parties' successors. Neither party may assign "
        "this Agreement without consent. Either party may terminate it if the other becomes "
        "insolvent.\n"
    )
    contract = ingested_contract(matter=matter, text=text)
    with django_capture_on_commit_callbacks():
        review = review_scan(contract_id=contract.pk, engine="offline")
    passage = contract.passages.get(text__icontains="insolvent")
    proposal = redline_proposal(review=review, passage=passage, category="Anti-Assignment")
    assert proposal.replacement == (
        "1. Transfer. This Agreement binds the parties' successors. " + STANDARD + " Either "
        "party may terminate it if the other becomes insolvent."
    )


def test_the_sentence_around_a_match_skips_abbreviations():
    from reviewapp.reviews.redlines.proposals import sentence_around

    text = "The U.S. rules apply. Neither party may assign it, e.g. to a buyer. Notices go by post."
    start = text.index("assign")
    begin, end = sentence_around(text, start, start + 6)
    assert text[begin:end] == "Neither party may assign it, e.g. to a buyer."
    assert sentence_around("One sentence only", 4, 8) == (0, len("One sentence only"))


def test_a_passage_outside_the_reviews_contract_is_not_found(client, review, lawyer):
    client.force_login(lawyer)
    missing = client.post(
        f"/api/reviews/{review.pk}/redlines/",
        {"passage": 2**31 - 1, "category": "Anti-Assignment", "replacement": "x"},
        content_type="application/json",
    )
    assert missing.status_code == 404
    assert missing.json()["error"]["code"] == "NOT_FOUND"
