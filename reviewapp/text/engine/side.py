"""The side the firm acts for, in the words a lawyer reads (pure Python, no Django).

``speak_for`` rewrites a rule's question, standard position or fallback so that it names the
parties by their defined names: the playbooks speak of "our client" and "the counterparty"
(Chinese: 我方 and 对方). ``obligation_direction`` reads from a clause's plain wording whom it
binds: "<Role> shall not", "<Role> shall pay", "<Role> agrees not to", 甲方不得, 乙方应支付. The
playbook's ``side`` setting says what becomes of a clause that only protects the client.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Literal

from .model import SEVERITIES, Playbook

Direction = Literal["binds_client", "protects_client"]
BINDS_CLIENT: Direction = "binds_client"
PROTECTS_CLIENT: Direction = "protects_client"

_EN_CLIENT = re.compile(r"\b(?:[Oo]ur|[Tt]he)\s+client(?P<s>'s|’s)?\b")
_EN_COUNTERPARTY = re.compile(r"\b[Tt]he\s+counterparty(?P<s>'s|’s)?\b")
# A Chinese sentence in which 对方 is the counterparty: it speaks of 我方 and
# of no party in general (一方 ... 对方 is "one party ... the other").
_ZH_CLAUSE_END = re.compile(r"(?<=[。？?！!\n])")
_ZH_ANY_PARTY = re.compile(r"一方|双方|各方|另一方|彼此|相互|任何方")


def speak_for(text: str, *, client: str, counterparty: str | None = None) -> str:
    """``text`` naming the client (and the counterparty, when there is one other party) by the
    defined names given ("Buyer", "甲方"); what names no side is left as written."""
    if not text or not client:
        return text
    text = _EN_CLIENT.sub(lambda m: client + (m.group("s") or ""), text)
    if counterparty:
        text = _EN_COUNTERPARTY.sub(lambda m: counterparty + (m.group("s") or ""), text)
    clauses = _ZH_CLAUSE_END.split(text)
    return "".join(_zh_clause(clause, client, counterparty) for clause in clauses)


def _zh_clause(clause: str, client: str, counterparty: str | None) -> str:
    if "我方" not in clause:
        return clause
    if counterparty and not _ZH_ANY_PARTY.search(clause):
        clause = clause.replace("对方", counterparty)
    return clause.replace("我方", client)


_EN_DUTY = (
    r"(?i:shall(?!\s+(?:be\s+entitled|have\s+the\s+right|may))|must|will\s+not|may\s+not|"
    r"agrees?\s+(?:not\s+)?to|undertakes?\s+(?:not\s+)?to|covenants?\s+(?:not\s+)?to|"
    r"is\s+(?:obliged|obligated|required)\s+to)\b"
)
_ZH_DUTY = r"(?:不得|应当|应(?!(?:甲方|乙方|对方|其)?(?:的)?要求)|须|必须|负责|承诺|保证)"
_EN_NOT_SUBJECT = {"by", "to", "of", "from", "with", "for", "against", "upon", "on", "than"}
_EN_JOINT = {"and", "or"}
_ZH_NOT_SUBJECT = "向由对给与和及被"


def obligation_direction(
    passage_text: str, *, client_role: str, counterparty_role: str | None
) -> Direction | None:
    """Whether the clause's plain wording binds the client alone (``binds_client``) or the
    counterparty alone (``protects_client``); None when it is unclear or binds both."""
    if not client_role or not counterparty_role:
        return None
    client = _duties(passage_text, client_role)
    other = _duties(passage_text, counterparty_role)
    if client is None or other is None or bool(client) == bool(other):
        return None  # "Buyer and Seller shall", neither, or both bound
    return BINDS_CLIENT if client else PROTECTS_CLIENT


def protecting_words(
    passage_text: str, *, client_role: str, counterparty_role: str | None
) -> str | None:
    """The passage's own words that show a clause only protects the client: from the first
    duty the counterparty alone bears to the end of its sentence ("Seller shall not sell the
    Products ..."), an exact substring of ``passage_text``. None unless ``obligation_direction``
    reads ``protects_client``."""
    direction = obligation_direction(
        passage_text, client_role=client_role, counterparty_role=counterparty_role
    )
    duties = _duties(passage_text, counterparty_role or "")
    if direction != PROTECTS_CLIENT or not duties:
        return None
    start = duties[0].start()
    end = _SENTENCE_END.search(passage_text, duties[0].end())
    stop = end.start() if end else len(passage_text)
    return passage_text[start : min(stop, start + _MAX_QUOTE_CHARS)].rstrip()


_SENTENCE_END = re.compile(r"[.;:。；：！？!?\n]")
_MAX_QUOTE_CHARS = 300


def _duties(text: str, role: str) -> list[re.Match[str]] | None:
    """The duties the text puts on ``role`` alone, in order; None when ``role`` shares one with
    another party ("Buyer and Seller shall")."""
    if _is_chinese(role):
        duty = re.compile(re.escape(role) + r"\s*" + _ZH_DUTY)
        return [
            m
            for m in duty.finditer(text)
            if not (m.start() and text[m.start() - 1] in _ZH_NOT_SUBJECT)
        ]
    duty = re.compile(rf"(?<![\w-]){re.escape(role)}(?:'s|’s)?\s+{_EN_DUTY}")
    found = []
    for match in duty.finditer(text):
        before = text[: match.start()].split()
        previous = before[-1].lower().strip(",;:(") if before else ""
        if previous in _EN_JOINT:
            return None
        if previous not in _EN_NOT_SUBJECT:
            found.append(match)
    return found


def _is_chinese(words: str) -> bool:
    return any("\u4e00" <= char <= "\u9fff" for char in words)


def protects_client_policy(playbook: Playbook, category: str) -> str:
    """What becomes of a flagged clause of ``category`` that only protects the client:
    ``lawyer`` (as any other), ``lower`` (a lawyer sees it one severity lower) or ``settle``
    (settled without a lawyer; the caller that settles it decides how)."""
    return dict(playbook.side.categories).get(category, playbook.side.protects_client)


# A passage of several categories follows the strictest of their policies.
_POLICY_STRICTNESS = ("lawyer", "lower", "settle")


def passage_policy(playbook: Playbook, categories: Iterable[str]) -> str:
    """The policy for a clause that only protects the client, over all the categories that
    stand on it: ``settle`` only when every one settles, ``lawyer`` when any needs a lawyer as
    flagged, else ``lower`` (no category: ``lawyer``)."""
    policies = {protects_client_policy(playbook, category) for category in categories}
    return next((p for p in _POLICY_STRICTNESS if p in policies), "lawyer")


def severity_for_side(severity: str, *, direction: Direction | None, policy: str) -> str:
    """The severity a lawyer sees: one step lower for a clause that only protects the client
    when the playbook says ``lower``; as it is otherwise (and at the lowest)."""
    if direction != PROTECTS_CLIENT or policy != "lower" or severity not in SEVERITIES:
        return severity
    return SEVERITIES[max(SEVERITIES.index(severity) - 1, 0)]
