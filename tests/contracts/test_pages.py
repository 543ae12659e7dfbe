import pytest

from reviewapp.contracts.services import contract_ingest, contract_upload

pytestmark = pytest.mark.django_db


def test_login_required_for_pages(client):
    response = client.get("/")
    assert response.status_code == 302
    assert response["Location"].startswith("/login/")


def test_login_page_signs_in(client, reviewer):
    response = client.post("/login/", {"username": "rita", "password": "pw-rita"})
    assert response.status_code == 302
    assert client.get("/").status_code == 200


def test_contract_page_lists_passages_with_page_numbers(client, reviewer, matter):
    import io

    text = b"1. Scope\n\nThe Supplier shall deliver the Goods.\n\n2. Price\n\nThe price is fixed."
    contract, _ = contract_upload(
        matter=matter, file=io.BytesIO(text), name="c.txt", size=len(text), enqueue=False
    )
    contract_ingest(contract_id=contract.pk)
    client.force_login(reviewer)
    page = client.get(f"/contracts/{contract.pk}/").content.decode()
    assert "The Supplier shall deliver the Goods." in page
    assert "p. 1" in page
    assert "Ready" in page  # the words the matter page uses too


def test_matter_page_has_upload_zone(client, reviewer, matter):
    client.force_login(reviewer)
    page = client.get(f"/matters/{matter.pk}/").content.decode()
    assert 'id="dropzone"' in page
    assert f"/api/matters/{matter.pk}/contracts/" in page


def test_healthz_reports_database_and_redis(client):
    response = client.get("/healthz")
    assert response.status_code == 200
    assert response.json() == {"database": True, "redis": True}


def test_pages_name_an_icon_and_favicon_ico_finds_it(client):
    assert 'rel="icon"' in client.get("/login/").content.decode()
    response = client.get("/favicon.ico")
    assert response.status_code == 301
    assert response["Location"].endswith("img/favicon.svg")


def _reviewed_offline(matter, text: bytes):
    """A text upload ingested and reviewed by the offline engine here, nothing queued."""
    import io

    from reviewapp.reviews.inline import review_model_work_run

    contract, _ = contract_upload(
        matter=matter, file=io.BytesIO(text), name="c.txt", size=len(text), enqueue=False
    )
    contract_ingest(contract_id=contract.pk, enqueue=False)
    review_model_work_run(review_id=contract.review.pk)
    return contract


def test_contract_page_says_which_engine_drafted_and_checked(client, reviewer, matter):
    contract = _reviewed_offline(
        matter,
        b"1. Assignment. Neither party may assign this Agreement without the prior written "
        b"consent of the other party.\n\n2. Price. The price is fixed.\n",
    )
    client.force_login(reviewer)
    page = client.get(f"/contracts/{contract.pk}/").content.decode()
    assert "Draft by the offline engine (no language model was used)" in page
    assert "Checked by the offline engine" in page
    assert "Anti-Assignment" in page


def test_error_pages_say_what_happened_and_lead_back(client, rf, reviewer):
    from django.views.defaults import server_error

    client.force_login(reviewer)
    response = client.get("/contracts/999999/")
    assert response.status_code == 404
    page = response.content.decode()
    assert "Page not found" in page and 'href="/"' in page and "Sign out" in page
    assert "Something went wrong" in server_error(rf.get("/")).content.decode()
    chinese = client.get("/no-such-page/", HTTP_ACCEPT_LANGUAGE="zh-hans").content.decode()
    assert "页面不存在" in chinese


def test_expired_form_explains_that_nothing_changed(reviewer):
    from django.test import Client

    strict = Client(enforce_csrf_checks=True)
    strict.force_login(reviewer)
    response = strict.post("/logout/")
    assert response.status_code == 403
    assert "nothing was changed" in response.content.decode()


def test_facts_we_computed_read_in_the_readers_language(client, reviewer, matter):
    from django.utils import translation

    from reviewapp.portfolio.selectors import _fact_cell
    from reviewapp.reviews.key_facts import facts_of

    contract = _reviewed_offline(
        matter,
        b"SUPPLY AGREEMENT\n\nThis Agreement is made as of May 22, 2000 between Acme and "
        b"Globex.\n\n1. Term. This Agreement shall commence on the Effective Date and continue "
        b"for two (2) years from the Effective Date.\n\n2. Assignment. Neither party may "
        b"assign this Agreement without consent.\n",
    )
    expiration = facts_of(contract.review)["Expiration Date"]
    assert expiration.value == "2002-05-22" and expiration.extra["computed"]
    client.force_login(reviewer)
    english = client.get(f"/contracts/{contract.pk}/").content.decode()
    assert "May 22, 2002" in english
    chinese = client.get(f"/contracts/{contract.pk}/", HTTP_ACCEPT_LANGUAGE="zh-hans")
    assert "2002年5月22日" in chinese.content.decode()
    assert "May 22, 2002" not in chinese.content.decode()
    assert "May 22, 2000" in chinese.content.decode()  # the contract's own words stay
    with translation.override("zh-hans"):
        assert _fact_cell(expiration)["display"] == "2002年5月22日"  # the grid's cell


def test_a_text_or_word_contract_has_no_page_count_anywhere(client, reviewer, matter):
    """Only a PDF has fixed pages: a .txt or .docx is not "1 page(s)" in the list, the facts or
    the draft's summary."""
    contract = _reviewed_offline(
        matter, b"1. Assignment. Neither party may assign this Agreement.\n\n2. Term. One year.\n"
    )
    client.force_login(reviewer)
    rows = client.get(f"/matters/{matter.pk}/rows/").content.decode()
    cell = rows[rows.index('data-role="pages"') :]
    assert cell[: cell.index("</td>")].endswith("—</span>")
    page = client.get(f"/contracts/{contract.pk}/").content.decode()
    assert "page(s)" not in page and "<dt>Pages</dt>" not in page
    assert "in 2 passages" in page


def test_the_offline_summary_counts_pages_of_a_pdf_only_in_both_languages():
    from django.utils import translation

    from reviewapp.reviews.drafting import offline_summary

    counts = {"type": "", "passages": 3, "flagged": 1, "categories": 1}
    assert "of 4 page(s) in 3 passages" in offline_summary({**counts, "pages": 4})
    words = offline_summary({**counts, "pages": None})
    assert words.startswith("Contract (type: ") and "page" not in words
    with translation.override("zh-hans"):
        assert "共 4 页" in offline_summary({**counts, "pages": 4})
        chinese = offline_summary({**counts, "pages": None})
    assert "共 3 个段落" in chinese and "页" not in chinese
