"""Every API error has the shape {"error": {"code", "message"}}, whatever raised it."""

import pytest

pytestmark = pytest.mark.django_db


def test_no_credentials_is_401_with_the_scheme_to_use(client):
    response = client.get("/api/matters/")
    assert response.status_code == 401
    assert response["WWW-Authenticate"] == "Token"
    assert response.json()["error"]["code"] == "NOT_AUTHENTICATED"


def test_a_bad_token_is_401(client):
    response = client.get("/api/matters/", HTTP_AUTHORIZATION="Token nope")
    assert response.status_code == 401
    assert response.json()["error"]["code"] == "AUTHENTICATION_FAILED"


def test_a_matter_you_do_not_belong_to_is_a_json_404(client, reviewer):
    client.force_login(reviewer)
    response = client.get("/api/matters/999999/contracts/")
    assert response.status_code == 404
    assert response.json() == {"error": {"code": "NOT_FOUND", "message": "No such matter."}}


def test_a_wrong_method_names_itself(client, reviewer):
    client.force_login(reviewer)
    response = client.delete("/api/matters/")
    assert response.status_code == 405
    assert response.json()["error"]["code"] == "METHOD_NOT_ALLOWED"
    assert "DELETE" in response.json()["error"]["message"]


def test_an_unknown_api_path_is_json_and_points_to_the_docs(client, reviewer):
    client.force_login(reviewer)
    response = client.get("/api/nothing-here/")
    assert response.status_code == 404 and response["Content-Type"] == "application/json"
    assert "/api/docs/" in response.json()["error"]["message"]
    hint = client.get("/api/matters").json()["error"]["message"]
    assert "did you mean /api/matters/" in hint


def test_invalid_input_lists_the_fields(client, reviewer, matter):
    from reviewapp.contracts.models import Contract

    client.force_login(reviewer)
    contract = Contract.objects.create(
        matter=matter, original_name="x.pdf", sha256="0" * 64, size=1, kind="pdf"
    )
    response = client.post(
        f"/api/contracts/{contract.pk}/password/", {}, content_type="application/json"
    )
    body = response.json()["error"]
    assert response.status_code == 400 and body["code"]
    assert body["message"]
