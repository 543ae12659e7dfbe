"""URL converters. ``<id:...>`` is Django's ``int`` bounded to the database's integers: a path
naming row 190852464531830702080 is a 404 (the JSON one under /api/), not an overflow in
the database driver and a 500."""

from __future__ import annotations

from django.urls import register_converter


class IdConverter:
    regex = "[0-9]{1,18}"  # below 2**63, the largest id a bigint column holds

    def to_python(self, value: str) -> int:
        return int(value)

    def to_url(self, value: int) -> str:
        return str(value)


register_converter(IdConverter, "id")
