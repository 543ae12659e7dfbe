"""Chinese numerals as numbers: 第一百零七条 is article 107, 第１２条 article 12.

Reads the forms contracts use for article numbers: Arabic and full-width digits, small-writing
numerals with units (一百零七, 二十, 十二, 两千), the financial forms (壹佰零柒), 〇 or 零 for zero,
digit-by-digit writing (一〇七) and the spoken short form that drops the last unit (三百五 = 350).
"""

from __future__ import annotations

DIGITS = {
    "零": 0, "〇": 0, "○": 0,
    "一": 1, "壹": 1,
    "二": 2, "贰": 2, "貳": 2, "两": 2, "兩": 2,
    "三": 3, "叁": 3, "參": 3,
    "四": 4, "肆": 4,
    "五": 5, "伍": 5,
    "六": 6, "陆": 6, "陸": 6,
    "七": 7, "柒": 7,
    "八": 8, "捌": 8,
    "九": 9, "玖": 9,
}  # fmt: skip
UNITS = {"十": 10, "拾": 10, "百": 100, "佰": 100, "千": 1000, "仟": 1000}
MYRIAD = {"万": 10_000, "萬": 10_000}
# Every character a number may be written with: for the citation finder's patterns.
NUMERAL_CHARS = (
    "0123456789０１２３４５６７８９" + "".join(DIGITS) + "".join(UNITS) + "".join(MYRIAD)
)

_FULL_WIDTH = str.maketrans("０１２３４５６７８９", "0123456789")


def chinese_number(text: str) -> int | None:
    """The number ``text`` writes, or None when it is not one number."""
    text = text.strip().translate(_FULL_WIDTH)
    if not text:
        return None
    if text.isascii():
        return int(text) if text.isdigit() else None
    if all(char in DIGITS for char in text):
        return int("".join(str(DIGITS[char]) for char in text))  # 一〇七: digit by digit
    total, section = 0, text
    for mark, value in MYRIAD.items():
        if mark in section:
            high, _, section = section.partition(mark)
            upper = _below_myriad(high) if high else 1
            if upper is None:
                return None
            total += upper * value
            break
    if not section:
        return total
    rest = _below_myriad(section)
    return None if rest is None else total + rest


def _below_myriad(text: str) -> int | None:
    """A number under 10,000 written with units: 一千二百六十, 十二, 一百零七, 三百五."""
    total = 0
    digit: int | None = None
    last_unit = 10_000
    zero_seen = False
    for char in text:
        if char in DIGITS:
            if digit:  # two digits in a row: only 零 may precede another digit
                return None
            digit = DIGITS[char]
            zero_seen = zero_seen or digit == 0
        elif char in UNITS:
            unit = UNITS[char]
            if unit >= last_unit:
                return None
            if digit == 0:
                return None
            total += (1 if digit is None else digit) * unit
            digit, last_unit, zero_seen = None, unit, False
        else:
            return None
    if digit:
        # 三百五 is 350: a last digit right after a unit (no 零 between) counts one unit lower.
        implied = last_unit // 10 if last_unit < 10_000 and not zero_seen else 1
        total += digit * max(implied, 1)
    return total if total or digit == 0 else None
