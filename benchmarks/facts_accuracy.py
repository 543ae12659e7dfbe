"""Key facts against the lawyers' answers: agreement, effective and expiration date, governing law.

Run: .venv/bin/python benchmarks/facts_accuracy.py [--source txt|pdf|both] [--half even|odd|all]
     [--show FACT] [--limit N] [--guess folds|shipped|none] [--train PATH]

For every CUAD development contract, the text (the .txt, or the PDF read by the app's own
extractor, sandboxed as an upload is) is segmented and read by the offline engine's fact finding
(``reviewapp.text.facts.find_facts`` over the shipped English playbook's extractors), and each
fact's normalised value is compared with the lawyers' normalised answer in labels.jsonl:
- dates: "7/11/06" is 2006-07-11; "[]/[]/2015" (the contract leaves day and month blank) is
  2015 and only the value 2015 is right; an answer without any digit ("[]/[]/[]") states nothing;
- expiration "perpetual" is the value "perpetual";
- governing law: the answer's first jurisdiction part ("Ontario, Canada": Ontario) must be the
  one we read ("England" matches "England and Wales"); answers listing several accept any;
- document name (measured, no target): the same words, in lower case without punctuation;
- renewal term and notice period (measured, no target): the answer's first period, a year
  being twelve months and a week seven days;
- parties (measured, no target): every name we read must be one of the answer's (compared
  without roles, corporate suffixes and case; a near spelling counts: answers have typos), and
  we must name at least two of them, or the one.
A contract "states" a fact when its answer is not empty. Per fact: right, wrong (a value that is
not the answer) and empty (no value) among those; the target is right >= 0.90 and wrong < empty.

The finders were tuned looking at the contracts of even index (0, 2, 4, ... in labels.jsonl);
``--half odd`` scores only the others, a held-out estimate (a near-copy of an even-index
contract counts as even).

Where the finders give no expiration date, a learned guess may (``reviewapp/text/facts/guess.py``).
``--guess folds`` (the default) scores each contract with a model trained on the other four
fifths (folds by index modulo 5), so no contract is scored by a model that saw it; ``shipped``
uses the committed model (trained on all 311: in-sample); ``none`` the finders alone.
``--train PATH`` writes a model trained on every contract read (the shipped one is
``--source txt --train reviewapp/text/facts/shipped/expiration-en.json``).
"""

from __future__ import annotations

import argparse
import itertools
import json
import re
import sys
import time
import zlib
from collections.abc import Iterator
from dataclasses import dataclass, field
from difflib import SequenceMatcher
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from reviewapp.text.engine import compile_playbook, extract_facts, load_playbook  # noqa: E402
from reviewapp.text.extraction import ExtractionError, ExtractionLimits, extract_file  # noqa: E402
from reviewapp.text.facts import find_facts  # noqa: E402
from reviewapp.text.facts import guess as guessing  # noqa: E402
from reviewapp.text.facts.durations import parse_duration  # noqa: E402
from reviewapp.text.facts.jurisdictions import normalise_jurisdiction  # noqa: E402
from reviewapp.text.facts.model import PERPETUAL  # noqa: E402
from reviewapp.text.segmentation import segment  # noqa: E402

CUAD = ROOT.parent / "shared" / "data" / "cuad"
PLAYBOOK = ROOT / "reviewapp" / "rules" / "playbooks" / "commercial-en.yaml"
FACTS = (
    "Agreement Date", "Effective Date", "Expiration Date", "Governing Law", "Parties",
    "Renewal Term", "Notice Period To Terminate Renewal", "Document Name",
)  # fmt: skip
TARGETED = FACTS[:4]  # the targets; the others are measured, without one
DURATIONS = ("Renewal Term", "Notice Period To Terminate Renewal")
TARGET_RIGHT = 0.90
_PIVOT = 50


@dataclass
class Tally:
    stated: int = 0
    right: int = 0
    wrong: int = 0
    empty: int = 0
    unstated: int = 0  # contracts whose answer is empty (no renewal, no party named) ...
    given: int = 0  # ... for which we give a value all the same
    # shown as unsure (a close competing value, ``competing.py``), of the right and wrong ones;
    # and how often the competing value is the answer
    unsure: dict[str, int] = field(default_factory=lambda: {"right": 0, "wrong": 0})
    candidate_right: int = 0
    misses: list[str] = field(default_factory=list)

    def add(self, verdict: str, note: str, unsure: bool = False) -> None:
        self.stated += 1
        setattr(self, verdict, getattr(self, verdict) + 1)
        if unsure and verdict in self.unsure:
            self.unsure[verdict] += 1
        if verdict != "right" or unsure:
            self.misses.append(f"{verdict}{', unsure' if unsure else ''}: {note}")

    @property
    def share(self) -> float:
        return self.right / self.stated if self.stated else 0.0

    @property
    def meets(self) -> bool:
        return self.share >= TARGET_RIGHT and self.wrong < max(self.empty, 1)


