from django import template

from reviewapp.reviews.reasons import rationale_shown, reason_label

register = template.Library()

register.filter("reason_label", reason_label)
register.filter("rationale_shown", rationale_shown)
