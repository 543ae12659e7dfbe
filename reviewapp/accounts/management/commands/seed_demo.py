import json
from typing import Any

from django.core.management.base import BaseCommand, CommandParser

from reviewapp.accounts.services import DEMO_ORGANISATION, demo_seed


class Command(BaseCommand):
    help = "Create the demo organisation, a matter and the reviewer, lawyer and admin users."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--json",
            action="store_true",
            help='Print {"organisation": ..., "passwords": {username: password}} and nothing '
            "else (empty when already seeded), for `make run` to show once start-up is done.",
        )

    def handle(self, *args: object, **options: Any) -> None:
        created = demo_seed()
        if options["json"]:
            self.stdout.write(json.dumps({"organisation": DEMO_ORGANISATION, "passwords": created}))
            return
        if not created:
            self.stdout.write(f"{DEMO_ORGANISATION} is already seeded; passwords are unchanged.")
            return
        self.stdout.write(self.style.SUCCESS(f"Seeded {DEMO_ORGANISATION}. Sign in with:"))
        for username, password in created.items():
            self.stdout.write(f"  {username:<9} {password}")
        self.stdout.write("These passwords are shown only once; note them now.")
        if "admin" in created:
            self.stdout.write("admin sets up two-factor sign-in (an authenticator app) at sign-in.")