def answer_dates(answer: str) -> list[tuple[int | None, ...]]:
    """The date(s) of an answer as (year, month, day), None where the contract left a blank."""
    dates = []
    for part in answer.split(";"):
        pieces = [p.strip() for p in part.strip().split("/")]
        if len(pieces) != 3 or not re.search(r"\d", part):
            continue
        month, day, year = (int(p) if p.isdigit() else None for p in pieces)
        if month is not None and day is not None and month > 12 >= day:  # "31/01/2025"
            month, day = day, month
        if year is not None and year < 100:
            year += 1900 if year >= _PIVOT else 2000
        dates.append((year, month, day))
    return dates


def value_date(value: object) -> tuple[int | None, ...] | None:
    if not isinstance(value, str) or not re.fullmatch(r"\d{4}(?:-\d\d){0,2}", value):
        return None
    parts = [int(p) for p in value.split("-")]
    return tuple(parts + [None] * (3 - len(parts)))  # type: ignore[list-item]


def judge(fact: str, answer: str, value: object) -> str | None:
    """ "right", "wrong" or "empty"; None when the answer states nothing."""
    if fact == "Governing Law":
        return _judge_law(answer, value)
    if fact == "Parties":
        return _judge_parties(answer, value)
    if fact in DURATIONS:
        return _judge_duration(answer, value)
    if fact == "Document Name":
        return _judge_name(answer, value)
    perpetual = answer.strip().lower() == PERPETUAL
    dates = answer_dates(answer)
    if not perpetual and not dates:
        return None
    if value in (None, ""):
        return "empty"
    if perpetual:
        return "right" if value == PERPETUAL else "wrong"
    return "right" if value_date(value) in dates else "wrong"


def _judge_law(answer: str, value: object) -> str | None:
    wanted = [normalise_jurisdiction(part) for part in answer.split(";") if part.strip()]
    if not answer.strip():
        return None
    if not value:
        return "empty"
    ours = normalise_jurisdiction(str(value))
    for place in wanted:
        if place is None or ours is None:
            continue
        if place == ours or (
            place.country == ours.country and place.region and place.region in ours.region
        ):
            return "right"
    return "wrong"


_SUFFIXES = re.compile(
    r"\b(?:inc|incorporated|corp|corporation|co|company|ltd|limited|llc|l\.l\.c|plc|lp|l\.p|llp|"
    r"gmbh|ag|sa|s\.a|bv|nv|pty|the)\b\.?",
    re.IGNORECASE,
)


def party_key(name: str) -> str:
    """A party's name without roles, quotes, corporate suffixes, case or punctuation."""
    name = _SUFFIXES.sub(" ", re.sub(r"\(.*?\)|[\"“”]", " ", name).lower())
    return " ".join(re.findall(r"[a-z0-9]+", name))


def _same_party(a: str, b: str) -> bool:
    # containment ("Fox" in "Fox Mobile Entertainment"), or a typo in the answer ("Pifzer")
    return bool(a and b) and (a in b or b in a or SequenceMatcher(None, a, b).ratio() >= 0.85)


def _judge_parties(answer: str, value: object) -> str | None:
    """Right when every party we name is one of the answer's and we name at least two of them
    (or all, where the answer has one); a list with a wrong name is wrong."""
    wanted = [key for part in answer.split(";") if (key := party_key(part))]
    if not wanted:
        return None
    ours = [party_key(str(p.get("name", ""))) for p in value or [] if isinstance(p, dict)]
    ours = [key for key in ours if key]
    if not ours:
        return "empty"
    named = sum(1 for key in wanted if any(_same_party(key, o) for o in ours))
    all_ours = all(any(_same_party(o, key) for key in wanted) for o in ours)
    return "right" if all_ours and named >= min(2, len(wanted)) else "wrong"


def _judge_name(answer: str, value: object) -> str | None:
    """The contract's name, compared in lower case without punctuation."""
    words = lambda text: " ".join(re.findall(r"[a-z0-9]+", str(text or "").lower()))  # noqa: E731
    if not words(answer):
        return None
    if not words(value):
        return "empty"
    return "right" if words(value) == words(answer) else "wrong"


def _judge_duration(answer: str, value: object) -> str | None:
    """The answer's first period ("successive 1 year") against ours: a year is twelve months
    and a week seven days ("twelve (12) months" is right for "1 year")."""
    wanted = parse_duration(answer) if answer.strip() else None
    if wanted is None:
        return None
    if not isinstance(value, str) or not value:
        return "empty"
    return "right" if _in_units(value) == _in_units(wanted) else "wrong"


