"""Chinese numerals as numbers: 第一百零七条 is article 107, 第１２条 is 12, 二十四个月 is 24.

The reading is cn2an's ("smart" mode): Arabic and full-width digits, small-writing numerals
with units (一百零七, 二十, 十二, 两千), the financial forms (壹佰零柒), 〇 or 零 for zero,
digit-by-digit writing (一〇七) and the spoken short form that drops the last unit (三百五 =
350); it refuses malformed ones (十十, 一二十). Only whole numbers of zero or more are numbers
here. Used by the citation finder (article numbers) and by fact finding (counts of terms).
"""

from __future__ import annotations

import cn2an

_DIGITS = "零〇○一壹二贰貳两兩三叁參四肆五伍六陆陸七柒八捌九玖"
_UNITS = "十拾百佰千仟万萬"
# Every character a number may be written with: for the citation finder's patterns.
NUMERAL_CHARS = "0123456789０１２３４５６７８９" + _DIGITS + _UNITS
_ALLOWED = frozenset(NUMERAL_CHARS)
# Variants cn2an does not read, as the ones it does: a white circle for 〇, the traditional 參.
_VARIANTS = str.maketrans("○參", "〇叁")
# A unit alone (百 for 一百): cn2an refuses it.
_LONE_UNITS = {"百": 100, "佰": 100, "千": 1000, "仟": 1000, "万": 10_000, "萬": 10_000}


def chinese_number(text: str) -> int | None:
    """The whole number ``text`` writes, or None when it is not one number."""
    text = text.strip()
    if not text or not _ALLOWED.issuperset(text):
        return None
    if text in _LONE_UNITS:
        return _LONE_UNITS[text]
    try:
        value = cn2an.cn2an(text.translate(_VARIANTS), "smart")
    except ValueError:
        return None
    return int(value) if value >= 0 and value == int(value) else None
