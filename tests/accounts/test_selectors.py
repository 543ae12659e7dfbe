import pytest
from django_otp.plugins.otp_totp.models import TOTPDevice

from reviewapp.accounts.models import Role
from reviewapp.accounts.selectors import matter_list_for_user, user_can_access_matter
from reviewapp.accounts.services import demo_seed
from tests.two_factor import next_code

pytestmark = pytest.mark.django_db


def test_user_sees_only_matters_they_belong_to(make_user, make_matter):
    alice, bob = make_user("alice"), make_user("bob")
    mine = make_matter("Mine", members=[(alice, Role.LAWYER)])
    make_matter("Theirs", organisation="Other", members=[(bob, Role.LAWYER)])
    assert list(matter_list_for_user(user=alice)) == [mine]
    assert user_can_access_matter(user=alice, matter_id=mine.pk)
    assert not user_can_access_matter(user=bob, matter_id=mine.pk)


def test_demo_seed_creates_three_users_once_and_prints_passwords_once():
    first = demo_seed()
    assert set(first) == {"reviewer", "lawyer", "admin"}
    assert all(len(password) >= 12 for password in first.values())
    assert demo_seed() == {}


def test_demo_admin_can_open_django_admin_after_setting_up_two_factor(client):
    passwords = demo_seed()
    signed_in = client.post("/login/", {"username": "admin", "password": passwords["admin"]})
    assert signed_in.status_code == 302
    first = client.get("/admin/contracts/contract/")
    assert first.status_code == 302 and first["Location"].startswith("/account/two-factor/setup/")
    assert client.get(first["Location"]).status_code == 200
    device = TOTPDevice.objects.get(user__username="admin")
    set_up = client.post("/account/two-factor/setup/", {"otp_code": next_code(device)})
    assert set_up.status_code == 200 and "recovery-codes" in set_up.content.decode()
    assert client.get("/admin/contracts/contract/").status_code == 200
