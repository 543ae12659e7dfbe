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
    return panels_for(request=request, user=user, review=review or None, passage=passage or None)


@register.simple_tag(takes_context=True)
def redline_assets_once(context: Any) -> bool:
    """True the first time a page asks: its script and style are linked once per page."""
    request = context.get("request")
    if request is None:
        return True
    first = not getattr(request, "_redline_assets", False)
    request._redline_assets = True
    return first