def _in_units(duration: str) -> tuple[str, int] | None:
    match = re.fullmatch(r"P(\d+)([YMWD])", duration)
    if match is None:
        return None
    count, unit = int(match.group(1)), match.group(2)
    return (
        ("M", count * (12 if unit == "Y" else 1))
        if unit in "YM"
        else ("D", count * (7 if unit == "W" else 1))
    )


def contracts(limit: int | None = None) -> Iterator[tuple[int, dict]]:
    with open(CUAD / "labels.jsonl", encoding="utf-8") as lines:
        for index, line in enumerate(lines):
            if limit is not None and index >= limit:
                return
            yield index, json.loads(line)


HALVES = ("all", "even", "odd")


def in_half(index: int, half: str) -> bool:
    return half == "all" or (index % 2 == 0) == (half == "even")


def read_text(row: dict, source: str) -> tuple[str, list[tuple[int, int]] | None]:
    if source == "txt":
        return (CUAD / row["txt"]).read_text(encoding="utf-8"), None
    document = extract_file(CUAD / row["pdf"], limits=ExtractionLimits())
    return document.text, document.page_spans


FOLDS = 5
_SAMPLE = 300
EXPIRATION = "Expiration Date"


@dataclass
class Read:
    """One contract as read: its passages and the facts found (the guess not yet made)."""

    index: int
    row: dict
    passages: list
    facts: dict


def facts_of_text(compiled, text: str, page_spans, guesser="shipped") -> dict:
    passages = segment(text, page_spans)
    raw = extract_facts(compiled, text, passages)
    return find_facts(passages, raw=raw, guesser=guesser)


def read_all(source: str, limit: int | None, only: str, guess: str) -> list[Read]:
    compiled = compile_playbook(load_playbook(PLAYBOOK))
    reads = []
    for index, row in contracts(limit):
        if guess != "folds" and not in_half(index, only):
            continue  # with folds, every contract trains the models of the others
        try:
            text, spans = read_text(row, source)
        except ExtractionError as error:
            print(f"  {source} {index}: {error.code}", file=sys.stderr)
            reads.append(Read(index, row, [], {}))
            continue
        passages = [p for p in segment(text, spans) if p.text]
        raw = extract_facts(compiled, text, passages)
        facts = find_facts(passages, raw=raw, guesser="shipped" if guess == "shipped" else None)
        reads.append(Read(index, row, passages, facts))
    return reads


def labelled_candidates(read: Read) -> list[tuple[guessing.Candidate, bool]]:
    start = read.facts.get("Effective Date") or read.facts.get("Agreement Date")
    answer = read.row["answers"][EXPIRATION]
    return [
        (candidate, judge(EXPIRATION, answer, candidate.value) == "right")
        for candidate in guessing.candidates(read.passages, start)
    ]


def near_copies(reads: list[Read]) -> dict[int, int]:
    """Each contract's first near-copy (itself when it has none): the same contract filed twice,
    more than half of their sampled 8-word runs shared. A sampled comparison of word runs
    (MinHash-like) written here: a library for it would be a dependency for one benchmark."""
    samples = {}
    for read in reads:
        words = re.findall(r"\w+", " ".join(p.text for p in read.passages).lower())
        runs = {zlib.crc32(" ".join(words[i : i + 8]).encode()) for i in range(len(words) - 7)}
        samples[read.index] = set(sorted(runs)[:_SAMPLE])
    first = {read.index: read.index for read in reads}
    for one, other in itertools.combinations(sorted(samples), 2):
        a, b = samples[one], samples[other]
        union = sorted(a | b)[:_SAMPLE]
        if union and sum(1 for run in union if run in a and run in b) > len(union) / 2:
            first[other] = first[one]
    return first


def folds_of(first: dict[int, int]) -> dict[int, int]:
    """Each contract's fold: its index modulo 5, except that near-copies (``near_copies``) go
    to the fold of the first, so that neither is scored by a model trained on the other."""
    return {index: copied % FOLDS for index, copied in first.items()}


def guess_in_folds(reads: list[Read], first: dict[int, int]) -> None:
    """Each contract without an expiration gets the guess of a model trained on the other folds
    (``first``: each contract's first near-copy)."""
    labelled = {read.index: labelled_candidates(read) for read in reads if read.passages}
    fold_of = folds_of(first)
    for fold in range(FOLDS):
        model = guessing.train(labelled[i] for i in labelled if fold_of[i] != fold)
        for read in reads:
            if (
                fold_of[read.index] == fold
                and read.index in labelled
                and EXPIRATION not in read.facts
                and guessing.reads_english(read.passages)
            ):
                found = guessing.choose([c for c, _ in labelled[read.index]], model)
                if found is not None:
                    read.facts[EXPIRATION] = found


