from __future__ import annotations

from django.conf import settings
from django.db import models

from reviewapp.accounts.models import Organisation


class Playbook(models.Model):
    """A named set of trigger rules. Shipped defaults have no organisation; admins copy them."""

    organisation = models.ForeignKey(
        Organisation, null=True, blank=True, on_delete=models.CASCADE, related_name="playbooks"
    )
    name = models.CharField(max_length=100)
    language = models.CharField(max_length=8)
    # The playbook an organisation's reviews use for this language (else the shipped default).
    is_active = models.BooleanField(default=False)
    copied_from = models.ForeignKey("self", null=True, blank=True, on_delete=models.SET_NULL)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["organisation", "name"], name="playbook_unique_name"),
            models.UniqueConstraint(
                fields=["name"],
                condition=models.Q(organisation__isnull=True),
                name="playbook_unique_default_name",
            ),
        ]

    def __str__(self) -> str:
        return self.name

    @property
    def is_default(self) -> bool:
        return self.organisation_id is None


class PlaybookVersion(models.Model):
    """One immutable edit of a playbook; reviews record the version they ran with."""

    playbook = models.ForeignKey(Playbook, on_delete=models.CASCADE, related_name="versions")
    number = models.PositiveIntegerField()
    source = models.TextField(help_text="The playbook as YAML")
    note = models.CharField(max_length=300, blank=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["playbook", "-number"]
        constraints = [
            models.UniqueConstraint(fields=["playbook", "number"], name="version_unique_number")
        ]

    def __str__(self) -> str:
        return self.label

    @property
    def label(self) -> str:
        return f"{self.playbook.name}@{self.number}"


class RouterVersion(models.Model):
    """One trained learned router: the shipped one (no organisation) or an organisation's
    retrained model, which an admin activates after reading its figures."""

    organisation = models.ForeignKey(
        Organisation, null=True, blank=True, on_delete=models.CASCADE, related_name="routers"
    )
    number = models.PositiveIntegerField()
    language = models.CharField(max_length=8, default="en")
    artefact = models.BinaryField(help_text="The model file (clausewise.router/1, npz)")
    sha256 = models.CharField(max_length=64)
    # The second-stage check retrained with it on the organisation's labels (empty: the shipped
    # check); activating the version makes both the ones new reviews use.
    check_artefact = models.BinaryField(
        null=True, blank=True, help_text="The check model file (npz), if retrained with it"
    )
    figures = models.JSONField(default=dict, blank=True)
    note = models.CharField(max_length=300, blank=True)
    decisions = models.PositiveIntegerField(default=0, help_text="Lawyers' decisions it learnt")
    is_active = models.BooleanField(default=False)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["organisation_id", "-number"]
        constraints = [
            models.UniqueConstraint(
                fields=["organisation", "language", "number"], name="router_unique_number"
            ),
        ]

    def __str__(self) -> str:
        return self.label

    @property
    def label(self) -> str:
        owner = f"org{self.organisation_id}" if self.organisation_id else "shipped"
        return f"router-{self.language}-{owner}@{self.number}"

    @property
    def check_label(self) -> str:
        """The label of the check retrained with this version (reviews record it)."""
        return f"check-{self.language}-org{self.organisation_id}@{self.number}"
