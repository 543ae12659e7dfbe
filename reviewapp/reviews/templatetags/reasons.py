from django import template

from reviewapp.reviews.reasons import reason_label

register = template.Library()

register.filter("reason_label", reason_label)
