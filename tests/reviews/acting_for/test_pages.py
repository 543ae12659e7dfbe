"""The party acted for on the contract and matter pages, and in the API: asked for until
chosen, changed by lawyers and admins only, a name that is no party refused with a 400."""

import pytest
from django.test import Client

from reviewapp.contracts.models import Contract
from reviewapp.reviews.acting_for.services import contract_acting_for_set
from reviewapp.reviews.services import review_scan

pytestmark = pytest.mark.django_db


def page(client, contract) -> str:
    response = client.get(f"/contracts/{contract.pk}/")
    assert response.status_code == 200
    return response.content.decode()


def test_until_a_party_is_chosen_the_page_asks_for_it(client, supply, lawyer):
    client.force_login(lawyer)
    html = page(client, supply)
    assert 'id="acting-for-prompt"' in html and "Which party do we act for?" in html
    assert 'id="acting-for-form"' in html
    assert ">Borealis Retail Ltd. (Buyer)</option>" in html
    assert ">Acme Widgets Inc. (Seller)</option>" in html


def test_once_chosen_the_page_says_whom_we_act_for(client, supply, lawyer):
    contract_acting_for_set(contract=supply, name="Borealis Retail Ltd.", role="", set_by=lawyer)
    client.force_login(lawyer)
    html = page(client, supply)
    assert 'id="acting-for-prompt"' not in html
    assert "We act for:" in html and "Borealis Retail Ltd. (Buyer)</span>" in html


def test_the_page_asks_in_chinese(client, zh_supply, lawyer):
    client.force_login(lawyer)
    html = client.get(f"/contracts/{zh_supply.pk}/", HTTP_ACCEPT_LANGUAGE="zh-hans").content
    text = html.decode()
    assert "我方代表哪一方" in text and ">北京北极星零售有限公司 (甲方)</option>" in text
    contract_acting_for_set(
        contract=zh_supply, name="北京北极星零售有限公司", role="", set_by=lawyer
    )
    text = client.get(f"/contracts/{zh_supply.pk}/", HTTP_ACCEPT_LANGUAGE="zh-hans").content
    assert "我方代表：" in text.decode()


def test_a_reviewer_reads_the_prompt_but_has_no_form(client, supply, reviewer):
    client.force_login(reviewer)
    html = page(client, supply)
    assert "a lawyer of the matter chooses it" in html and 'id="acting-for-form"' not in html
    response = client.post(f"/contracts/{supply.pk}/acting-for/", {"name": "Acme Widgets Inc."})
    assert response.status_code == 403
    assert Contract.objects.get(pk=supply.pk).acting_for_name == ""


def test_the_form_chooses_with_csrf_and_comes_back_to_the_page(supply, lawyer):
    strict = Client(enforce_csrf_checks=True)
    strict.force_login(lawyer)
    url = f"/contracts/{supply.pk}/acting-for/"
    assert strict.post(url, {"name": "Acme Widgets Inc."}).status_code == 403  # no token
    strict.get(f"/contracts/{supply.pk}/")
    token = strict.cookies["csrftoken"].value
    response = strict.post(url, {"name": "Acme Widgets Inc.", "csrfmiddlewaretoken": token})
    assert response.status_code == 302 and response["Location"] == f"/contracts/{supply.pk}/"
    assert Contract.objects.get(pk=supply.pk).acting_for_role == "Seller"
    assert (
        "We act for: Acme Widgets Inc. (Seller)"
        in strict.get(response["Location"]).content.decode()
    )


def test_the_form_refuses_a_name_that_is_no_party_with_a_400(client, supply, lawyer):
    client.force_login(lawyer)
    response = client.post(f"/contracts/{supply.pk}/acting-for/", {"name": "Globex Corp."})
    assert response.status_code == 400
    assert "“Globex Corp.” is not a party of this contract" in response.content.decode()


def test_the_api_sets_reads_and_refuses(client, supply, lawyer, reviewer):
    client.force_login(lawyer)
    url = f"/api/contracts/{supply.pk}/acting-for/"
    refused = client.post(url, {"name": "Globex Corp."}, content_type="application/json")
    assert refused.status_code == 409
    assert refused.json()["error"]["code"] == "NOT_A_PARTY"
    assert "not a party of this contract" in refused.json()["error"]["message"]
    chosen = client.post(url, {"name": "Borealis Retail Ltd."}, content_type="application/json")
    assert chosen.status_code == 200, chosen.content
    body = chosen.json()
    assert body["acting_for"] == {"name": "Borealis Retail Ltd.", "role": "Buyer"}
    assert body["from_matter"] is False and len(body["choices"]) == 2
    client.force_login(reviewer)
    assert client.get(url).json()["may_choose"] is False
    denied = client.post(url, {"name": "Acme Widgets Inc."}, content_type="application/json")
    assert denied.status_code == 403


def test_the_matter_page_sets_the_default(
    client, matter, supply, lawyer, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        review_scan(contract_id=supply.pk)
    client.force_login(lawyer)
    html = client.get(f"/matters/{matter.pk}/").content.decode()
    assert 'id="acting-for-form"' in html and "By default we act for" in html
    response = client.post(f"/matters/{matter.pk}/acting-for/", {"name": "Borealis Retail Ltd."})
    assert response.status_code == 302
    assert "Borealis Retail Ltd. (Buyer)" in page(client, supply)
    assert "(the matter's party)" in page(client, supply)
    refused = client.post(f"/matters/{matter.pk}/acting-for/", {"name": "Nobody Ltd."})
    assert refused.status_code == 400
