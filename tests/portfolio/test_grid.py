"""The portfolio grid: rows, bounded queries, the JSON endpoint and its permission."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import translation

from reviewapp.accounts.models import Membership, Role
from reviewapp.contracts.models import PassageState
from reviewapp.portfolio.selectors import FACT_COLUMNS, grid_columns, portfolio_grid
from reviewapp.reviews.models import Draft
from reviewapp.reviews.services import review_scan
from tests.factories import CONTRACT, ingested_contract
from tests.portfolio.conftest import with_facts

pytestmark = pytest.mark.django_db


def test_a_row_shows_each_categorys_worst_state_and_the_facts(matter, review_contract):
    contract = review_contract()
    with_facts(contract)
    grid = portfolio_grid(matter_id=matter.pk)
    (row,) = grid.rows
    assert row["contract_id"] == contract.pk
    mfn = row["categories"]["Most Favored Nation"]
    assert (mfn["state"], mfn["severity"], mfn["open_items"]) == (
        PassageState.REJECTED,
        "critical",
        1,
    )
    passage = contract.passages.get(text__icontains="most favored")
    assert mfn["passage_index"] == passage.index and row["url"] == f"/contracts/{contract.pk}/"
    assert row["categories"]["Anti-Assignment"]["passages"] == 1
    assert row["open_items"] >= 1
    law = row["facts"]["Governing Law"]
    assert (law["display"], law["value"], law["sort"]) == ("New York", "US-NY", "US-NY")
    assert law["passage_index"] == 4
    assert row["facts"]["Parties"]["sort"] == "Acme Corp.; Beta LLC"  # a list sorts by its text
    assert grid.categories == sorted(row["categories"])
    assert list(grid.facts[: len(FACT_COLUMNS)]) == list(FACT_COLUMNS)
    keys = [column.key for column in grid_columns(grid)]
    assert "category:Most Favored Nation" in keys and "fact:Parties" in keys


def test_a_contract_not_reviewed_yet_has_a_row_without_cells(matter, strict_playbook):
    ingested_contract(matter=matter, text=CONTRACT, name="waiting.txt")
    (row,) = portfolio_grid(matter_id=matter.pk).rows
    assert row["review_status"] is None and row["categories"] == {} and row["facts"] == {}


def _reviewed_quickly(matter, n: int, start: int = 0) -> None:
    """n reviewed contracts (scan only, facts written straight into the draft)."""
    for number in range(start, start + n):
        text = CONTRACT + f"\n4. Reference. Deal {number}.\n"
        contract = ingested_contract(matter=matter, text=text, name=f"c{number:03}.txt")
        review = review_scan(contract_id=contract.pk, enqueue=False)
        facts = {"Governing Law": {"value": "US-NY", "display": "New York", "passage_index": 0}}
        Draft.objects.filter(review=review).update(data={"key_facts": facts})


def _queries(matter) -> tuple[int, int]:
    with CaptureQueriesContext(connection) as captured:
        rows = portfolio_grid(matter_id=matter.pk).rows
    return len(captured), len(rows)


def test_the_grid_costs_the_same_queries_for_10_or_100_contracts(matter, strict_playbook):
    _reviewed_quickly(matter, 10)
    ten, rows = _queries(matter)
    assert rows == 10
    _reviewed_quickly(matter, 90, start=10)
    hundred, rows = _queries(matter)
    assert rows == 100
    assert hundred == ten <= 6


def test_the_rows_endpoint_serves_members_only(
    client, matter, reviewer, make_user, review_contract
):
    contract = review_contract()
    url = reverse("api-matter-grid", args=[matter.pk])
    assert client.get(url).status_code in (401, 403)
    outsider = make_user("otto")
    client.force_login(outsider)
    assert client.get(url).status_code == 404
    client.force_login(reviewer)
    data = client.get(url).json()
    assert [row["contract_id"] for row in data["rows"]] == [contract.pk]
    assert {"key": "fact:Parties", "label": "Parties", "kind": "fact", "name": "Parties"} in (
        data["columns"]
    )
    one = client.get(url, {"contract": contract.pk}).json()
    assert len(one["rows"]) == 1
    assert client.get(url, {"contract": "x"}).status_code == 400


def test_the_grid_page_is_for_members_and_linked_from_the_matter(
    client, matter, reviewer, make_user
):
    url = reverse("portfolio-grid", args=[matter.pk])
    client.force_login(make_user("otto"))
    assert client.get(url).status_code == 404
    client.force_login(reviewer)
    page = client.get(url)
    assert page.status_code == 200
    assert reverse("api-matter-grid", args=[matter.pk]) in page.content.decode()
    assert url in client.get(reverse("matter", args=[matter.pk])).content.decode()


def test_the_rows_endpoint_is_in_the_api_schema(client, reviewer):
    client.force_login(reviewer)
    schema = client.get("/api/schema/", HTTP_ACCEPT="application/json").json()
    assert "/api/matters/{matter_id}/grid/" in schema["paths"]


def test_every_member_reads_the_grid_and_only_reviewers_and_admins_rerun(
    client, matter, reviewer, make_user
):
    lawyer = make_user("lou")
    Membership.objects.create(user=lawyer, matter=matter, role=Role.LAWYER)
    page_url = reverse("portfolio-grid", args=[matter.pk])
    client.force_login(lawyer)
    assert client.get(reverse("api-matter-grid", args=[matter.pk])).status_code == 200
    page = client.get(page_url).content.decode()
    assert "data-rerun-url" not in page and 'id="matter-rerun-form"' not in page
    client.force_login(reviewer)
    page = client.get(page_url).content.decode()
    assert "data-rerun-url" in page and 'id="matter-rerun-form"' in page


def test_dates_read_as_values_in_one_format_with_the_contracts_words_beside(
    matter, review_contract
):
    contract = review_contract()
    with_facts(
        contract,
        {
            "Agreement Date": {
                "value": "2005-11-03", "display": "3rd day of November, 2005", "passage_index": 1,
            },
            "Effective Date": {
                "value": "2020", "display": "[ ], 2020", "passage_index": 1,
                "derived_from": "Agreement Date",
            },
            "Expiration Date": {
                "value": "2015-11-03", "display": "ten (10) years", "passage_index": 2,
                "computed": True, "estimated": True,
            },
        },
    )  # fmt: skip
    (row,) = portfolio_grid(matter_id=matter.pk).rows
    facts = row["facts"]
    assert (facts["Agreement Date"]["display"], facts["Agreement Date"]["words"]) == (
        "Nov. 3, 2005",
        "3rd day of November, 2005",
    )
    assert facts["Agreement Date"]["sort"] == "2005-11-03"
    assert facts["Effective Date"]["display"] == "2020 (the agreement date)"
    assert facts["Expiration Date"]["display"] == "about Nov. 3, 2015"
    assert row["status_label"] == "Ready"  # as the matter page says it, not "Ingested"


def test_dates_in_the_grid_read_in_the_readers_language(matter, review_contract):
    contract = review_contract()
    with_facts(
        contract,
        {"Agreement Date": {"value": "2005-11", "display": "November __, 2005"}},
    )
    with translation.override("zh-hans"):
        (row,) = portfolio_grid(matter_id=matter.pk).rows
    assert row["facts"]["Agreement Date"]["display"] == "2005年11月"
