"""RE2 compilation shared by the linter, the compiler and the fact extractors.

All patterns run on RE2: matching time is linear in the text, whatever the pattern, so a hostile
contract cannot stall a scan. Patterns are case-insensitive unless they say otherwise with
``(?-i:...)`` and run on UTF-8 bytes, so a document is encoded once, not once per rule.
"""

from __future__ import annotations

import re
from typing import Any

import re2

# google-re2 ships no type information; a compiled program behaves like ``re.Pattern[bytes]``.
Compiled = Any

REGEX_MAX_MEM = 64 << 20

_UNSUPPORTED = (
    (
        re.compile(r"\(\?<?[=!]"),
        "uses a lookaround ({}), which RE2 does not support; "
        "express the condition with `exceptions`, `requires_nearby` or `unless_nearby`",
    ),
    (
        re.compile(r"\\[1-9]|\(\?P=|\\k<|\\g<"),
        "uses a backreference ({}), which RE2 does not support; spell out the alternatives instead",
    ),
    (
        re.compile(r"\(\?>|[*+?}][+]"),
        "uses an atomic group or possessive quantifier ({}), which "
        "RE2 does not support and does not need",
    ),
)


def options(*, case_sensitive: bool = False) -> re2.Options:
    opts = re2.Options()
    opts.case_sensitive = case_sensitive
    opts.log_errors = False
    opts.max_mem = REGEX_MAX_MEM
    return opts


def unsupported_feature(pattern: str) -> str | None:
    """Explain a PCRE-only construct in ``pattern`` (a clearer message than RE2's own)."""
    for finder, message in _UNSUPPORTED:
        found = finder.search(pattern)
        if found:
            return message.format(f"`{found.group()}`")
    return None


def compile_bytes(pattern: str, *, case_sensitive: bool = False) -> Compiled:
    """Compile ``pattern`` for matching UTF-8 bytes; raises ``re2.error``."""
    return re2.compile(pattern.encode("utf-8"), options(case_sensitive=case_sensitive))


def widen_spaces(pattern: str) -> str:
    r"""``pattern`` with each run of literal spaces matching any run of white space.

    Text extracted from PDFs wraps lines and pads words with several spaces, so a rule written
    as "a minimum of" must also match "a\n   minimum of". Inside a character class a space
    becomes ``\s``; escaped characters are left alone.
    """
    out: list[str] = []
    i, size, in_class = 0, len(pattern), False
    while i < size:
        char = pattern[i]
        if char == "\\" and i + 1 < size:
            out.append(pattern[i : i + 2])
            i += 2
        elif in_class:
            in_class = char != "]"
            out.append("\\s" if char == " " else char)
            i += 1
        elif char == "[":
            # "[]...]" and "[^]...]" hold a literal "]" as their first member.
            opening = 2 if pattern.startswith("[^", i) else 1
            if pattern.startswith("]", i + opening):
                opening += 1
            out.append(pattern[i : i + opening])
            in_class = True
            i += opening
        elif char == " ":
            while i < size and pattern[i] == " ":
                i += 1
            out.append("(?:\\s+)")
        else:
            out.append(char)
            i += 1
    return "".join(out)


def alternation(patterns: tuple[str, ...] | list[str]) -> str:
    return "|".join(f"(?:{p})" for p in patterns)


def error_text(exc: Exception) -> str:
    text = exc.args[0] if exc.args else str(exc)
    if isinstance(text, bytes):
        text = text.decode("utf-8", "replace")
    return str(text)
