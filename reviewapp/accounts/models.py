from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _


class Organisation(models.Model):
    name = models.CharField(max_length=200, unique=True)
    created_at = models.DateTimeField(auto_now_add=True)
    # Everyone in the organisation signs in with a second factor, not only its admins
    # (reviewapp/accounts/two_factor/).
    require_two_factor = models.BooleanField(
        default=False,
        verbose_name=_("require two-factor sign-in for everyone"),
        help_text=_("Admins always need it; this asks it of every person of the organisation."),
    )

    def __str__(self) -> str:
        return self.name


class Matter(models.Model):
    organisation = models.ForeignKey(Organisation, on_delete=models.PROTECT, related_name="matters")
    name = models.CharField(max_length=200)
    reference = models.CharField(max_length=64, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    # Contracts older than this many days are deleted by the retention task; null keeps them.
    retention_days = models.PositiveIntegerField(null=True, blank=True)
    # While on hold nothing in the matter may be deleted, by anyone or by the retention task.
    legal_hold = models.BooleanField(default=False)
    legal_hold_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    legal_hold_at = models.DateTimeField(null=True, blank=True)
    legal_hold_reason = models.CharField(max_length=500, blank=True)
    # The party the firm acts for, by default for every contract of the matter: its name as
    # extracted and its defined role ("Buyer"); blank until a lawyer or admin chooses.
    acting_for_name = models.CharField(max_length=200, blank=True)
    acting_for_role = models.CharField(max_length=80, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["organisation", "name"], name="matter_unique_name")
        ]

    def __str__(self) -> str:
        return f"{self.name} ({self.organisation})"


class Role(models.TextChoices):
    REVIEWER = "reviewer", _("Reviewer")
    LAWYER = "lawyer", _("Lawyer")
    ADMIN = "admin", _("Admin")


class Membership(models.Model):
    """A user's role on one matter: the only way a user gets to see a matter's contracts."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="memberships"
    )
    matter = models.ForeignKey(Matter, on_delete=models.CASCADE, related_name="memberships")
    role = models.CharField(max_length=16, choices=Role.choices)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["user", "matter"], name="membership_unique_user_matter")
        ]

    def __str__(self) -> str:
        return f"{self.user} as {self.role} on {self.matter}"


class OrganisationMember(models.Model):
    """A person of an organisation: its admins add only these to its matters. A site admin
    (Django admin) adds people to organisations; one person may belong to several."""

    organisation = models.ForeignKey(Organisation, on_delete=models.CASCADE, related_name="members")
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="organisations"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["organisation", "user"], name="organisation_member_unique"
            )
        ]

    def __str__(self) -> str:
        return f"{self.user} of {self.organisation}"


class TokenFingerprint(models.Model):
    """The password an API token was issued under, as a keyed fingerprint (never the hash).

    A token whose user's password is no longer the one fingerprinted here is refused, however
    the password changed (``accounts/tokens.py``). Beside DRF's token table, which is not ours.
    """

    token = models.OneToOneField(
        "authtoken.Token", primary_key=True, on_delete=models.CASCADE, related_name="fingerprint"
    )
    password = models.CharField(max_length=64)

    def __str__(self) -> str:
        return f"fingerprint of token {self.token_id[:8]}…"


class Profile(models.Model):
    """A person's own settings: how the pages are shown to them, nothing about what they may do."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, primary_key=True, on_delete=models.CASCADE, related_name="profile"
    )
    # An IANA name ("Asia/Shanghai") due times are shown in; blank: UTC with the browser's clock.
    time_zone = models.CharField(max_length=64, blank=True, verbose_name=_("time zone"))

    def __str__(self) -> str:
        return f"profile of {self.user}"
