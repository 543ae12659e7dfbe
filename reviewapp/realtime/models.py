from django.db import models

from reviewapp.accounts.models import Matter


class Event(models.Model):
    """Every live notification, stored so a client that reconnects can ask what it missed.

    The primary key is the sequence number clients resume from.
    """

    matter = models.ForeignKey(Matter, on_delete=models.CASCADE, related_name="events")
    type = models.CharField(max_length=64)
    payload = models.JSONField(default=dict)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["id"]
        indexes = [models.Index(fields=["matter", "id"])]

    def __str__(self) -> str:
        return f"{self.pk} {self.type}"
