"""Key facts as values in a review: the offline draft, a Claude draft whose facts must quote their
passage, and facts_of for drafts of every vintage."""

from __future__ import annotations

import io
import json
from datetime import date

import pytest
from django.utils import translation

from reviewapp.contracts.services import contract_upload
from reviewapp.reviews.exports.json_export import json_export_data
from reviewapp.reviews.exports.selectors import review_export_model
from reviewapp.reviews.key_facts import fact_html, fact_shown, facts_from_data, facts_of
from reviewapp.reviews.models import DraftStatus, Review
from reviewapp.text.facts.dates import as_date
from tests.fakes.messages_server import BrainRequest, ScriptedBrain, running_server

CONTRACT = """SUPPLY AGREEMENT

This Supply Agreement is made and entered into as of the 1st day of March, 2019 by and between
Acme Widgets, Inc., a Delaware corporation with offices at 12 High Street, Dover ("Supplier"),
and Beta Stores LLC, a Texas limited liability company ("Buyer").

1. Term. This Agreement shall commence on the Effective Date and continue for a period of three
(3) years from the Effective Date.

2. Governing Law. This Agreement is governed by the laws of the State of New York.
"""


def _upload(matter, capture, text: str = CONTRACT) -> Review:
    with capture(execute=True):
        contract, _ = contract_upload(
            matter=matter,
            file=io.BytesIO(text.encode()),
            name="supply.txt",
            size=len(text.encode()),
        )
    return Review.objects.get(contract=contract)


@pytest.mark.django_db
def test_offline_draft_stores_values_with_their_passage(matter, django_capture_on_commit_callbacks):
    review = _upload(matter, django_capture_on_commit_callbacks)
    stored = review.draft.data["key_facts"]
    assert stored["Agreement Date"]["value"] == "2019-03-01"
    assert stored["Expiration Date"]["value"] == "2022-03-01"
    assert stored["Expiration Date"]["computed"] is True
    facts = facts_of(review)
    law = facts["Governing Law"]
    assert law.value == "New York, United States"
    assert law.quote in review.contract.passages.get(index=law.passage_index).text
    assert [p["name"] for p in facts["Parties"].value] == ["Acme Widgets, Inc.", "Beta Stores LLC"]


@pytest.mark.django_db
def test_json_export_gives_the_facts_as_values(matter, django_capture_on_commit_callbacks):
    review = _upload(matter, django_capture_on_commit_callbacks)
    data = json_export_data(review_export_model(review=review))
    assert data["key_facts"]["Agreement Date"]["value"] == "2019-03-01"
    assert data["key_facts"]["Agreement Date"]["display"] == "1st day of March, 2019"


@pytest.mark.django_db
def test_the_draft_api_gives_each_fact_whole(
    client, reviewer, matter, django_capture_on_commit_callbacks
):
    """The live page and API clients get what the page shows a fact from: its value and flags
    (a counted date is ``computed``), not only the words."""
    review = _upload(matter, django_capture_on_commit_callbacks)
    client.force_login(reviewer)
    facts = client.get(f"/api/reviews/{review.pk}/draft/").json()["key_facts"]
    assert facts["Expiration Date"]["value"] == "2022-03-01"
    assert facts["Expiration Date"]["computed"] is True
    assert facts["Agreement Date"]["display"] == "1st day of March, 2019"
    assert facts["Governing Law"]["passage_index"] is not None


def _model_draft(request: BrainRequest) -> str:
    law = next(i for i, text in request.passages.items() if "governed by" in text)
    term = next(i for i, text in request.passages.items() if text.startswith("1. Term"))
    facts = {
        "governing_law": {"text": "New York", "passage": law, "quote": "the State of New York"},
        "agreement_date": {"text": "March 1, 2019", "passage": law, "quote": "March 1, 2019"},
        "expiration_date": {
            "text": "three (3) years from the Effective Date",
            "passage": term,
            "quote": "continue for a period of three (3) years",
        },
        "effective_date": {"text": "1 March 2019", "passage": 0, "quote": "1st day of March, 2019"},
        "parties": [
            {  # with its address: the name is kept without it, as the offline engine's are
                "name": "Acme Widgets, Inc., a Delaware corporation with offices at 12 High Street",
                "role": "Supplier",
                "passage": 0,
                "quote": "Acme",
            },
        ],
    }
    return json.dumps({"summary": "A supply agreement.", "key_facts": facts, "issues": []})


