"""``{{ draft|draft_summary }}``: the offline draft's summary in the reader's language."""

from __future__ import annotations

from django import template

from reviewapp.reviews.drafting import draft_summary

register = template.Library()

register.filter("draft_summary", draft_summary)
