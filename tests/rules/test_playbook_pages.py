import pytest

from reviewapp.rules.models import Playbook

pytestmark = pytest.mark.django_db

EDITED = """
name: ours
version: "1"
language: en
rules:
  - id: en.ours.assignment
    category: Anti-Assignment
    severity: high
    action: verify
    patterns: ['assign\\w*']
"""


def test_admin_copies_edits_and_activates_a_playbook(admin_client):
    shipped = Playbook.objects.get(name="commercial-en")
    page = admin_client.get("/playbooks/")
    assert page.status_code == 200 and b"commercial-zh" in page.content
    response = admin_client.post(f"/playbooks/{shipped.pk}/copy/", {"name": "ours"})
    copy = Playbook.objects.get(name="ours")
    assert response["Location"] == f"/playbooks/{copy.pk}/"
    saved = admin_client.post(f"/playbooks/{copy.pk}/edit/", {"source": EDITED, "note": "tight"})
    assert saved.status_code == 302
    assert copy.versions.count() == 2
    detail = admin_client.get(f"/playbooks/{copy.pk}/").content.decode()
    assert "en.ours.assignment" in detail and "ours@2" in detail
    admin_client.post(f"/playbooks/{copy.pk}/activate/")
    copy.refresh_from_db()
    assert copy.is_active


def test_invalid_edit_is_refused_with_the_rule_named(admin_client):
    shipped = Playbook.objects.get(name="commercial-en")
    admin_client.post(f"/playbooks/{shipped.pk}/copy/", {"name": "ours"})
    copy = Playbook.objects.get(name="ours")
    broken = EDITED.replace("assign\\w*", "(?=assign)")
    assert broken != EDITED
    response = admin_client.post(f"/playbooks/{copy.pk}/edit/", {"source": broken})
    assert response.status_code == 400
    assert "en.ours.assignment" in response.content.decode()
    assert copy.versions.count() == 1


def test_live_test_box_returns_match_spans(admin_client):
    text = "1. Neither party may assign this Agreement."
    response = admin_client.post(
        "/api/playbooks/test/", {"source": EDITED, "text": text}, content_type="application/json"
    )
    hits = response.json()["hits"]
    assert [(h["rule_id"], h["match"]) for h in hits] == [("en.ours.assignment", "assign")]
    assert text[hits[0]["start"] : hits[0]["end"]] == "assign"


def test_playbook_pages_are_for_admins_only(client, reviewer, matter):
    client.force_login(reviewer)
    assert client.get("/playbooks/").status_code == 404
    response = client.post(
        "/api/playbooks/test/", {"source": EDITED, "text": "x"}, content_type="application/json"
    )
    assert response.status_code == 403


def test_hit_counts_of_a_shared_playbook_count_only_your_organisations_reviews(
    admin_client, make_user, make_matter
):
    from reviewapp.reviews.services import review_scan
    from tests.factories import ingested_contract

    text = "1. Assignment. Neither party may assign this Agreement without consent.\n"
    other = make_matter(name="Theirs", organisation="Other LLP")
    review_scan(contract_id=ingested_contract(matter=other, text=text).pk, enqueue=False)
    shipped = Playbook.objects.get(name="commercial-en")
    page = admin_client.get(f"/playbooks/{shipped.pk}/").content.decode()
    row = page[page.index("<code>en.anti-assignment.terms</code>") :]
    assert row[: row.index("</tr>")].endswith('<td class="hits">0</td>')
