"""Comments, @mentions and hand-over, the item's note after a decision, the item's detail."""

import pytest

from reviewapp.accounts.models import Membership, Role
from reviewapp.queue.context import passage_segments, queue_item_context
from reviewapp.queue.models import HistoryAction, ItemStatus, QueueItem
from reviewapp.queue.services import (
    CommentInvalid,
    QueueConflict,
    queue_comment_add,
    queue_item_claim,
    queue_item_decide,
    queue_item_note_edit,
)
from reviewapp.realtime.models import Event
from reviewapp.reviews.services import review_scan
from tests.factories import CONTRACT, STRICT, active_playbook, ingested_contract

pytestmark = pytest.mark.django_db


@pytest.fixture
def lawyers(make_user, matter):
    lee = make_user("lee", email="lee@firm.example")
    liu = make_user("liu", email="liu@firm.example")
    for user in (lee, liu):
        Membership.objects.create(user=user, matter=matter, role=Role.LAWYER)
    return lee, liu


@pytest.fixture
def item(matter):
    active_playbook(organisation=matter.organisation, source=STRICT)
    contract = ingested_contract(matter=matter, text=CONTRACT)
    review = review_scan(contract_id=contract.pk, enqueue=False)
    return QueueItem.objects.get(review=review)


def test_mention_hands_the_claim_over_notes_it_and_mails_the_colleague(
    item, lawyers, mailoutbox, django_capture_on_commit_callbacks
):
    lee, liu = lawyers
    queue_item_claim(item_id=item.pk, user=lee)
    with django_capture_on_commit_callbacks(execute=True):
        comment = queue_comment_add(item=item, author=lee, body="Over to you, @liu.")
    item.refresh_from_db()
    assert item.claimed_by == liu and item.status == ItemStatus.CLAIMED
    assert list(comment.mentions.all()) == [liu]
    handed = item.history.get(action=HistoryAction.HANDED_OVER)
    assert "lee handed the item over to liu" in handed.detail
    assert [m.to for m in mailoutbox] == [["liu@firm.example"]]
    assert "lee mentioned you" in mailoutbox[0].subject
    assert "now claimed by you" in mailoutbox[0].body


def test_mention_without_the_claim_notifies_but_does_not_move_the_claim(
    item, lawyers, mailoutbox, django_capture_on_commit_callbacks
):
    lee, liu = lawyers
    with django_capture_on_commit_callbacks(execute=True):
        queue_comment_add(item=item, author=lee, body="@liu have a look")
    item.refresh_from_db()
    assert item.status == ItemStatus.OPEN and item.claimed_by is None
    assert item.history.filter(action=HistoryAction.MENTIONED).exists()
    assert len(mailoutbox) == 1


def test_unknown_mention_is_an_error_and_nothing_is_saved(item, lawyers, reviewer):
    lee, _ = lawyers
    with pytest.raises(CommentInvalid, match="@nobody"):
        queue_comment_add(item=item, author=lee, body="@nobody please check")
    with pytest.raises(CommentInvalid, match="@rita"):  # a reviewer of the matter cannot decide
        queue_comment_add(item=item, author=lee, body="@rita please check")
    assert not item.comments.exists()


def test_lawyer_of_another_matter_cannot_be_mentioned(item, lawyers, make_user, make_matter):
    lee, _ = lawyers
    other = make_user("olga")
    make_matter("Other", members=[(other, Role.LAWYER)])
    with pytest.raises(CommentInvalid, match="@olga"):
        queue_comment_add(item=item, author=lee, body="@olga?")


def test_email_addresses_are_not_mentions(item, lawyers):
    lee, _ = lawyers
    comment = queue_comment_add(item=item, author=lee, body="Write to counsel@liu.example")
    assert not comment.mentions.exists()


def test_empty_comment_is_refused(item, lawyers):
    with pytest.raises(CommentInvalid):
        queue_comment_add(item=item, author=lawyers[0], body="   ")


def test_comment_event_names_the_mentions_but_not_the_body(item, lawyers):
    lee, liu = lawyers
    queue_comment_add(item=item, author=lee, body="Secret strategy @liu")
    event = Event.objects.filter(type="queue.comment.added").get()
    assert event.payload["mentions"] == ["liu"] and event.payload["author"] == "lee"
    assert "Secret" not in str(event.payload)


def test_decider_changes_the_note_but_an_override_keeps_a_justification(item, lawyers):
    lee, liu = lawyers
    queue_item_claim(item_id=item.pk, user=lee)
    queue_item_decide(item_id=item.pk, user=lee, decision="accept", note="Mutual.")
    queue_item_note_edit(item_id=item.pk, user=lee, note="Mutual MFN, capped.")
    item.refresh_from_db()
    assert item.note == "Mutual MFN, capped."
    with pytest.raises(QueueConflict, match="justification"):
        queue_item_note_edit(item_id=item.pk, user=lee, note=" ")
    with pytest.raises(QueueConflict):
        queue_item_note_edit(item_id=item.pk, user=liu, note="Mine now")


