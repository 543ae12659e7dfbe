"""``{{ draft|draft_summary }}``: the offline draft's summary in the reader's language;
``{{ fact|fact_shown:name }}``: a stored key fact as the reader sees it."""

from __future__ import annotations

from django import template

from reviewapp.reviews.drafting import draft_summary
from reviewapp.reviews.key_facts import fact_shown_raw

register = template.Library()

register.filter("draft_summary", draft_summary)


@register.filter("fact_shown")
def fact_shown(raw: object, name: str) -> str:
    return fact_shown_raw(name, raw)
