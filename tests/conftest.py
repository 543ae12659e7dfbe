from __future__ import annotations

from pathlib import Path

import pytest
from django.conf import settings
from django.contrib.auth import get_user_model
from django.test.client import ClientMixin
from django.utils import translation

from reviewapp.accounts.models import Matter, Membership, Organisation, OrganisationMember, Role

ROOT = Path(__file__).resolve().parent.parent
CUAD_DIR = ROOT.parent / "shared" / "data" / "cuad"
ZH_DIR = ROOT.parent / "shared" / "data" / "zh"


# Tests that start processes or browsers, or read the CUAD corpus: `make test-fast` leaves them
# out (``-m "not slow"``); `make test` runs everything.
SLOW_FOLDERS = ("e2e", "stack")
SLOW_MARKS = ("browser", "worker", "cuad", "slow")
# Files whose every test spends seconds in real processes (web servers, benchmarks, commands).
SLOW_FILES = (
    "test_benchmarks_run.py",
    "test_launcher.py",
    "test_review_command.py",
)


def pytest_collection_modifyitems(config, items):
    """Mark the slow tests, and keep the tests that share a module-scoped fixture (a trained
    router, a scanned corpus) on one parallel worker, so it is built once: the others are
    handed out one by one (``--dist loadgroup``)."""
    for item in items:
        path = Path(str(item.fspath)).relative_to(ROOT / "tests")
        slow = path.parts[0] in SLOW_FOLDERS or path.name in SLOW_FILES
        slow = slow or "cuad_dir" in getattr(item, "fixturenames", ())
        if slow or any(item.get_closest_marker(mark) for mark in SLOW_MARKS):
            item.add_marker(pytest.mark.slow)
        if _shares_module_fixture(item):
            item.add_marker(pytest.mark.xdist_group(str(path)))
    # Modules with slow tests first, whole and in their own order: the parallel workers start
    # on the long browser and process tests and end on short ones, instead of three workers
    # idling while the fourth finishes a one-minute test.
    slow_modules = {item.module.__name__ for item in items if item.get_closest_marker("slow")}
    items.sort(key=lambda item: item.module.__name__ not in slow_modules)


def _shares_module_fixture(item) -> bool:
    definitions = getattr(item, "_fixtureinfo", None)
    if definitions is None:
        return False
    return any(
        defs and defs[-1].scope in ("module", "package")
        for defs in definitions.name2fixturedefs.values()
    )


@pytest.fixture(autouse=True)
def _english_after_each_test():
    """A test that switches to Chinese (a request, a command) leaves the next one in English."""
    yield
    translation.activate(settings.LANGUAGE_CODE)


@pytest.fixture(autouse=True)
def _force_login_passes_the_second_factor(monkeypatch):
    """``client.force_login`` stands for a whole sign-in, password and second factor: a user who
    must use one gets an authenticator app and a verified session. A test about the second step
    signs in through /login/ instead (tests/accounts/test_two_factor.py)."""
    from reviewapp.accounts.two_factor.selectors import two_factor_required
    from tests.two_factor import verify_session

    force_login = ClientMixin.force_login

    def force_login_verified(self, user, backend=None):
        force_login(self, user, backend)
        if two_factor_required(user=user):
            verify_session(self, user)

    monkeypatch.setattr(ClientMixin, "force_login", force_login_verified)


@pytest.fixture
def cuad_dir() -> Path:
    if not (CUAD_DIR / "labels.jsonl").exists():
        pytest.skip(f"CUAD data not found at {CUAD_DIR} (expected ../shared/data/cuad)")
    return CUAD_DIR


@pytest.fixture
def zh_dir() -> Path:
    if not any(ZH_DIR.glob("*.labels.json")):
        pytest.skip(
            f"Chinese labelled contracts not found at {ZH_DIR} (expected ../shared/data/zh)"
        )
    return ZH_DIR


@pytest.fixture
def make_user(db):
    def make(username: str, **fields):
        return get_user_model().objects.create_user(
            username=username, password="pw-" + username, **fields
        )

    return make


@pytest.fixture
def make_matter(db):
    def make(name: str = "Matter", organisation: str = "Org", members=()):
        org, _ = Organisation.objects.get_or_create(name=organisation)
        matter = Matter.objects.create(organisation=org, name=name)
        for user, role in members:
            Membership.objects.create(user=user, matter=matter, role=role)
            OrganisationMember.objects.get_or_create(organisation=org, user=user)
        return matter

    return make


@pytest.fixture
def reviewer(make_user):
    return make_user("rita")


@pytest.fixture
def matter(make_matter, reviewer):
    return make_matter(members=[(reviewer, Role.REVIEWER)])


@pytest.fixture
def admin(make_user, matter):
    user = make_user("ada")
    Membership.objects.create(user=user, matter=matter, role=Role.ADMIN)
    return user


@pytest.fixture
def lawyer(make_user, matter):
    user = make_user("lee")
    Membership.objects.create(user=user, matter=matter, role=Role.LAWYER)
    return user


@pytest.fixture(scope="session", autouse=True)
def _close_other_database_sessions(django_db_setup, django_db_blocker):
    """Drop connections left by threads or child processes, so the test database can go."""
    yield
    from django.db import connection

    if connection.vendor != "postgresql":
        return
    with django_db_blocker.unblock(), connection.cursor() as cursor:
        cursor.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
            "WHERE datname = current_database() AND pid <> pg_backend_pid()"
        )