def test_item_detail_highlights_the_matched_span(item):
    context = queue_item_context(item)
    hits = [seg["text"] for seg in context["segments"] if seg["hit"]]
    assert hits == ["most favored nation"]
    assert "".join(seg["text"] for seg in context["segments"]) == item.passage.text
    assert [n.index for n in context["before"]] == [item.passage.index - 1]
    assert [n.index for n in context["after"]] == [item.passage.index + 1]


def test_overlapping_matches_are_highlighted_once(item):
    passage = item.passage
    segments = passage_segments(passage, [(2, 8), (5, 12)])
    assert [s["text"] for s in segments if s["hit"]] == [passage.text[2:8], passage.text[8:12]]
    assert "".join(s["text"] for s in segments) == passage.text


def test_highlight_stays_on_the_words_in_a_pdf_text_with_no_break_spaces_and_ligatures(
    make_matter, reviewer
):
    """Normalisation changes the passage text's length (ligatures, joined words): the match
    shown must still be the words that matched, not a shifted slice."""
    from reviewapp.queue.context import _span_in_passage
    from reviewapp.reviews.models import RuleFiring
    from reviewapp.reviews.services import review_scan
    from tests.factories import ingested_contract

    matter = make_matter(name="PDF", members=[(reviewer, "reviewer")])
    text = (
        "1.\u00a0De\ufb01nitions. The \ufb01rst party and the o\ufb03cer agree.\n\n"
        "2.\u00a0Transfer. The \ufb01rst o\ufb03cer of neither party may assign this"
        " Agreement without the prior written consent of the other party.\n"
    )
    contract = ingested_contract(matter=matter, text=text)
    review_scan(contract_id=contract.pk)
    firings = RuleFiring.objects.filter(review__contract=contract, score__isnull=True)
    firing = next(f for f in firings if "assign" in text[f.match_start : f.match_end].lower())
    start, end = _span_in_passage(firing, firing.passage)
    shown = firing.passage.text[start:end]
    matched = text[firing.match_start : firing.match_end]
    assert shown == matched.replace("\u00a0", " ")


def test_page_shows_an_unknown_mention_error_inside_the_item_and_keeps_the_text(
    client, item, lawyers
):
    client.force_login(lawyers[0])
    response = client.post(f"/queue/{item.pk}/comment/", {"body": "@ghost look"}, follow=True)
    page = response.content.decode()
    assert "Not a lawyer of this matter: @ghost" in page
    assert "@ghost look</textarea>" in page


def test_page_comment_appears_and_fragment_is_for_lawyers_only(client, item, lawyers, reviewer):
    client.force_login(lawyers[0])
    client.post(f"/queue/{item.pk}/comment/", {"body": "Check the cap @liu"})
    fragment = client.get(f"/queue/{item.pk}/").content.decode()
    assert "Check the cap @liu" in fragment and 'id="item-' in fragment
    client.force_login(reviewer)
    assert client.get(f"/queue/{item.pk}/").status_code == 404


def test_page_shows_the_justification_error_inside_the_item(client, item, lawyers):
    client.force_login(lawyers[0])
    client.post(f"/queue/{item.pk}/claim/")
    response = client.post(f"/queue/{item.pk}/decide/", {"decision": "accept"}, follow=True)
    page = response.content.decode()
    section = page[page.index(f'id="item-{item.pk}"') :]
    assert (
        'role="alert">Accepting a clause that was rejected needs a written justification' in section
    )


def test_page_orders_by_severity_then_due_time_and_marks_overdue(client, item, lawyers):
    from datetime import timedelta

    from django.utils import timezone

    from reviewapp.contracts.models import PassageState
    from reviewapp.reviews.models import ActorKind
    from reviewapp.reviews.services import passage_transition

    pending = item.review.contract.passages.get(state=PassageState.PENDING)
    passage_transition(
        passage_id=pending.pk,
        to_state=PassageState.NEEDS_HUMAN_REVIEW,
        actor_kind=ActorKind.ENGINE,
        actor="offline",
    )
    medium = QueueItem.objects.get(passage=pending)
    QueueItem.objects.filter(pk=medium.pk).update(due_at=timezone.now() - timedelta(hours=1))
    client.force_login(lawyers[0])
    page = client.get("/queue/").content.decode()
    assert page.index(f'id="item-{item.pk}"') < page.index(f'id="item-{medium.pk}"')
    assert "flag-overdue" in page[page.index(f'id="item-{medium.pk}"') :]