@pytest.fixture
def claude(settings):
    with running_server(ScriptedBrain(draft=_model_draft)) as server:
        settings.REVIEW_ENGINE = "anthropic"
        settings.ANTHROPIC_API_KEY = "test-key"
        settings.ANTHROPIC_BASE_URL = server.url
        settings.LLM_TIMEOUT_S = 2.0
        settings.LLM_FIRST_TOKEN_TIMEOUT_S = 1.0
        settings.LLM_SDK_RETRIES = 1
        settings.LLM_RETRY_BACKOFF_S = 0.0
        yield server


@pytest.mark.django_db
def test_claude_facts_are_normalised_and_must_quote_their_passage(
    claude, matter, django_capture_on_commit_callbacks
):
    review = _upload(matter, django_capture_on_commit_callbacks)
    assert review.draft.status == DraftStatus.COMPLETE
    facts = facts_of(review)
    assert facts["Governing Law"].value == "New York, United States"
    assert facts["Governing Law"].verified
    # The date is not in the passage the model named: its words stay, as unverified, no value.
    assert facts["Agreement Date"].value is None
    assert not facts["Agreement Date"].verified
    assert facts["Agreement Date"].display == "March 1, 2019"
    assert facts["Effective Date"].value == "2019-03-01"
    expiration = facts["Expiration Date"]
    assert expiration.value == "2022-03-01" and expiration.extra["computed"] is True
    assert facts["Parties"].value == [{"name": "Acme Widgets, Inc.", "role": "Supplier"}]


def test_facts_of_old_drafts_come_back_under_cuad_names():
    offline = facts_from_data({"Governing Law": "State of New York", "Parties": ""})
    assert offline["Governing Law"].display == "State of New York"
    assert offline["Governing Law"].value is None
    assert "Parties" not in offline
    claude = facts_from_data(
        {"parties": ["Acme Ltd (Licensor)"], "term": "three years", "governing_law": None}
    )
    assert claude["Parties"].display == "Acme Ltd (Licensor)"
    assert claude["Expiration Date"].display == "three years"
    assert "Governing Law" not in claude


def test_an_estimated_expiration_is_shown_as_about_its_date():
    stored = {
        "value": "2004-01-05", "display": "January 5, 2004", "computed": True,
        "estimated": True, "event": "Launch Date",
    }  # fmt: skip
    fact = facts_from_data({"Expiration Date": stored})["Expiration Date"]
    with translation.override("en"):
        assert fact_shown(fact) == "about Jan. 5, 2004"
    with translation.override("zh-hans"):
        assert fact_shown(fact).startswith("约")
    counted = facts_from_data({"Expiration Date": {**stored, "estimated": False}})
    with translation.override("en"):
        assert fact_shown(counted["Expiration Date"]) == "Jan. 5, 2004"


def test_an_effective_date_the_contract_does_not_state_says_where_it_comes_from():
    facts = facts_from_data(
        {
            "Effective Date": {
                "value": "2019-03-01", "display": "March 1, 2019", "passage_index": 0,
                "quote": "March 1, 2019", "derived_from": "Agreement Date",
            },
            "Agreement Date": {"value": "2019-03-01", "display": "March 1, 2019"},
        }
    )  # fmt: skip
    assert fact_shown(facts["Effective Date"]) == "March 1, 2019 (the agreement date)"
    assert fact_shown(facts["Agreement Date"]) == "March 1, 2019"
    with translation.override("zh-hans"):
        assert "March 1, 2019" in fact_shown(facts["Effective Date"])
        assert "(the agreement date)" not in fact_shown(facts["Effective Date"])


def test_a_guessed_expiration_is_shown_as_unsure():
    stored = {"value": "2022-03-01", "display": "March 1, 2022", "computed": True, "guessed": True}
    fact = facts_from_data({"Expiration Date": stored})["Expiration Date"]
    with translation.override("en"):
        assert fact_shown(fact) == "March 1, 2022 (unsure)"
    with translation.override("zh-hans"):
        assert fact_shown(fact).endswith("（待核实）")


def test_a_place_of_ten_letters_is_shown_and_is_no_date():
    # "Luxembourg" has an ISO date's length: it once reached date.fromisoformat and raised
    facts = facts_from_data({"Governing Law": {"value": "Luxembourg", "display": "Luxembourg"}})
    assert fact_shown(facts["Governing Law"]) == "Luxembourg"
    assert fact_shown(facts["Governing Law"], as_value=True) == "Luxembourg"
    assert as_date("Luxembourg") is None and as_date("2019-03-01") == date(2019, 3, 1)


@pytest.mark.parametrize("value", ["2019-13", "2019-02-30", "9999-99-99", "perpetual", 12, None])
def test_a_date_fact_of_any_stored_value_is_shown_without_error(value):
    fact = facts_from_data({"Expiration Date": {"value": value, "display": "the words"}})
    assert fact_shown(fact["Expiration Date"], as_value=True) in ("the words", "Perpetual")


