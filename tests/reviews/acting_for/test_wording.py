"""What a lawyer reads speaks of the party we act for: the queue item says whether the clause
binds or protects it, the offline rationale and the draft's positions name it, in English and
Chinese; a playbook that lowers a clause which only protects the client shows it one step lower."""

import pytest

from reviewapp.queue.models import QueueItem
from reviewapp.reviews.acting_for.services import contract_acting_for_set
from reviewapp.reviews.drafting import draft_instructions, offline_draft
from reviewapp.reviews.model_work import verifications_run
from reviewapp.reviews.models import Verification
from reviewapp.reviews.services import review_scan
from reviewapp.rules.models import Playbook
from reviewapp.rules.services import (
    playbook_activate,
    playbook_copy,
    playbook_sync_defaults,
    playbook_version_create,
)
from tests.factories import active_playbook

pytestmark = pytest.mark.django_db

PLAYBOOK = """
name: side-en
version: "1"
language: en
side:
  protects_client: lower
rules:
  - id: en.side.exclusivity
    category: Exclusivity
    severity: high
    action: verify
    patterns: ['shall not sell']
    question: Does the restriction protect our client without binding the counterparty too far?
    standard_position: Exclusivity granted to our client is worldwide.
  - id: en.side.payment
    category: Late Payment Interest
    severity: medium
    action: verify
    patterns: ['shall pay']
    question: Can our client pay within the period?
    standard_position: Our client pays within 60 days.
"""
ZH_PLAYBOOK = """
name: side-zh
version: "1"
language: zh
rules:
  - id: zh.side.exclusivity
    category: Exclusivity
    severity: high
    action: verify
    patterns: ['不得向其他']
    question: 该限制是否保护我方，对方是否受到过度约束？
    standard_position: 我方取得的独家权覆盖全部约定地域。
"""


def _activate(organisation, source: str) -> None:
    if "language: zh" not in source:
        active_playbook(organisation=organisation, source=source, name="side")
        return
    playbook_sync_defaults()
    shipped = Playbook.objects.get(name="commercial-zh")
    copy = playbook_copy(playbook=shipped, organisation=organisation, name="side-zh")
    playbook_version_create(playbook=copy, source=source)
    playbook_activate(playbook=copy)


def _reviewed(contract, source: str):
    _activate(contract.matter.organisation, source)
    review = review_scan(contract_id=contract.pk, enqueue=False)
    pending = list(Verification.objects.filter(review=review).values_list("pk", flat=True))
    verifications_run(review_id=review.pk, verification_ids=pending)
    return review


@pytest.fixture
def lee(matter, lawyer):
    return lawyer


def _queue(client, user, **headers) -> str:
    client.force_login(user)
    response = client.get("/queue/", **headers)
    assert response.status_code == 200
    return response.content.decode()


def test_the_queue_item_says_whether_the_clause_binds_or_protects_our_client(client, supply, lee):
    contract_acting_for_set(contract=supply, name="Borealis Retail Ltd.", role="", set_by=lee)
    _reviewed(supply, PLAYBOOK)
    assert QueueItem.objects.count() == 2
    html = _queue(client, lee)
    assert "Protects Buyer (our client)" in html  # Seller shall not sell
    assert "Binds Buyer (our client)" in html  # Buyer shall pay
    # the offline engine's rationale is the rule's question, naming the parties
    assert "Can Buyer pay within the period?" in html
    assert "Does the restriction protect Buyer without binding Seller too far?" in html
    assert "our client pay" not in html


def test_a_clause_that_only_protects_the_client_shows_one_severity_lower(client, supply, lee):
    contract_acting_for_set(contract=supply, name="Borealis Retail Ltd.", role="", set_by=lee)
    _reviewed(supply, PLAYBOOK)
    html = _queue(client, lee)
    assert html.count("the clause only protects our client") == 1
    assert "Severity for our side: medium" in html  # high, one step down


def test_acting_for_the_other_side_turns_the_words_round(client, supply, lee):
    contract_acting_for_set(contract=supply, name="Acme Widgets Inc.", role="", set_by=lee)
    _reviewed(supply, PLAYBOOK)
    html = _queue(client, lee)
    assert "Binds Seller (our client)" in html and "Protects Seller (our client)" in html
    assert "Can Seller pay within the period?" in html


def test_until_a_party_is_chosen_the_item_says_nothing_of_sides(client, supply, lee):
    _reviewed(supply, PLAYBOOK)
    html = _queue(client, lee)
    assert "(our client)" not in html and "Can our client pay within the period?" in html


def test_the_chinese_queue_item_names_the_parties(client, zh_supply, lee):
    contract_acting_for_set(contract=zh_supply, name="北京北极星零售有限公司", role="", set_by=lee)
    _reviewed(zh_supply, ZH_PLAYBOOK)
    html = _queue(client, lee, HTTP_ACCEPT_LANGUAGE="zh-hans")
    assert "保护甲方（我方客户）" in html
    assert "该限制是否保护甲方，乙方是否受到过度约束？" in html


def test_the_offline_draft_speaks_of_the_party_chosen_before_it(supply, lee):
    contract_acting_for_set(contract=supply, name="Borealis Retail Ltd.", role="", set_by=lee)
    review = _reviewed(supply, PLAYBOOK)
    data = offline_draft(review)
    assert {issue["recommendation"] for issue in data["issues"]} == {
        "Exclusivity granted to Buyer is worldwide.",
        "Buyer pays within 60 days.",
    }
    assert data["acting_for"] == {"name": "Borealis Retail Ltd.", "role": "Buyer"}
    assert draft_instructions(review).startswith(
        "We act for Borealis Retail Ltd. (Buyer); review the contract for that party."
    )
    assert "- Exclusivity: Exclusivity granted to Buyer is worldwide." in draft_instructions(review)


def test_the_review_page_names_a_party_chosen_after_the_draft(
    client, zh_supply, lee, django_capture_on_commit_callbacks
):
    _activate(zh_supply.matter.organisation, ZH_PLAYBOOK)
    with django_capture_on_commit_callbacks(execute=True):
        review_scan(contract_id=zh_supply.pk)
    client.force_login(lee)
    before = client.get(f"/contracts/{zh_supply.pk}/").content.decode()
    assert "我方取得的独家权覆盖全部约定地域。" in before
    contract_acting_for_set(contract=zh_supply, name="上海顶点制造有限公司", role="", set_by=lee)
    after = client.get(f"/contracts/{zh_supply.pk}/").content.decode()
    assert "乙方取得的独家权覆盖全部约定地域。" in after
