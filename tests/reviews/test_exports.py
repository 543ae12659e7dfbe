"""Review exports: the Word memo with anchored comments, JSON and CSV, on real reviews."""

from __future__ import annotations

import csv
import io
import json

import pytest
from docx import Document
from docx.text.run import Run
from rest_framework.authtoken.models import Token

from reviewapp.accounts.models import Membership, Role
from reviewapp.csv_safety import csv_safe
from reviewapp.queue.models import QueueItem
from reviewapp.queue.services import queue_item_claim, queue_item_decide
from reviewapp.reviews.exports.csv_export import COLUMNS
from reviewapp.reviews.exports.docx_memo import CONTENT_TYPE as DOCX_TYPE
from reviewapp.reviews.exports.selectors import review_export_model
from reviewapp.reviews.models import Draft, ModelCall
from reviewapp.reviews.services import review_scan
from tests.factories import CONTRACT, STRICT, active_playbook, ingested_contract
from tests.reviews.test_claude_engine import claude  # noqa: F401 - the fake Messages API
from tests.reviews.test_claude_engine import review_of as claude_review_of

pytestmark = pytest.mark.django_db

W = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}"
MFN_RULE, ASSIGNMENT_RULE = "en.strict.mfn", "en.strict.assignment"


@pytest.fixture
def lawyer(make_user, matter):
    lee = make_user("lee")
    Membership.objects.create(user=lee, matter=matter, role=Role.LAWYER)
    return lee


def reviewed(matter, capture, *, text=CONTRACT, name="msa.txt", playbook=STRICT):
    """A review run to the end by the offline engine: draft complete, passages verified."""
    if playbook:
        active_playbook(organisation=matter.organisation, source=playbook)
    contract = ingested_contract(matter=matter, text=text, name=name)
    with capture(execute=True):
        return review_scan(contract_id=contract.pk)


def decide(review, lawyer, *, rule_id, decision, note):
    item = QueueItem.objects.get(review=review, passage__firings__rule_id=rule_id)
    queue_item_claim(item_id=item.pk, user=lawyer)
    queue_item_decide(item_id=item.pk, user=lawyer, decision=decision, note=note)


@pytest.fixture
def review(matter, lawyer, django_capture_on_commit_callbacks):
    review = reviewed(matter, django_capture_on_commit_callbacks)
    decide(review, lawyer, rule_id=MFN_RULE, decision="reject", note="Unacceptable MFN.")
    return review


def draft_data(review):
    return Draft.objects.get(review=review).data


def download(client, user, review, fmt):
    client.force_login(user)
    return client.get(f"/reviews/{review.pk}/export.{fmt}")


def anchored_texts(document) -> dict[int, str]:
    """Comment id -> the text of the runs between its commentRangeStart and commentRangeEnd."""
    texts = {}
    for start in document.element.body.iter(f"{W}commentRangeStart"):
        comment_id, parts, node = start.get(f"{W}id"), [], start.getnext()
        while not (node.tag == f"{W}commentRangeEnd" and node.get(f"{W}id") == comment_id):
            if node.tag == f"{W}r":
                parts.append(Run(node, None).text)
            node = node.getnext()
        texts[int(comment_id)] = "".join(parts)
    return texts


def memo_text(document) -> str:
    cells = [c.text for t in document.tables for row in t.rows for c in row.cells]
    return "\n".join([p.text for p in document.paragraphs] + cells)


