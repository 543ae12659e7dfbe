from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _

from reviewapp.accounts.models import Matter
from reviewapp.contracts.models import Contract


class MatterRerun(models.Model):
    """A re-run of every reviewed contract of a matter on the playbook now in force."""

    matter = models.ForeignKey(Matter, on_delete=models.CASCADE, related_name="reruns")
    requested_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return f"Re-run {self.pk} of {self.matter}"


class RerunItemStatus(models.TextChoices):
    QUEUED = "QUEUED", _("Queued")
    DONE = "DONE", _("Re-run")
    CURRENT = "CURRENT", _("Already on the current playbook")
    FAILED = "FAILED", _("Failed")


class MatterRerunItem(models.Model):
    """One contract of a matter re-run: its Celery task moves it out of QUEUED exactly once."""

    rerun = models.ForeignKey(MatterRerun, on_delete=models.CASCADE, related_name="items")
    contract = models.ForeignKey(Contract, on_delete=models.CASCADE, related_name="+")
    status = models.CharField(
        max_length=8, choices=RerunItemStatus.choices, default=RerunItemStatus.QUEUED
    )
    snapshot_id = models.BigIntegerField(null=True, blank=True)
    error = models.CharField(max_length=300, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["rerun", "contract"], name="rerun_item_once")
        ]

    def __str__(self) -> str:
        return f"{self.contract_id} in re-run {self.rerun_id}"
