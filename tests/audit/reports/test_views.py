import csv
import io
import re
from datetime import timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone
from pypdf import PdfReader

from reviewapp.accounts.models import Role

pytestmark = pytest.mark.django_db


@pytest.fixture
def admin_client(client, world):
    client.force_login(world.admin)
    return client


def figure(response, key: str) -> str:
    html = response.content.decode()
    marker = f'data-figure="{key}">'
    start = html.index(marker) + len(marker)
    return html[start : html.index("</dd>", start)]


@pytest.mark.parametrize("who", ["rita", "lee"])
def test_reviewers_and_lawyers_are_refused(client, world, who):
    client.force_login(getattr(world, who))
    for url in ("/reports/", "/reports/report.csv", "/reports/report.pdf"):
        assert client.get(url).status_code == 403


def test_anonymous_visitors_are_sent_to_sign_in(client, world):
    response = client.get("/reports/")
    assert response.status_code == 302 and "/login/" in response["Location"]


def test_admin_sees_the_figures_charts_and_rules(admin_client):
    response = admin_client.get("/reports/")
    assert response.status_code == 200
    assert figure(response, "contracts_reviewed") == "3"
    assert figure(response, "routed_share_passages") == "66.7% (6 / 9)"
    assert figure(response, "routed_share_characters") == "55.7% (390 / 700)"
    assert figure(response, "overturn_rate") == "50.0% (1 / 2)"
    assert figure(response, "queue_turnaround_p95_s") == "27.2 h"
    assert figure(response, "sla_breaches") == "2"
    assert figure(response, "cost_usd") == "$0.06"
    html = response.content.decode()
    assert html.count('class="column"') == 30  # one column per day of the default period
    assert "<title>R1: 4</title>" in html and "<title>Anti-Assignment: 5</title>" in html
    assert 'data-rule="R1"' in html and 'href="/reports/"' in html  # nav link


def test_filters_in_the_query_string_narrow_the_page(admin_client, world):
    response = admin_client.get("/reports/", {"matter": world.m2.pk})
    assert figure(response, "contracts_reviewed") == "1"
    assert figure(response, "passages_scanned") == "2"


def test_a_period_that_ends_before_it_starts_is_explained(admin_client):
    response = admin_client.get("/reports/", {"date_from": "2026-02-01", "date_to": "2026-01-01"})
    assert response.status_code == 400
    assert "The start date must not be after the end date." in response.content.decode()


def test_a_matter_of_another_organisation_is_not_a_choice(admin_client, world):
    other = world.builder.contracts["X"].matter
    response = admin_client.get("/reports/", {"matter": other.pk})
    assert response.status_code == 400
    assert "Select a valid choice" in response.content.decode()


def test_csv_has_the_figures_and_the_rule_table(admin_client, world):
    response = admin_client.get("/reports/report.csv", {"engine": "anthropic"})
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/csv")
    assert "attachment" in response["Content-Disposition"]
    rows = list(csv.reader(io.StringIO(response.content.decode())))
    values = {row[2]: row[3] for row in rows if len(row) == 5}
    assert values["contracts_reviewed"] == "1"
    assert values["model_calls"] == "2"
    assert values["cost_usd"] == "0.060000"
    assert ["Engine", "anthropic"] in rows
    rules = [row for row in rows if row and row[0] in ("R1", "R3")]
    assert rules == [
        ["R1", "Anti-Assignment", "1", "0", "1", "0", "0", "0.0%"],
        ["R3", "Anti-Assignment", "1", "0", "1", "0", "1", "0.0%"],
    ]


def test_pdf_opens_and_carries_the_figures(admin_client, world):
    world.m1.name = "合同审查"
    world.m1.save()
    response = admin_client.get("/reports/report.pdf", {"matter": world.m1.pk})
    assert response.status_code == 200
    assert response["Content-Type"] == "application/pdf"
    text = "\n".join(page.extract_text() for page in PdfReader(io.BytesIO(response.content)).pages)
    assert "Clausewise audit report" in text
    assert "Contracts reviewed" in text
    assert "Overturn rate" in text and "50.0% (1 / 2)" in text
    assert "合同审查" in text  # the matter's name, in a CJK font
    assert "$0.06" in text and "R1" in text and "Anti-Assignment" in text
    words = set(re.findall(r"\w+", text))
    assert {"Ended", "confirmed", "rejected", "lawyer", "settled"} <= words  # no word cut in two
    assert not {"onfirmed", "ejected", "awyer"} & words


def _more_contracts(world, count: int) -> None:
    b = world.builder
    for n in range(count):
        key = f"extra{n}"
        b.contract(key, matter=world.m1, by=world.rita, days_ago=n % 20, status="BLOCKED")
        passage = b.passage(key, length=40, state="REJECTED")
        b.fire(passage, "R9", "Indemnity", action="reject")
        b.verify(passage, "REJECTED")
        b.item(
            passage,
            state="REJECTED",
            opened_after=timedelta(0),
            due_in=timedelta(hours=4),
            decided_in=timedelta(hours=1),
            decision="accept",
            lawyer=world.lee,
        )
        b.call(key, "verify", (10, 10, 0, 0), "0.001")


def _queries(client) -> int:
    with CaptureQueriesContext(connection) as captured:
        assert client.get("/reports/").status_code == 200
    return len(captured)


def test_page_queries_do_not_grow_with_the_number_of_contracts(
    admin_client, world, django_assert_max_num_queries
):
    _more_contracts(world, 0)
    with_three = _queries(admin_client)
    _more_contracts(world, 27)
    with django_assert_max_num_queries(with_three):
        response = admin_client.get("/reports/")
    assert figure(response, "contracts_reviewed") == "30"
    assert _queries(admin_client) == with_three


def test_admin_of_a_matter_sees_the_whole_organisation(client, world, make_user):
    from reviewapp.accounts.models import Membership

    boss = make_user("boss")
    Membership.objects.create(user=boss, matter=world.m2, role=Role.ADMIN)
    client.force_login(boss)
    response = client.get("/reports/", {"date_to": timezone.now().date().isoformat()})
    assert figure(response, "contracts_reviewed") == "3"


def test_csv_model_usage_rows_match_their_header(admin_client, world):
    response = admin_client.get("/reports/report.csv")
    rows = list(csv.reader(io.StringIO(response.content.decode())))
    start = rows.index(
        ["purpose", "model", "calls", "input", "output", "cache_read", "cache_write", "cost_usd"]
    )
    usage = rows[start + 1 : rows.index([], start)]
    assert usage and all(len(row) == len(rows[start]) for row in usage)