def test_docx_memo_downloads_with_summary_facts_issues_and_engines(client, reviewer, review):
    response = download(client, reviewer, review, "docx")
    assert response.status_code == 200
    assert response["Content-Type"] == DOCX_TYPE
    assert response["Content-Disposition"] == (
        f'attachment; filename="msa-review-{review.pk}.docx"'
    )
    document = Document(io.BytesIO(response.content))
    text = memo_text(document)
    assert "Contract: msa.txt" in text and "Matter: Matter (Org)" in text
    assert "UTC" in text
    assert "Drafted by the offline engine: no language model was used." in text
    assert "offline engine (no language model): 1" in text
    assert "Decided by lawyers — lee: 1." in text
    assert draft_data(review)["summary"] in text
    issue_table = next(t for t in document.tables if len(t.columns) == 7)
    rows = {row.cells[2].text: [c.text for c in row.cells] for row in issue_table.rows[1:]}
    assert rows[MFN_RULE][3:5] == ["critical", "Rejected"]
    assert rows[MFN_RULE][6] == "Rejected by lee: Unacceptable MFN."
    assert rows[ASSIGNMENT_RULE][4] == "Needs human review"
    assert rows[ASSIGNMENT_RULE][5].startswith(
        "Needs human review: The offline engine could not settle it from the rule's wording."
    )
    assert rows[ASSIGNMENT_RULE][6] == "Waiting for a lawyer"


def test_the_memo_shows_a_guessed_or_contested_date_as_unsure(client, reviewer, review):
    draft = Draft.objects.get(review=review)
    draft.data["key_facts"]["Expiration Date"] = {
        "value": "2022-03-01", "display": "March 1, 2022", "passage_index": 2, "quote": "",
        "computed": True, "guessed": True, "score": 0.41,
    }  # fmt: skip
    draft.data["key_facts"]["Agreement Date"] = {
        "value": "2019-03-12", "display": "12 March 2019", "passage_index": 1, "quote": "",
        "unsure": True, "candidate": {"value": "2005-02-04", "display": "4 February 2005",
                                      "passage_index": 3, "quote": "4 February 2005"},
    }  # fmt: skip
    draft.save(update_fields=["data"])
    document = Document(io.BytesIO(download(client, reviewer, review, "docx").content))
    facts = next(t for t in document.tables if t.rows[0].cells[0].text == "Fact")
    shown = {row.cells[0].text: row.cells[1].text for row in facts.rows[1:]}
    assert shown["Expiration Date"] == "March 1, 2022 (unsure)"
    # a date with a close competing value names it
    assert shown["Agreement Date"] == "12 March 2019 (unsure: also 4 February 2005, passage #3)"


def test_the_memo_is_in_the_readers_language(client, reviewer, review):
    """A Chinese reader's memo names categories, facts, states and who decided in Chinese; the
    JSON export, read by machines, stays in English whoever downloads it."""
    client.force_login(reviewer)
    client.cookies["django_language"] = "zh-hans"
    memo = client.get(f"/reviews/{review.pk}/export.docx", HTTP_ACCEPT_LANGUAGE="zh-hans")
    document = Document(io.BytesIO(memo.content))
    text = memo_text(document)
    issue_table = next(t for t in document.tables if len(t.columns) == 7)
    rows = {row.cells[2].text: [c.text for c in row.cells] for row in issue_table.rows[1:]}
    assert rows[MFN_RULE][1] == "最惠待遇" and rows[MFN_RULE][6] == "由 lee 驳回: Unacceptable MFN."
    assert rows[ASSIGNMENT_RULE][4] == "需人工审阅" and rows[ASSIGNMENT_RULE][6] == "等待律师处理"
    assert "初稿由离线引擎生成：未使用语言模型。" in text and "Drafted by" not in text
    assert "Assembled by the offline engine" not in text  # the offline summary, as the page says it
    recommendations = next(t for t in document.tables if len(t.columns) == 4)
    assert "最惠待遇" in [row.cells[2].text for row in recommendations.rows[1:]]
    assert "Needs human review" not in text and "Waiting for a lawyer" not in text
    data = json.loads(
        client.get(f"/reviews/{review.pk}/export.json", HTTP_ACCEPT_LANGUAGE="zh-hans").content
    )
    assert data["engines"]["statements"]["draft"].startswith("Drafted by the offline engine")


