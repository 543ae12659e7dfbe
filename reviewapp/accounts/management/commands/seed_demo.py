from django.core.management.base import BaseCommand

from reviewapp.accounts.services import DEMO_ORGANISATION, demo_seed


class Command(BaseCommand):
    help = "Create the demo organisation, a matter and the reviewer, lawyer and admin users."

    def handle(self, *args: object, **options: object) -> None:
        created = demo_seed()
        if not created:
            self.stdout.write(f"{DEMO_ORGANISATION} is already seeded; passwords are unchanged.")
            return
        self.stdout.write(self.style.SUCCESS(f"Seeded {DEMO_ORGANISATION}. Sign in with:"))
        for username, password in created.items():
            self.stdout.write(f"  {username:<9} {password}")
        self.stdout.write("These passwords are shown only once; note them now.")
