"""The grid as XLSX (read back with openpyxl) and CSV: the chosen columns, links back to the
app, text that a spreadsheet would run as a formula kept as text, and every export audited."""

from __future__ import annotations

import csv
import io
import re
import zipfile
from datetime import datetime

import pytest
from django.urls import reverse
from openpyxl import load_workbook

from reviewapp.audit.models import AuditAction, AuditEvent
from tests.portfolio.conftest import with_facts

pytestmark = pytest.mark.django_db
HOST = "http://testserver"


@pytest.fixture
def grid_contracts(review_contract):
    first = review_contract(name='=HYPERLINK("http://evil")')
    with_facts(first)
    second = review_contract(
        text="1. Notices. Notices shall be in writing.\n\n2. Assignment. Do not assign.\n",
        name="b.txt",
    )
    with_facts(
        second, {"Governing Law": {"value": "GB-ENG", "display": "+England", "passage_index": 0}}
    )
    return first, second


def _workbook(client, matter, **params):
    response = client.get(reverse("portfolio-export-xlsx", args=[matter.pk]), params)
    assert response.status_code == 200
    assert response["Content-Type"].startswith("application/vnd.openxmlformats")
    return load_workbook(io.BytesIO(response.content))


def test_the_xlsx_has_a_facts_sheet_and_an_issues_sheet_with_links(
    client, matter, reviewer, grid_contracts
):
    first, second = grid_contracts
    client.force_login(reviewer)
    workbook = _workbook(client, matter)
    assert workbook.sheetnames == ["Facts", "Issues"]
    facts = workbook["Facts"]
    header = [cell.value for cell in facts[1]]
    assert header[:5] == ["Contract", "Document", "Review", "Playbook", "Open items"]
    law, mfn = header.index("Governing Law") + 1, header.index("Most Favored Nation") + 1
    rows = {facts.cell(row, 1).value: row for row in range(2, facts.max_row + 1)}
    assert set(rows) == {'=HYPERLINK("http://evil")', "b.txt"}  # as named, no apostrophe
    evil, plain = rows['=HYPERLINK("http://evil")'], rows["b.txt"]
    assert facts.cell(evil, 1).data_type == "s"  # text, not a formula
    assert facts.cell(evil, 1).hyperlink.target == f"{HOST}/contracts/{first.pk}/"
    assert facts.cell(evil, law).value == "New York"
    assert facts.cell(evil, law).hyperlink.target == f"{HOST}/contracts/{first.pk}/#passage-4"
    assert facts.cell(plain, law).value == "+England"
    assert facts.cell(evil, mfn).value.startswith("Rejected · critical")
    assert facts.cell(plain, mfn).value == "not found"
    assert isinstance(facts.cell(evil, header.index("Open items") + 1).value, int)

    issues = workbook["Issues"]
    assert [c.value for c in issues[1]][:6] == [
        "Contract",
        "Passage",
        "Heading",
        "Category",
        "Severity",
        "State",
    ]
    found = {
        (issues.cell(r, 1).value, issues.cell(r, 4).value) for r in range(2, issues.max_row + 1)
    }
    assert ("b.txt", "Anti-Assignment") in found
    assert ('=HYPERLINK("http://evil")', "Most Favored Nation") in found
    assert issues.cell(2, 2).hyperlink.target.startswith(f"{HOST}/contracts/")
    assert "#passage-" in issues.cell(2, 2).hyperlink.target
    event = AuditEvent.objects.get(action=AuditAction.EXPORT_CREATED, target_type="matter")
    assert event.data["format"] == "grid.xlsx" and event.data["contracts"] == 2


def test_a_name_excel_would_run_is_a_text_cell_shown_as_named(
    client, matter, reviewer, review_contract
):
    review_contract(name="=1+1.txt")
    client.force_login(reviewer)
    response = client.get(reverse("portfolio-export-xlsx", args=[matter.pk]))
    with zipfile.ZipFile(io.BytesIO(response.content)) as package:
        sheet = package.read("xl/worksheets/sheet1.xml").decode()
    assert re.search(r'<c r="A2"[^>]* t="inlineStr"><is><t>=1\+1\.txt</t></is></c>', sheet)
    assert "<f>" not in sheet  # no formula anywhere
    facts = load_workbook(io.BytesIO(response.content))["Facts"]
    assert (facts["A2"].value, facts["A2"].data_type) == ("=1+1.txt", "s")
    csv_rows = client.get(reverse("portfolio-export-csv", args=[matter.pk])).content
    assert "'=1+1.txt" in csv_rows.decode("utf-8-sig")  # the CSV keeps its guard