def train_shipped(source: str, path: Path) -> None:
    reads = read_all(source, None, "all", "folds")
    model = guessing.train(labelled_candidates(read) for read in reads if read.passages)
    data = "CUAD v1 (The Atticus Project), CC BY 4.0: the development contracts"
    meta = {**model.meta, "documents": len(reads), "source": source, "data": data}
    model = guessing.GuessModel(model.weights, model.bias, model.threshold, meta)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(model.as_json(), sort_keys=True) + "\n", encoding="utf-8")
    print(f"wrote {path}: {len(model.weights)} weights from {len(reads)} contracts")


def score(
    source: str, limit: int | None = None, only: str = "all", guess: str = "folds"
) -> dict[str, dict[str, Tally]]:
    """``{half: {fact: Tally}}`` for the halves "all", "even" (tuned on) and "odd" (held out)."""
    tallies = {half: {fact: Tally() for fact in FACTS} for half in HALVES}
    reads = read_all(source, limit, only, guess)
    # a near-copy of a contract the finders were tuned on counts as tuned on, whatever its index
    half_of = near_copies(reads)
    if guess == "folds":
        guess_in_folds(reads, half_of)
    for read in reads:
        row, facts = read.row, read.facts
        index = half_of[read.index]
        if not in_half(index, only):
            continue
        for fact in FACTS:
            found = facts.get(fact)
            value = found.value if found else None
            verdict = judge(fact, row["answers"][fact], value)
            if verdict is None:
                if not row["answers"][fact].strip():
                    for half in HALVES:
                        if in_half(index, half):
                            tallies[half][fact].unstated += 1
                            tallies[half][fact].given += value not in (None, "", [])
                continue
            shown = str(found.display) if found else ""
            note = f"#{read.index} answer {row['answers'][fact]!r} ours {value!r} {shown[:80]!r}"
            candidate = (found.extra.get("candidate") or {}) if found else {}
            unsure = bool(found and found.extra.get("unsure"))
            if unsure:
                note += f" unsure, also {candidate.get('value')!r}"
            candidate_right = judge(fact, row["answers"][fact], candidate.get("value")) == "right"
            for half in HALVES:
                if in_half(index, half):
                    tallies[half][fact].add(verdict, note, unsure)
                    tallies[half][fact].candidate_right += unsure and candidate_right
    return tallies


def report(source: str, half: str, tallies: dict[str, Tally], show: str | None) -> bool:
    label = {"all": "all 311", "even": "even index: tuned on", "odd": "odd index: held out"}[half]
    print(f"\n{source} / {label}")
    print(
        f"{'fact':<18}{'stated':>7}{'right':>7}{'share':>7}{'wrong':>7}{'empty':>7}"
        f"{'given':>7}  target   (given: a value where the answer states none, of unstated)"
    )
    ok = True
    for fact, tally in tallies.items():
        targeted = fact in TARGETED
        ok &= tally.meets or not targeted
        verdict = ("met" if tally.meets else "MISSED") if targeted else "(no target)"
        print(
            f"{fact[:18]:<18}{tally.stated:>7}{tally.right:>7}{tally.share:>7.3f}{tally.wrong:>7}"
            f"{tally.empty:>7}{f'{tally.given}/{tally.unstated}':>7}  {verdict}"
        )
        if any(tally.unsure.values()):
            print(
                f"{'':<18}unsure: {tally.unsure['wrong']} of {tally.wrong} wrong, "
                f"{tally.unsure['right']} of {tally.right} right; the competing value is the "
                f"answer for {tally.candidate_right}"
            )
        if show and show.lower() in fact.lower():
            for miss in tally.misses:
                print("   ", miss)
    return ok


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--source", choices=["txt", "pdf", "both"], default="both")
    parser.add_argument("--half", choices=[*HALVES, "split"], default="split")
    parser.add_argument("--show", help="list the misses of facts whose name contains this")
    parser.add_argument("--limit", type=int)
    parser.add_argument("--guess", choices=["folds", "shipped", "none"], default="folds")
    parser.add_argument("--train", type=Path, help="write a guess model trained on every contract")
    args = parser.parse_args()
    if not (CUAD / "labels.jsonl").exists():
        print(f"CUAD data not found at {CUAD}; nothing measured.")
        return 0
    if args.train:
        train_shipped("txt" if args.source == "both" else args.source, args.train)
        return 0
    sources = ["txt", "pdf"] if args.source == "both" else [args.source]
    halves = ["all", "even", "odd"] if args.half == "split" else [args.half]
    ok = True
    for source in sources:
        started = time.perf_counter()
        only = "all" if args.half == "split" else args.half
        tallies = score(source, args.limit, only, args.guess)
        for half in halves:
            met = report(source, half, tallies[half], args.show)
            ok &= met if half == "all" else True
        print(f"({time.perf_counter() - started:.1f} s)", flush=True)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