def test_each_issue_is_a_word_comment_anchored_on_its_clause(client, reviewer, review):
    document = Document(io.BytesIO(download(client, reviewer, review, "docx").content))
    comments = {comment.comment_id: comment.text for comment in document.comments}
    anchors = anchored_texts(document)
    assert len(comments) == 2 and set(anchors) == set(comments)
    passages = {
        rule_id: review.contract.passages.get(firings__rule_id=rule_id).text
        for rule_id in (MFN_RULE, ASSIGNMENT_RULE)
    }
    for comment_id, comment in comments.items():
        rule_id = comment.split(" ", 1)[0]
        assert anchors[comment_id] == passages[rule_id]
    assignment = next(c for c in comments.values() if c.startswith(ASSIGNMENT_RULE))
    assert "Outcome: Needs human review: The offline engine could not settle it" in assignment
    assert "Lawyer decision: Waiting for a lawyer" in assignment
    mfn = next(c for c in comments.values() if c.startswith(MFN_RULE))
    assert "set by the trigger rule" in mfn and "Rejected by lee: Unacceptable MFN." in mfn


def test_json_export_matches_the_review(client, reviewer, review):
    response = download(client, reviewer, review, "json")
    assert response["Content-Type"] == "application/json; charset=utf-8"
    assert response["Content-Disposition"].endswith(f'filename="msa-review-{review.pk}.json"')
    data = json.loads(response.content)
    assert data["schema"] == "clausewise.review-export/1"
    assert data["review"]["id"] == review.pk
    assert data["review"]["playbook_version"] == review.playbook_version.label
    assert data["engines"]["draft"] == "offline"
    assert data["summary"] == draft_data(review)["summary"]
    assert data["key_facts"] == draft_data(review)["key_facts"]
    issues = {issue["rule_id"]: issue for issue in data["issues"]}
    assert set(issues) == {MFN_RULE, ASSIGNMENT_RULE}
    for issue in issues.values():
        passage = issue["passage"]
        assert CONTRACT[passage["start"] : passage["end"]] == passage["text"]
        for firing in issue["firings"]:
            assert CONTRACT[firing["start"] : firing["end"]] == firing["text"]
    assert issues[MFN_RULE]["verification"] is None
    assert issues[MFN_RULE]["decision"]["decision"] == "reject"
    assert issues[MFN_RULE]["decision"]["decided_by"] == "lee"
    assert issues[ASSIGNMENT_RULE]["verification"]["engine"] == "offline"
    assert issues[ASSIGNMENT_RULE]["verification"]["outcome"] == "NEEDS_HUMAN_REVIEW"


def test_csv_export_has_a_bom_a_header_and_one_row_per_issue(client, reviewer, review):
    response = download(client, reviewer, review, "csv")
    assert response["Content-Type"] == "text/csv; charset=utf-8"
    assert response["Content-Disposition"].endswith(f'filename="msa-review-{review.pk}.csv"')
    assert response.content.startswith(b"\xef\xbb\xbf")
    rows = list(csv.DictReader(io.StringIO(response.content.decode("utf-8-sig"))))
    assert list(rows[0]) == COLUMNS
    assert sorted(row["rule_id"] for row in rows) == [ASSIGNMENT_RULE, MFN_RULE]
    mfn = next(row for row in rows if row["rule_id"] == MFN_RULE)
    assert mfn["state"] == "REJECTED" and mfn["lawyer_decision"] == "reject"
    assert mfn["passage_text"] == review.contract.passages.get(firings__rule_id=MFN_RULE).text


@pytest.mark.parametrize(
    "dangerous",
    [
        "=1+1",
        "+1",
        "-1",
        "@SUM(A1)",
        "\tx",
        "\rx",
        "\n=1+1",
        "  =HYPERLINK(x)",
        "\uff1d1+1",
        "\u3000\uff0bcmd",
        "\u00a0@x",
    ],
)
def test_csv_cells_that_look_like_formulas_get_a_quote(dangerous):
    assert csv_safe(dangerous) == "'" + dangerous
    assert csv_safe("fine = ok") == "fine = ok"
    assert csv_safe(-1) == -1


