"""The reports page's filters: a GET form whose choices come from the admin's organisations."""

from __future__ import annotations

from datetime import date, timedelta
from typing import Any

from django import forms
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from reviewapp.audit.reports.figures import ReportChoices
from reviewapp.audit.reports.filters import ReportFilters
from reviewapp.reviews.models import Engine
from reviewapp.rules.display_labels import category_label

DEFAULT_DAYS = 30
MAX_DAYS = 3 * 366


def default_period(today: date | None = None) -> tuple[date, date]:
    today = today or timezone.now().date()
    return today - timedelta(days=DEFAULT_DAYS - 1), today


def _choices(pairs: list[tuple[str, Any]], everyone: Any) -> list[tuple[str, Any]]:
    return [("", everyone), *pairs]


class ReportFilterForm(forms.Form):
    date_from = forms.DateField(label=_("From"), widget=forms.DateInput(attrs={"type": "date"}))
    date_to = forms.DateField(label=_("To"), widget=forms.DateInput(attrs={"type": "date"}))
    matter = forms.TypedChoiceField(label=_("Matter"), required=False, coerce=int, empty_value=None)
    reviewer = forms.TypedChoiceField(
        label=_("Reviewer"), required=False, coerce=int, empty_value=None
    )
    lawyer = forms.TypedChoiceField(label=_("Lawyer"), required=False, coerce=int, empty_value=None)
    category = forms.ChoiceField(label=_("Category"), required=False)
    rule = forms.ChoiceField(label=_("Rule"), required=False)
    engine = forms.ChoiceField(
        label=_("Engine"), required=False, choices=_choices(list(Engine.choices), _("Any"))
    )

    def __init__(self, data, *, choices: ReportChoices, today: date | None = None) -> None:
        date_from, date_to = default_period(today)
        given = {key: value for key, value in (data or {}).items() if value}
        super().__init__({"date_from": date_from, "date_to": date_to, **given})
        self._offer("matter", _labelled(choices.matters), _("All matters"))
        self._offer("reviewer", _labelled(choices.reviewers), _("Anyone"))
        self._offer("lawyer", _labelled(choices.lawyers), _("Anyone"))
        categories = [(c, category_label(c)) for c in choices.categories]
        self._offer("category", categories, _("All categories"))
        self._offer("rule", [(r, r) for r in choices.rules], _("All rules"))

    def _offer(self, name: str, pairs: list[tuple[str, str]], everyone: Any) -> None:
        field = self.fields[name]
        assert isinstance(field, forms.ChoiceField)
        field.choices = _choices(pairs, everyone)

    def clean(self):
        cleaned = super().clean() or {}
        date_from, date_to = cleaned.get("date_from"), cleaned.get("date_to")
        if date_from and date_to:
            if date_from > date_to:
                raise forms.ValidationError(_("The start date must not be after the end date."))
            if (date_to - date_from).days > MAX_DAYS:
                raise forms.ValidationError(_("Choose a period of at most three years."))
        return cleaned

    def report_filters(self, *, organisation_ids: tuple[int, ...]) -> ReportFilters:
        data = self.cleaned_data
        return ReportFilters(
            organisation_ids=organisation_ids,
            date_from=data["date_from"],
            date_to=data["date_to"],
            matter_id=data.get("matter"),
            reviewer_id=data.get("reviewer"),
            lawyer_id=data.get("lawyer"),
            category=data.get("category") or "",
            rule_id=data.get("rule") or "",
            engine=data.get("engine") or "",
        )


def _labelled(pairs: list[tuple[int, str]]) -> list[tuple[str, str]]:
    return [(str(pk), label) for pk, label in pairs]