def test_governing_law_reads_in_the_readers_language_unless_it_is_the_contracts_words():
    from reviewapp.text.facts.model import Fact

    ours = Fact(
        name="Governing Law", value="New York, United States", display="New York, United States"
    )
    china = Fact(name="Governing Law", value="China", display="China")
    own = Fact(name="Governing Law", value="China", display="中华人民共和国法律")
    assert fact_shown(china) == "China"
    with translation.override("zh-hans"):
        assert fact_shown(china) == "中国"
        assert fact_shown(ours) == "纽约州，美国"
        assert fact_shown(own) == "中华人民共和国法律"  # the contract's own words stay


def test_a_date_read_far_from_the_opening_asks_to_be_checked_in_both_languages():
    from reviewapp.text.facts.model import Fact

    near = Fact(name="Agreement Date", value="2005-02-04", display="Feb. 4, 2005", passage_index=1)
    far = Fact(name="Agreement Date", value="2007-06-01", display="June 1, 2007", passage_index=40)
    law = Fact(name="Governing Law", value="China", display="China", passage_index=40)
    assert fact_shown(near) == "Feb. 4, 2005"
    assert fact_shown(far) == "June 1, 2007 (check: read from passage #40)"
    assert fact_shown(law) == "China"  # where a jurisdiction is read says nothing of it
    with translation.override("zh-hans"):
        assert fact_shown(far) == "June 1, 2007（请核对：读自第 40 段）"


# The preamble dates the contract one day, its testimonium another: the finder keeps the first
# and names the second.
CONTESTED = CONTRACT + (
    "\nIN WITNESS WHEREOF, the parties have executed this Agreement as of February 4, 2005.\n"
)


@pytest.mark.django_db
def test_offline_draft_stores_an_unsure_date_with_its_competitor(
    matter, django_capture_on_commit_callbacks
):
    review = _upload(matter, django_capture_on_commit_callbacks, CONTESTED)
    stored = review.draft.data["key_facts"]["Agreement Date"]
    assert (stored["value"], stored["unsure"]) == ("2019-03-01", True)
    candidate = stored["candidate"]
    assert (candidate["value"], candidate["display"]) == ("2005-02-04", "February 4, 2005")
    passage = review.contract.passages.get(index=candidate["passage_index"])
    assert candidate["quote"] in passage.text and "IN WITNESS" in passage.text
    with translation.override("en"):
        shown = fact_shown(facts_of(review)["Agreement Date"])
    index = candidate["passage_index"]
    assert shown == f"1st day of March, 2019 (unsure: also February 4, 2005, passage #{index})"


def _unsure(**extra) -> dict:
    candidate = {"value": "2005-02-04", "display": "4 February 2005", "passage_index": 3,
                 "quote": "4 February 2005"}  # fmt: skip
    return {"value": "2019-03-12", "display": "12 March 2019", "passage_index": 1,
            "unsure": True, "candidate": candidate, **extra}  # fmt: skip


def test_an_unsure_fact_names_its_competitor_and_links_it_in_both_languages():
    fact = facts_from_data({"Agreement Date": _unsure()})["Agreement Date"]
    with translation.override("en"):
        assert fact_shown(fact) == "12 March 2019 (unsure: also 4 February 2005, passage #3)"
        assert fact_shown(fact, as_value=True) == (
            "March 12, 2019 (unsure: also Feb. 4, 2005, passage #3)"
        )
        assert fact_html(fact) == (
            '12 March 2019 (unsure: also <a class="fact-candidate" href="?passage=3#passage-3">'
            "4 February 2005, passage #3</a>)"
        )
    with translation.override("zh-hans"):
        assert fact_shown(fact) == "12 March 2019（待核实：另有 4 February 2005，第 3 段）"
        assert fact_shown(fact, as_value=True) == (
            "2019年3月12日（待核实：另有 2005年2月4日，第 3 段）"
        )


def test_an_unsure_effective_date_keeps_saying_what_it_stands_for():
    stored = _unsure(derived_from="Agreement Date")
    fact = facts_from_data({"Effective Date": stored})["Effective Date"]
    with translation.override("en"):
        assert fact_shown(fact) == (
            "12 March 2019 (the agreement date) (unsure: also 4 February 2005, passage #3)"
        )
    # a contract's words are escaped, ours are not
    words = facts_from_data({"Agreement Date": _unsure(display="<b>12 March</b> 2019")})
    assert "&lt;b&gt;12 March&lt;/b&gt; 2019" in fact_html(words["Agreement Date"])
