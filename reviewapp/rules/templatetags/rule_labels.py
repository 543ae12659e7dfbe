"""Template filters for the rules' vocabulary: ``{{ firing.category|category_label }}``."""

from __future__ import annotations

from django import template

from reviewapp.rules import display_labels as labels

register = template.Library()

register.filter("category_label", labels.category_label)
register.filter("severity_label", labels.severity_label)
register.filter("action_label", labels.action_label)
register.filter("contract_type_label", labels.contract_type_label)
register.filter("state_label", labels.state_label)
