"""``{{ draft|draft_summary }}``: the offline draft's summary in the reader's language;
``{{ fact|fact_html:name }}``: a stored key fact as the reader sees it, an unsure fact's
competing value linked to its passage."""

from __future__ import annotations

from django import template
from django.utils.safestring import SafeString

from reviewapp.reviews.drafting import draft_summary
from reviewapp.reviews.key_facts import fact_html_raw

register = template.Library()

register.filter("draft_summary", draft_summary)


@register.filter("fact_html")
def fact_html(raw: object, name: str) -> SafeString:
    return fact_html_raw(name, raw)
