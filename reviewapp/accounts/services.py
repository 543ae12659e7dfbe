from __future__ import annotations

import secrets

from django.contrib.auth import get_user_model
from django.db import transaction

from reviewapp.accounts.models import Matter, Membership, Organisation, Role

DEMO_ORGANISATION = "Demo LLP"
DEMO_MATTER = "Demo matter"
DEMO_USERS = (("reviewer", Role.REVIEWER), ("lawyer", Role.LAWYER), ("admin", Role.ADMIN))


@transaction.atomic
def demo_seed() -> dict[str, str]:
    """Create the demo organisation, matter and users once.

    Returns the generated passwords of users created by this call (none on later runs), so
    they can be shown exactly once.
    """
    organisation, _ = Organisation.objects.get_or_create(name=DEMO_ORGANISATION)
    matter, _ = Matter.objects.get_or_create(
        organisation=organisation, name=DEMO_MATTER, defaults={"reference": "DEMO-001"}
    )
    created: dict[str, str] = {}
    user_model = get_user_model()
    for username, role in DEMO_USERS:
        user, is_new = user_model.objects.get_or_create(username=username)
        if is_new:
            password = secrets.token_urlsafe(12)
            user.set_password(password)
            user.is_staff = user.is_superuser = role == Role.ADMIN
            user.email = f"{username}@demo-llp.example"
            user.save()
            created[username] = password
        Membership.objects.get_or_create(user=user, matter=matter, defaults={"role": role})
    return created
