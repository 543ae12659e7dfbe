"""Citations of PRC law checked against the law in force.

Pure Python (no Django): ``find_citations`` reads the laws and article numbers a passage cites
(Chinese numerals as numbers), ``judge`` says of each whether it is repealed (since when, and by
what replaced), beyond the law's last article, without an article number, or fine, against the
shipped table ``prc_laws.csv``. A playbook rule with ``citation_check: prc`` uses it in the scan
(a wrong citation fires the rule) and in the offline verdict (see ``rules.engine.offline``).
"""

from reviewapp.text.numerals import chinese_number

from .finder import Citation, find_citations
from .judge import (
    BEYOND_LAST_ARTICLE,
    IN_FORCE,
    NO_ARTICLE,
    NO_LAW_NAMED,
    NOT_YET_IN_FORCE,
    PROBLEMS,
    RATIONALE_PREFIX,
    REPEALED,
    UNKNOWN_LAW,
    WORDING,
    CitationVerdict,
    Finding,
    check_citations,
    citation_verdict,
    judge,
    problem_span,
    rationale,
)
from .table import Law, LawTable, law_table, name_key, read_laws

CHECKS = ("prc",)  # the values a rule's `citation_check` may take

__all__ = [
    "BEYOND_LAST_ARTICLE",
    "CHECKS",
    "IN_FORCE",
    "NOT_YET_IN_FORCE",
    "NO_ARTICLE",
    "NO_LAW_NAMED",
    "PROBLEMS",
    "RATIONALE_PREFIX",
    "REPEALED",
    "UNKNOWN_LAW",
    "WORDING",
    "Citation",
    "CitationVerdict",
    "Finding",
    "Law",
    "LawTable",
    "chinese_number",
    "check_citations",
    "citation_verdict",
    "find_citations",
    "judge",
    "law_table",
    "name_key",
    "problem_span",
    "rationale",
    "read_laws",
]
