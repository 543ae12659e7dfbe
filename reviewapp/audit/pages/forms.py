"""The audit log's filters: a GET form whose choices come from the admin's organisations."""

from __future__ import annotations

from typing import Any

from django import forms
from django.utils.translation import gettext_lazy as _

from reviewapp.audit.models import AuditAction, AuditEvent
from reviewapp.audit.pages.history import LogFilters
from reviewapp.audit.pages.wording import ACTION_LABELS
from reviewapp.contracts.models import Contract


class AuditLogFilterForm(forms.Form):
    actor = forms.CharField(label=_("Who"), required=False, max_length=200)
    action = forms.ChoiceField(label=_("What"), required=False)
    contract = forms.TypedChoiceField(
        label=_("Contract"), required=False, coerce=int, empty_value=None
    )
    date_from = forms.DateField(
        label=_("From"), required=False, widget=forms.DateInput(attrs={"type": "date"})
    )
    date_to = forms.DateField(
        label=_("To"), required=False, widget=forms.DateInput(attrs={"type": "date"})
    )

    def __init__(self, data: Any, *, organisation_ids: tuple[int, ...]) -> None:
        super().__init__({key: value for key, value in (data or {}).items() if value})
        self.organisation_ids = organisation_ids
        actions = sorted(((code, str(label)) for code, label in ACTION_LABELS.items()), key=_label)
        self._offer("action", actions, _("Any action"))
        contracts = Contract.objects.filter(matter__organisation_id__in=organisation_ids)
        names = contracts.order_by("original_name", "pk").values_list("pk", "original_name")
        offered = [(str(pk), name) for pk, name in names]
        self._offer("contract", offered + self._deleted(), _("All contracts"))

    def _deleted(self) -> list[tuple[str, str]]:
        """Contracts deleted from these organisations: their events stay in the log (by id; the
        log keeps no names), so they can still be filtered on."""
        ids = AuditEvent.objects.filter(
            organisation_id__in=self.organisation_ids,
            action=AuditAction.CONTRACT_DELETED,
            target_type="contract",
        ).values_list("target_id", flat=True)
        numbers = sorted({int(pk) for pk in ids if pk.isdigit()})
        return [(str(pk), _("Contract %(id)d (deleted)") % {"id": pk}) for pk in numbers]

    def _offer(self, name: str, pairs: list[tuple[str, str]], everyone: Any) -> None:
        field = self.fields[name]
        assert isinstance(field, forms.ChoiceField)
        field.choices = [("", everyone), *pairs]

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean() or {}
        date_from, date_to = cleaned.get("date_from"), cleaned.get("date_to")
        if date_from and date_to and date_from > date_to:
            raise forms.ValidationError(_("The start date is after the end date."))
        return cleaned

    def log_filters(self) -> LogFilters:
        data = self.cleaned_data
        return LogFilters(
            organisation_ids=self.organisation_ids,
            actor=data.get("actor") or "",
            action=data.get("action") or "",
            contract_id=data.get("contract"),
            date_from=data.get("date_from"),
            date_to=data.get("date_to"),
        )


def _label(pair: tuple[str, str]) -> str:
    return pair[1]