def test_the_xlsx_is_in_the_readers_language(client, matter, reviewer, grid_contracts):
    client.force_login(reviewer)
    response = client.get(
        reverse("portfolio-export-xlsx", args=[matter.pk]), HTTP_ACCEPT_LANGUAGE="zh-hans"
    )
    issues = load_workbook(io.BytesIO(response.content)).worksheets[1]
    rows = [[cell.value for cell in row] for row in issues.iter_rows(min_row=2)]
    assert ["最惠待遇", "严重", "已驳回"] in [row[3:6] for row in rows]
    assert "Most Favored Nation" not in {row[3] for row in rows}


def test_the_export_carries_the_columns_the_user_chose(client, matter, reviewer, grid_contracts):
    client.force_login(reviewer)
    facts = _workbook(client, matter, columns="fact:Governing Law,review_status,bogus")["Facts"]
    assert [cell.value for cell in facts[1]] == ["Contract", "Governing Law", "Review"]


def test_the_csv_is_guarded_and_linked(client, matter, reviewer, grid_contracts):
    first, _second = grid_contracts
    client.force_login(reviewer)
    url = reverse("portfolio-export-csv", args=[matter.pk])
    response = client.get(url, {"columns": "fact:Governing Law"})
    assert response["Content-Type"].startswith("text/csv")
    rows = list(csv.reader(io.StringIO(response.content.decode("utf-8-sig"))))
    assert rows[0] == ["Contract", "Link", "Governing Law"]
    by_name = {row[0]: row for row in rows[1:]}
    assert by_name['\'=HYPERLINK("http://evil")'][1] == f"{HOST}/contracts/{first.pk}/"
    assert by_name["b.txt"][2] == "'+England"


def test_exports_are_for_members_only(client, matter, make_user, grid_contracts):
    client.force_login(make_user("otto"))
    for name in ("portfolio-export-xlsx", "portfolio-export-csv"):
        assert client.get(reverse(name, args=[matter.pk])).status_code == 404
    assert not AuditEvent.objects.filter(action=AuditAction.EXPORT_CREATED).exists()


def test_a_date_is_a_date_cell_and_a_qualified_one_keeps_its_words_in_the_format(
    client, matter, reviewer, review_contract
):
    contract = review_contract(name="dated.txt")
    with_facts(
        contract,
        {
            "Agreement Date": {"value": "2021-03-03", "display": "3rd March 2021"},
            "Expiration Date": {"value": "2024-03-03", "display": "3 years", "guessed": True},
        },
    )
    client.force_login(reviewer)
    columns = "fact:Agreement Date,fact:Expiration Date"
    facts = _workbook(client, matter, columns=columns)["Facts"]
    agreement, expiration = facts.cell(2, 2), facts.cell(2, 4)
    assert agreement.value == datetime(2021, 3, 3) and agreement.number_format == "yyyy-mm-dd"
    assert agreement.hyperlink is not None  # still opens the passage
    # a date with our words around it still sorts as a date; the words show through its format
    assert expiration.value == datetime(2024, 3, 3)
    assert expiration.number_format == 'yyyy-mm-dd" (unsure)"'
    # and each date column is followed by its qualifier, to filter by
    assert [facts.cell(1, n).value for n in (3, 5)] == [
        "Agreement Date: qualifier",
        "Expiration Date: qualifier",
    ]
    assert facts.cell(2, 3).value in (None, "") and facts.cell(2, 5).value == "unsure"
    response = client.get(reverse("portfolio-export-csv", args=[matter.pk]), {"columns": columns})
    rows = list(csv.reader(io.StringIO(response.content.decode("utf-8-sig"))))
    assert rows[1][2:] == ["2021-03-03", "2024-03-03 (unsure)"]


def test_an_unsure_date_stays_a_date_cell_naming_its_competitor(
    client, matter, reviewer, review_contract
):
    candidate = {"value": "2005-02-04", "display": "4 February 2005", "passage_index": 3}
    with_facts(
        review_contract(name="amended.txt"),
        {
            "Agreement Date": {"value": "2019-03-12", "display": "12 March 2019", "unsure": True,
                               "candidate": candidate},
        },
    )  # fmt: skip
    client.force_login(reviewer)
    cell = _workbook(client, matter, columns="fact:Agreement Date")["Facts"].cell(2, 2)
    assert cell.value == datetime(2019, 3, 12)  # sorts as the date it says
    assert cell.number_format == 'yyyy-mm-dd" (unsure: also Feb. 4, 2005, passage #3)"'
    response = client.get(
        reverse("portfolio-export-csv", args=[matter.pk]), {"columns": "fact:Agreement Date"}
    )
    rows = list(csv.reader(io.StringIO(response.content.decode("utf-8-sig"))))
    assert rows[1][2] == "2019-03-12 (unsure: also Feb. 4, 2005, passage #3)"
