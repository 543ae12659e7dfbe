"""Exports count issues as a lawyer does: one per passage and category, each with its own
rationale, and contract text without the PDF's line-break spacing."""

from __future__ import annotations

import csv
import io

import pytest
from docx import Document

from reviewapp.reviews.exports.selectors import issue_rationale, review_export_model
from reviewapp.reviews.models import Verification
from reviewapp.rules.services import playbook_compiled
from tests.reviews.test_exports import anchored_texts, download, memo_text, reviewed

pytestmark = pytest.mark.django_db

MFN_QUESTION = "Is the comparison set of the MFN promise defined?"
PRICE_QUESTION = "Are the prices fixed for the term?"
# Two rules of one category (its passage rule and a secondary rule), a second category, and a
# secondary rule of a third category that nothing routes, all firing on the pricing clause.
PLAYBOOK = f"""
name: strict
version: "1"
language: en
rules:
  - id: en.t.mfn.terms
    category: Most Favored Nation
    severity: medium
    action: verify
    patterns: ['most favou?red nation']
    question: "{MFN_QUESTION}"
  - id: en.t.mfn.context
    category: Most Favored Nation
    severity: high
    action: verify
    only_with: [Most Favored Nation, Price Restrictions]
    patterns: ['favou?r\\w*']
    question: "{MFN_QUESTION}"
  - id: en.t.price.terms
    category: Price Restrictions
    severity: low
    action: verify
    patterns: ['pricing']
    reject_if: ['most favou?red']
    question: "{PRICE_QUESTION}"
  - id: en.t.notices.context
    category: Notices
    severity: low
    action: verify
    only_with: [Most Favored Nation]
    patterns: ['term of']
    question: "Is a notice period set?"
"""
PDF_LIKE = (
    "1. Pricing. Customer shall receive most favored nation pricing for a term of"
    "          12 months.\n\n2. Notices. Notices shall be in writing.\n"
)


@pytest.fixture
def review(matter, django_capture_on_commit_callbacks):
    return reviewed(
        matter, django_capture_on_commit_callbacks, text=PDF_LIKE, name="msa.txt", playbook=PLAYBOOK
    )


def csv_rows(client, user, review):
    content = download(client, user, review, "csv").content.decode("utf-8-sig")
    return list(csv.DictReader(io.StringIO(content)))


def test_csv_has_one_row_per_passage_and_category_with_its_own_rationale(client, reviewer, review):
    rows = csv_rows(client, reviewer, review)
    assert [(row["passage"], row["category"]) for row in rows] == [
        ("0", "Most Favored Nation"),
        ("0", "Price Restrictions"),
    ]
    mfn, price = rows
    assert mfn["context_rules"] == price["context_rules"] == "en.t.notices.context"
    assert mfn["rule_id"] == "en.t.mfn.terms"
    assert mfn["rule_ids"] == "en.t.mfn.context en.t.mfn.terms"
    assert mfn["severity"] == "high"  # the worst of the category's firings
    # The passage is rejected by the price rule's pattern; the MFN row says why MFN stands.
    assert mfn["state"] == price["state"] == "REJECTED"
    assert mfn["rationale"] == MFN_QUESTION
    assert price["rationale"] == "Matched the rule's rejected pattern: 'most favored'"


def test_csv_cells_quoting_the_contract_have_no_pdf_spacing(client, reviewer, review):
    for row in csv_rows(client, reviewer, review):
        assert "for a term of 12 months." in row["passage_text"]
        assert "  " not in row["passage_text"] and "  " not in row["matched_text"]


def test_word_memo_has_one_comment_per_issue(client, reviewer, review):
    document = Document(io.BytesIO(download(client, reviewer, review, "docx").content))
    comments = [comment.text for comment in document.comments]
    assert len(comments) == 2 and len(set(comments)) == 2
    mfn = next(c for c in comments if "Most Favored Nation" in c)
    assert mfn.startswith("en.t.mfn.context, en.t.mfn.terms — Most Favored Nation (high)")
    assert f"Rationale: {MFN_QUESTION}" in mfn
    price = next(c for c in comments if "Price Restrictions" in c)
    # the offline engine's match as the page says it, with the matched words
    assert (
        "Rationale: The rule's wording for an unacceptable clause matched (quoted). “most favored”"
        in price
    )
    assert all(
        text.endswith("for a term of 12 months.") for text in anchored_texts(document).values()
    )
    assert "of          12" not in memo_text(document)


def test_a_model_rationale_belongs_to_the_category_it_answered(review):
    compiled = playbook_compiled(review.playbook_version)
    passage = review.contract.passages.get(index=0)
    answered = Verification(
        passage=passage,
        engine="anthropic",
        model="claude-test",
        outcome="REJECTED",
        rationale="The price is fixed.",
        rule_ids=["en.t.price.terms", "en.t.mfn.terms"],
    )

    def rationale(category, rule_ids):
        return issue_rationale(
            compiled,
            verification=answered,
            passage=passage,
            category=category,
            rule_ids=rule_ids,
            verified_category="Price Restrictions",
        )

    assert rationale("Price Restrictions", ("en.t.price.terms",)) == "The price is fixed."
    assert rationale("Most Favored Nation", ("en.t.mfn.terms",)) == (
        "Not verified on its own: the verifier answered the Price Restrictions question. "
        + MFN_QUESTION
    )


def test_export_model_issue_count_is_the_lawyers_count(review):
    export = review_export_model(review=review)
    assert len(export.issues) == 2
    assert len(export.flagged_passages) == 1
