"""A contract's name as its title block gives it, without the filing's words around it.

The playbook's extractor finds the title line ("EXECUTION VERSION CONFIDENTIAL DOMAIN NAME AND
CONTENT LICENSE AGREEMENT"); what a filing or a draft adds before it (an exhibit number,
"Execution Copy", "Confidential", an attachment's letter) and what follows the name on its line
("DATED JULY 15, 2005", " - Dr. Gaetano Morello N.D. Inc.") are not the contract's name.
"""

from __future__ import annotations

import re

_LEAD = re.compile(
    r"^(?:\s|[-–—*,.:;]|(?:execution|final|conformed|redacted|signature)\s+(?:version|copy)\b|"
    r"confidential(?:\s+treatment\s+requested)?\b|exhibit\s+[\w.\-()]+|attachment\s+[\w.\-]+|"
    r"schedule\s+[\w.\-]+|annex\s+[\w.\-]+|appendix\s+[\w.\-]+|\[?logo\]?|draft\b)+",
    re.IGNORECASE,
)
_TAIL = re.compile(
    r"\s+(?:dated|made|by\s+and|between|among|effective|entered|is|this)\b.*$|\s+[-–—]\s+.*$",
    re.IGNORECASE,
)
_NAMES_A_CONTRACT = re.compile(
    r"\b(?:agreement|contract|licen[cs]e|amendment|addendum|lease|memorandum|plan|deed)\b", re.I
)


def clean_title(words: str) -> str:
    """The title without what precedes and follows it; the words as given when that would
    leave nothing that names a contract."""
    title = " ".join(words.split())
    while True:
        shorter = _LEAD.sub("", title).strip()
        if shorter == title:
            break
        title = shorter
    title = _TAIL.sub("", title).strip(" ,.;:-")
    return title if _NAMES_A_CONTRACT.search(title) else " ".join(words.split())
