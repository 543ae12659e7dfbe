"""Redis stopped for 20 s while a lawyer decides and a reviewer uploads: committed work answers
success, the open page shows the decision, and the uploads are reviewed once Redis is back."""

from __future__ import annotations

import time

import pytest
from playwright.sync_api import expect
from rest_framework.authtoken.models import Token

from reviewapp.accounts.models import Matter
from reviewapp.accounts.services import demo_seed
from reviewapp.contracts.models import Contract, PassageState
from reviewapp.queue.models import QueueItem
from tests.e2e.test_blocking import CONTRACT, MARK_PAGE, in_thread, ingest
from tests.e2e.test_reconnect import COUNT_SOCKETS
from tests.e2e.test_upload_flow import sign_in
from tests.factories import STRICT, active_playbook
from tests.processes import celery_beat, celery_worker, web_server
from tests.stack.faults import own_redis, upload, wait_for_all_finished

pytestmark = [pytest.mark.browser, pytest.mark.worker, pytest.mark.django_db(transaction=True)]

OUTAGE_S = 20


def post_form(page, url: str, form: dict[str, str]):
    token = next(c["value"] for c in page.context.cookies() if c["name"] == "csrftoken")
    return page.request.post(
        url, form={"csrfmiddlewaretoken": token, **form}, headers={"Referer": url}
    )


def test_redis_away_for_20_seconds_loses_no_decision_and_no_upload(browser, tmp_path):
    passwords = demo_seed()
    matter = Matter.objects.get(name="Demo matter")
    active_playbook(organisation=matter.organisation, source=STRICT)
    contract = in_thread(ingest, matter, CONTRACT, "mfn.txt")
    mfn = contract.passages.get(state=PassageState.REJECTED)
    item = QueueItem.objects.get(passage=mfn)
    reviewer = matter.memberships.get(user__username="reviewer").user
    token = Token.objects.create(user=reviewer).key
    logs = {name: tmp_path / f"{name}.log" for name in ("web", "worker", "beat")}

    with (
        own_redis(tmp_path / "redis") as redis,
        web_server(logs["web"], **redis.env()) as url,
        celery_worker(logs["worker"], **redis.env()),
        celery_beat(logs["beat"], **redis.env()),
    ):
        review_page = browser.new_page(viewport={"width": 1300, "height": 900})
        sign_in(review_page, url, "reviewer", passwords["reviewer"])
        review_page.goto(f"{url}/contracts/{contract.pk}/")
        review_page.wait_for_function("() => document.body?.dataset.live === 'connected'")
        review_page.evaluate(MARK_PAGE)
        lawyer = browser.new_page()
        sign_in(lawyer, url, "lawyer", passwords["lawyer"])
        claimed = post_form(lawyer, f"{url}/queue/{item.pk}/claim/", {})
        assert claimed.ok, claimed.status

        redis.stop()
        stopped = time.monotonic()
        decided = post_form(
            lawyer,
            f"{url}/queue/{item.pk}/decide/",
            {"decision": "accept", "note": "Fine for this customer; MFN is capped."},
        )
        assert decided.ok, (decided.status, decided.text()[:500])
        texts = [CONTRACT + f"\n{n}. End.\n".encode() for n in range(2)]
        uploads = [
            upload(url, matter.pk, token, f"outage-{n}.txt", text) for n, text in enumerate(texts)
        ]
        assert [status for status, _ in uploads] == [201, 201], uploads
        time.sleep(max(0.0, OUTAGE_S - (time.monotonic() - stopped)))
        redis.start()

        expect(review_page.locator(f"#passage-{mfn.index} .state")).to_have_text(
            "Confirmed", timeout=30_000
        )
        assert review_page.evaluate("window.__sameDocument === true"), "the page reloaded"
        ids = [body["id"] for _, body in uploads]
        problems = wait_for_all_finished(ids, timeout_s=120)
        assert not problems, (problems, logs["worker"].read_text()[-3000:])
    mfn.refresh_from_db()
    assert mfn.state == PassageState.CONFIRMED
    assert Contract.objects.filter(pk__in=ids, review__isnull=False).count() == 2
    web_log = logs["web"].read_text()
    assert " 500 " not in web_log, web_log[-3000:]


def test_socket_of_a_user_deactivated_while_redis_is_away_closes_at_the_next_event(
    browser, tmp_path
):
    passwords = demo_seed()
    matter = Matter.objects.get(name="Demo matter")
    active_playbook(organisation=matter.organisation, source=STRICT)
    contract = in_thread(ingest, matter, CONTRACT, "mfn.txt")
    item = QueueItem.objects.get(passage=contract.passages.get(state=PassageState.REJECTED))
    reviewer = matter.memberships.get(user__username="reviewer").user
    with (
        own_redis(tmp_path / "redis") as redis,
        web_server(tmp_path / "web.log", **redis.env()) as url,
    ):
        page = browser.new_context()
        page.add_init_script(COUNT_SOCKETS)
        review_page = page.new_page()
        sign_in(review_page, url, "reviewer", passwords["reviewer"])
        review_page.goto(f"{url}/contracts/{contract.pk}/")
        review_page.wait_for_function("() => document.body?.dataset.live === 'connected'")
        lawyer = browser.new_page()
        sign_in(lawyer, url, "lawyer", passwords["lawyer"])

        redis.stop()
        # No signal, and no Redis to carry one: only the socket's own check can see it.
        in_thread(lambda: type(reviewer).objects.filter(pk=reviewer.pk).update(is_active=False))
        time.sleep(6)  # longer than REALTIME_RECHECK_S
        redis.start()
        assert review_page.evaluate("window.__sockets") == [{"closed": None}]  # still open

        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:  # until the web server's layer is subscribed again
            comment = {"body": "Checking the MFN clause."}
            assert post_form(lawyer, f"{url}/queue/{item.pk}/comment/", comment).ok
            time.sleep(1)
            if review_page.evaluate("window.__sockets[0].closed") is not None:
                break
        review_page.wait_for_function("() => document.body?.dataset.live === 'disconnected'")
        assert review_page.evaluate("window.__sockets") == [{"closed": 4401}]
        page.close()
