from typing import Any

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError, CommandParser

from reviewapp.accounts.two_factor.services import two_factor_reset


class Command(BaseCommand):
    help = (
        "Remove a user's authenticator app and recovery codes (a lost phone, a locked-out site "
        "admin): they set two-factor sign-in up again at their next sign-in. Audited."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("username")

    def handle(self, *args: object, **options: Any) -> None:
        user = get_user_model().objects.filter(username=options["username"]).first()
        if user is None:
            raise CommandError(f"No user is called {options['username']!r}.")
        removed = two_factor_reset(user=user, by=None)
        name = user.get_username()
        self.stdout.write(f"Two-factor sign-in of {name} reset ({removed} app(s) removed).")