def test_csv_export_neutralises_formulas_from_names_and_notes(
    client, matter, reviewer, lawyer, django_capture_on_commit_callbacks
):
    review = reviewed(matter, django_capture_on_commit_callbacks, name="=cmd|' /C calc'!A0.txt")
    note = '=HYPERLINK("http://evil.example","click")'
    decide(review, lawyer, rule_id=MFN_RULE, decision="reject", note=note)
    content = download(client, reviewer, review, "csv").content.decode("utf-8-sig")
    mfn = next(row for row in csv.DictReader(io.StringIO(content)) if row["rule_id"] == MFN_RULE)
    assert mfn["lawyer_note"] == "'" + note
    assert mfn["contract"].startswith("'=cmd")


@pytest.mark.parametrize("fmt", ["docx", "json", "csv"])
def test_exports_are_hidden_from_users_outside_the_matter(
    client, make_user, make_matter, review, fmt
):
    colleague = make_user("cole")  # same organisation, another matter
    make_matter(name="Other", organisation="Org", members=[(colleague, Role.ADMIN)])
    outsider = make_user("otto")
    make_matter(name="Theirs", organisation="Rival LLP", members=[(outsider, Role.LAWYER)])
    assert download(client, colleague, review, fmt).status_code == 404
    assert download(client, outsider, review, fmt).status_code == 404
    client.logout()
    response = client.get(f"/reviews/{review.pk}/export.{fmt}")
    assert response.status_code == 302 and "/login/" in response["Location"]
    assert client.get(f"/api/reviews/{review.pk}/export.{fmt}").status_code == 401


def test_every_download_is_recorded_once_and_refusals_are_not(
    client, reviewer, make_user, review, monkeypatch
):
    calls = []
    monkeypatch.setattr(
        "reviewapp.reviews.export_views.export_recorded",
        lambda **kwargs: calls.append(
            (kwargs["review"].pk, kwargs["user"].username, kwargs["fmt"])
        ),
    )
    for fmt in ("docx", "json", "csv"):
        download(client, reviewer, review, fmt)
    download(client, make_user("stranger"), review, "docx")
    assert calls == [
        (review.pk, "rita", "docx"),
        (review.pk, "rita", "json"),
        (review.pk, "rita", "csv"),
    ]


def test_api_export_works_with_a_token_and_is_documented(client, reviewer, review):
    token = Token.objects.create(user=reviewer)
    response = client.get(
        f"/api/reviews/{review.pk}/export.json", HTTP_AUTHORIZATION=f"Token {token.key}"
    )
    assert response.status_code == 200
    assert json.loads(response.content)["review"]["id"] == review.pk
    assert (
        client.get(
            f"/api/reviews/{review.pk}/export.pdf", HTTP_AUTHORIZATION=f"Token {token.key}"
        ).status_code
        == 404
    )
    client.force_login(reviewer)
    schema = client.get("/api/schema/").content.decode()
    assert "/api/reviews/{review_id}/export.{fmt}" in schema


def test_review_in_progress_says_how_many_passages_are_pending(client, reviewer, matter):
    active_playbook(organisation=matter.organisation, source=STRICT)
    contract = ingested_contract(matter=matter, text=CONTRACT)
    review = review_scan(contract_id=contract.pk, enqueue=False)  # no draft, nothing verified
    text = memo_text(Document(io.BytesIO(download(client, reviewer, review, "docx").content)))
    assert "Review in progress: 1 passage still pending; 1 waiting for a lawyer." in text
    assert "No complete draft yet (draft queued)." in text
    data = json.loads(download(client, reviewer, review, "json").content)
    assert data["review"]["in_progress"] is True
    assert data["counts"]["pending"] == 1 and data["counts"]["awaiting_lawyer"] == 1
    pending = next(i for i in data["issues"] if i["rule_id"] == ASSIGNMENT_RULE)
    assert pending["verification"]["status"] == "QUEUED"


