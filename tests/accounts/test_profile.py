"""A person's own settings: the time zone due times are shown in, chosen on the settings page
reached from the header, validated against the tz database and audited when it changes."""

from __future__ import annotations

import pytest

from reviewapp.accounts.models import Profile
from reviewapp.accounts.profile.selectors import reader_time_zone, time_zone_chosen
from reviewapp.accounts.profile.services import ProfileChangeRefused, profile_time_zone_set
from reviewapp.audit.models import AuditEvent

pytestmark = pytest.mark.django_db

CHOSEN = "account.time_zone_set"


def test_a_reader_who_chose_nothing_is_shown_utc(reviewer):
    assert time_zone_chosen(user=reviewer) == ""
    assert reader_time_zone(user=reviewer) == "UTC"


def test_an_iana_name_is_saved_and_the_change_audited_once(reviewer, matter):
    profile_time_zone_set(user=reviewer, time_zone=" Asia/Shanghai ")
    profile_time_zone_set(user=reviewer, time_zone="Asia/Shanghai")  # the same again
    assert reader_time_zone(user=reviewer) == "Asia/Shanghai"
    event = AuditEvent.objects.get(action=CHOSEN)
    assert event.organisation_id == matter.organisation_id
    assert (event.actor, event.target_id) == ("rita", str(reviewer.pk))
    assert event.data == {"time_zone": "Asia/Shanghai", "previous": ""}


def test_the_audit_log_says_which_zone_was_chosen(reviewer, matter):
    from reviewapp.audit.pages.wording import EventLookups, event_line

    profile_time_zone_set(user=reviewer, time_zone="Asia/Shanghai")
    profile_time_zone_set(user=reviewer, time_zone="")
    lines = [event_line(e, EventLookups()) for e in AuditEvent.objects.filter(action=CHOSEN)]
    assert {(line.what, line.detail) for line in lines} == {
        ("Time zone for due times chosen", "Asia/Shanghai"),
        ("Time zone for due times chosen", "the browser's time zone"),
    }


def test_an_empty_choice_goes_back_to_the_browsers(reviewer):
    profile_time_zone_set(user=reviewer, time_zone="Europe/London")
    profile_time_zone_set(user=reviewer, time_zone="")
    assert time_zone_chosen(user=reviewer) == ""
    assert AuditEvent.objects.filter(action=CHOSEN).count() == 2


@pytest.mark.parametrize("name", ["Mars/Olympus", "asia/shanghai", "../etc/passwd", "+08:00"])
def test_a_name_the_tz_database_does_not_know_is_refused(reviewer, name):
    with pytest.raises(ProfileChangeRefused, match="is not a time zone name"):
        profile_time_zone_set(user=reviewer, time_zone=name)
    assert not Profile.objects.exists()
    assert not AuditEvent.objects.filter(action=CHOSEN).exists()


def test_the_header_links_to_the_settings_page_which_saves_the_choice(client, reviewer):
    client.force_login(reviewer)
    home = client.get("/").content.decode()
    assert 'class="who" href="/account/settings/"' in home
    assert "data-time-zone" not in home  # no choice: the script adds the browser's clock
    response = client.post("/account/settings/", {"time_zone": "Asia/Shanghai"}, follow=True)
    page = response.content.decode()
    assert "Your settings are saved." in page
    assert '<option value="Asia/Shanghai" translate="no" selected>' in page
    assert 'data-time-zone="Asia/Shanghai"' in page
    assert Profile.objects.get(user=reviewer).time_zone == "Asia/Shanghai"


def test_an_unknown_name_is_refused_on_the_page_in_chinese_too(client, reviewer):
    client.force_login(reviewer)
    client.post("/i18n/setlang/", {"language": "zh-hans"})
    response = client.post("/account/settings/", {"time_zone": "Mars/Olympus"}, follow=True)
    page = response.content.decode()
    assert "“Mars/Olympus”不是时区名称" in page
    assert "您的设置" in page and "截止时间所用的时区" in page
    assert time_zone_chosen(user=reviewer) == ""


def test_the_settings_page_needs_a_signed_in_user(client):
    response = client.get("/account/settings/")
    assert response.status_code == 302 and "/login/" in response["Location"]
