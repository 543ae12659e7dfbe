"""The shipped table of PRC laws (``prc_laws.csv``): names, dates, successors, article counts."""

from __future__ import annotations

import csv
import functools
import re
from dataclasses import dataclass
from datetime import date
from pathlib import Path

TABLE = Path(__file__).with_name("prc_laws.csv")
KINDS = ("law", "regulation", "interpretation")
STATE_PREFIX = "中华人民共和国"
# A version note at the end of a name: 《公司法（2023年修订）》, 《民法典(2020)》.
_VERSION_NOTE = re.compile(r"[（(][^（）()]*(?:\d{4}|修订|修正|修改|试行)[^（）()]*[)）]$")
_SPACES = re.compile(r"\s+")


@dataclass(frozen=True)
class Law:
    name: str
    short_names: tuple[str, ...]
    kind: str
    effective: date
    version: date | None
    repealed: date | None
    successor: str
    articles: int | None

    @property
    def short(self) -> str:
        """The name a citation usually writes: 《民法典》, 《合同法》."""
        return self.short_names[0] if self.short_names else self.name

    def in_force(self, today: date) -> bool:
        return self.effective <= today and (self.repealed is None or today < self.repealed)


class LawTable:
    """Laws by every name they go by; ``resolve`` reads a name as a citation writes it."""

    def __init__(self, laws: list[Law]) -> None:
        self.laws = tuple(laws)
        self.by_name = {law.name: law for law in laws}
        self._keys: dict[str, Law] = {}
        for law in laws:
            for name in (law.name, *law.short_names):
                key = name_key(name)
                if self._keys.get(key, law) is not law:
                    raise ValueError(f"{name}: names two laws of the table")
                self._keys[key] = law

    def resolve(self, name: str) -> Law | None:
        """The law ``name`` means (full or short name, with or without 中华人民共和国), if any."""
        return self._keys.get(name_key(name))

    def names(self) -> list[str]:
        """Every matching key, longest first (for a finder that reads names without 《》)."""
        return sorted(self._keys, key=len, reverse=True)

    def successor(self, law: Law) -> Law | None:
        return self.by_name.get(law.successor) if law.successor else None

    def current(self, law: Law) -> Law:
        """The end of the successor chain: the law that now governs what ``law`` did."""
        seen = {law.name}
        while (after := self.successor(law)) is not None and after.name not in seen:
            seen.add(after.name)
            law = after
        return law


def name_key(name: str) -> str:
    """A name as the table compares it: no spaces, no 中华人民共和国, no version note, and the
    inner quotes of an interpretation's name as 〈〉 whichever quotes were used."""
    key = _SPACES.sub("", name).strip("《》〈〉<>")
    key = key.replace("《", "〈").replace("》", "〉").replace("<", "〈").replace(">", "〉")
    key = _VERSION_NOTE.sub("", key)
    key = key.replace("〈" + STATE_PREFIX, "〈")
    return key.removeprefix(STATE_PREFIX)


@functools.cache
def law_table(path: Path = TABLE) -> LawTable:
    return LawTable(read_laws(path))


def read_laws(path: Path = TABLE) -> list[Law]:
    """The rows of the table file; raises ValueError naming the row that is wrong."""
    with path.open(encoding="utf-8", newline="") as handle:
        lines = [line for line in handle if line.strip() and not line.startswith("#")]
    laws = []
    for number, row in enumerate(csv.DictReader(lines), start=2):
        try:
            laws.append(_law(row))
        except (KeyError, ValueError) as error:
            raise ValueError(f"{path.name}, row {number} ({row.get('name')}): {error}") from None
    return laws


def _law(row: dict[str, str]) -> Law:
    kind = row["kind"].strip()
    if kind not in KINDS:
        raise ValueError(f"kind {kind!r} is not one of {', '.join(KINDS)}")
    articles = row["articles"].strip()
    return Law(
        name=row["name"].strip(),
        short_names=tuple(n.strip() for n in row["short_names"].split("|") if n.strip()),
        kind=kind,
        effective=date.fromisoformat(row["effective"].strip()),
        version=_date(row["version"]),
        repealed=_date(row["repealed"]),
        successor=row["successor"].strip(),
        articles=int(articles) if articles else None,
    )


def _date(value: str) -> date | None:
    return date.fromisoformat(value.strip()) if value.strip() else None
