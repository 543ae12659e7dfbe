from __future__ import annotations

import pytest

from reviewapp.accounts.models import Role
from reviewapp.rules.services import playbook_sync_defaults


@pytest.fixture
def admin_client(client, make_user, make_matter):
    admin = make_user("ada")
    make_matter(members=[(admin, Role.ADMIN)])
    client.force_login(admin)
    playbook_sync_defaults()
    return client
