"""{% redline_panels review passage as panels %}: the redline editor's data for a page."""

from __future__ import annotations

from typing import Any

from django import template

from reviewapp.reviews.redlines.panels import Panels
from reviewapp.reviews.redlines.panels import redline_panels as panels_for

register = template.Library()


@register.simple_tag(takes_context=True)
def redline_panels(context: Any, review: Any, passage: Any = None) -> Panels:
    request = context.get("request")
    user = context.get("user") or getattr(request, "user", None)
    # On the queue page every item asks in turn: the first reads them all.
    page_items = [
        (entry["item"].passage, entry["item"].review)
        for entry in context.get("entries") or ()
        if isinstance(entry, dict) and hasattr(entry.get("item"), "passage")
    ]
    return panels_for(
        request=request,
        user=user,
        review=review or None,
        passage=passage or None,
        page_items=page_items,
    )


@register.simple_tag(takes_context=True)
def redline_assets_once(context: Any) -> bool:
    """True the first time a page asks: its script and style are linked once per page."""
    request = context.get("request")
    if request is None:
        return True
    first = not getattr(request, "_redline_assets", False)
    request._redline_assets = True
    return first