ZH_CONTRACT = """买卖合同

第一条 付款 买方应于收到发票后三十日内付款。逾期付款的，按每日万分之五支付滞纳金。

第二条 违约责任 任何一方违约的，应向对方支付合同总价款百分之二十的违约金。

第三条 通知 双方的通知应以书面形式送达。
"""


def test_chinese_contract_text_is_intact_in_every_format(
    client, reviewer, matter, django_capture_on_commit_callbacks
):
    review = reviewed(
        matter,
        django_capture_on_commit_callbacks,
        text=ZH_CONTRACT,
        name="买卖合同.txt",
        playbook=None,
    )
    penalty = review.contract.passages.get(text__contains="违约金")
    response = download(client, reviewer, review, "docx")
    assert (
        "filename*=utf-8''%E4%B9%B0%E5%8D%96%E5%90%88%E5%90%8C-review-"
        in (response["Content-Disposition"])
    )
    document = Document(io.BytesIO(response.content))
    assert penalty.text in anchored_texts(document).values()
    assert any("违约金" in comment.text for comment in document.comments)
    data = json.loads(download(client, reviewer, review, "json").content)
    assert data["contract"]["name"] == "买卖合同.txt" and data["contract"]["language"] == "zh"
    assert penalty.text in [issue["passage"]["text"] for issue in data["issues"]]
    assert "违约金".encode() in download(client, reviewer, review, "json").content
    rows = csv.DictReader(
        io.StringIO(download(client, reviewer, review, "csv").content.decode("utf-8-sig"))
    )
    assert penalty.text in [row["passage_text"] for row in rows]


def test_text_xml_cannot_carry_is_replaced_not_fatal(
    client, reviewer, matter, django_capture_on_commit_callbacks
):
    text = CONTRACT.replace("most favored nation", "most favored\x0cnation\x01")
    review = reviewed(matter, django_capture_on_commit_callbacks, text=text)
    document = Document(io.BytesIO(download(client, reviewer, review, "docx").content))
    assert any("most favored nation" in anchored for anchored in anchored_texts(document).values())


def test_export_model_reads_a_review_in_a_fixed_number_of_queries(
    matter, django_capture_on_commit_callbacks, django_assert_max_num_queries
):
    long_contract = "\n\n".join(
        f"{n}. Assignment. Neither party may assign without consent." for n in range(1, 41)
    )
    review = reviewed(matter, django_capture_on_commit_callbacks, text=long_contract)
    with django_assert_max_num_queries(8):
        export = review_export_model(review=review)
    assert len(export.issues) == 40


@pytest.mark.usefixtures("claude")
def test_claude_review_names_the_model_behind_the_draft_and_each_verification(
    client, reviewer, matter, django_capture_on_commit_callbacks
):
    review = claude_review_of(matter, django_capture_on_commit_callbacks)
    model = ModelCall.objects.filter(review=review, purpose="draft").first().model
    text = memo_text(Document(io.BytesIO(download(client, reviewer, review, "docx").content)))
    assert f"Drafted by Claude {model}." in text
    assert f"Claude {model}: " in text
    data = json.loads(download(client, reviewer, review, "json").content)
    assert data["engines"] == {**data["engines"], "review": "anthropic", "draft": "anthropic"}
    assert data["engines"]["draft_models"] == [model]
    verified = [i["verification"] for i in data["issues"] if i["verification"]]
    assert {v["verified_by"] for v in verified} >= {f"Claude {model}"}


def test_exports_partial_links_the_three_downloads(review):
    from django.template.loader import render_to_string

    html = render_to_string("reviews/_exports.html", {"review": review})
    for fmt in ("docx", "json", "csv"):
        assert f'href="/reviews/{review.pk}/export.{fmt}"' in html
    assert render_to_string("reviews/_exports.html", {"review": None}).strip() == ""
