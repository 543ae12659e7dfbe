"""A learned guess at the expiration date, where the term finders (``term.py``) read none.

Every date of the contract, every period it names counted from its start, every anniversary and
every "perpetual" is a candidate; a logistic regression over the words around each (and whether
it sits under a "Term" heading, how far from the start it falls, how often the same value comes
back) scores them, and the best value is taken when its score reaches the model's threshold. The
fact says ``guessed: true`` with its ``score``, and the page marks it as unsure.

Why learned, not more patterns: the term clauses the finders miss are each worded their own way
(a hand rule for one turned out to fix only the contract it was written for, the held-out half
of CUAD showed). Measured with document folds (``benchmarks/facts_accuracy.py``: no contract is
scored by a model trained on it; threshold and regularisation chosen on the even half), the guess
takes the held-out expiration date from 0.649 to 0.681 right on the text (0.681 on the PDFs),
with wrong values still rarer than empty ones.

Training is scikit-learn's (``train``). Scoring is written here, a sum of weights through a
logistic: it needs no scikit-learn import in the workers (about a second each) and no pickle, so
the shipped model (``shipped/expiration-en.json``, weights as plain JSON: loading it runs no
code) is data like any other. It was trained on the 311 CUAD development contracts (the Contract
Understanding Atticus Dataset, The Atticus Project, CC BY 4.0). It reads English only: a Chinese
contract gets no guess.
"""

from __future__ import annotations

import json
import math
import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

from reviewapp.text.contract_type import detect_language

from .dates import as_date, find_dates, written
from .durations import find_durations
from .model import EXPIRATION_DATE, PERPETUAL, Fact, PassageText
from .term import (
    ANNIVERSARY,
    PERPETUAL_WORDS,
    TERM_HEADING,
    anniversary_years,
    computed_end,
    last_heading,
    stating_passages,
)

FORMAT = "clausewise.expiration-guess/1"
SHIPPED = Path(__file__).resolve().parent / "shipped" / "expiration-en.json"
_WORD = re.compile(r"[a-z]+|\d+", re.IGNORECASE)
_PERPETUAL_HINT = re.compile(
    r"perpetu|indefinite|until|unless|so\s+long|notice|not\s+expire", re.IGNORECASE
)
_LEFT_CHARS, _LEFT_WORDS, _RIGHT_CHARS, _RIGHT_WORDS = 100, 8, 60, 6
# Chosen on the even half of CUAD with document folds (benchmarks/facts_accuracy.py)
DEFAULT_C, DEFAULT_THRESHOLD = 1.0, 0.3


@dataclass(frozen=True)
class Candidate:
    value: str
    features: dict[str, int]
    passage_index: int
    quote: str


@dataclass(frozen=True)
class GuessModel:
    weights: dict[str, float]
    bias: float
    threshold: float
    meta: dict[str, Any] = field(default_factory=dict)

    def score(self, features: Iterable[str]) -> float:
        total = self.bias + sum(self.weights.get(name, 0.0) for name in features)
        return 1.0 / (1.0 + math.exp(-max(-30.0, min(30.0, total))))

    def as_json(self) -> dict[str, Any]:
        return {
            "format": FORMAT, "bias": self.bias, "threshold": self.threshold,
            "meta": self.meta, "weights": self.weights,
        }  # fmt: skip


def load_model(path: Path) -> GuessModel:
    data = json.loads(path.read_text(encoding="utf-8"))
    if data.get("format") != FORMAT:
        raise ValueError(f"{path} is not a {FORMAT} model")
    weights = {str(k): float(v) for k, v in data["weights"].items()}
    return GuessModel(weights, float(data["bias"]), float(data["threshold"]), data.get("meta", {}))


@lru_cache(maxsize=1)
def shipped_model() -> GuessModel | None:
    return load_model(SHIPPED) if SHIPPED.exists() else None


def guess_expiration(
    passages: Sequence[PassageText],
    effective: Fact | None,
    agreement: Fact | None,
    model: GuessModel | None,
) -> Fact | None:
    """The best-scoring candidate at or above the model's threshold, else None."""
    if model is None or not passages or not reads_english(passages):
        return None
    return choose(candidates(passages, effective or agreement), model)


def choose(found: Sequence[Candidate], model: GuessModel) -> Fact | None:
    best: tuple[float, Candidate] | None = None
    for candidate in found:
        score = model.score(candidate.features)
        if best is None or score > best[0]:
            best = (score, candidate)
    if best is None or best[0] < model.threshold:
        return None
    score, chosen = best
    day = as_date(chosen.value)
    display = (
        "Perpetual" if chosen.value == PERPETUAL
        else written(day) if day is not None
        else chosen.value
    )  # fmt: skip
    extra = {"guessed": True, "score": round(score, 2), "computed": day is not None}
    return Fact(EXPIRATION_DATE, chosen.value, display, chosen.passage_index, chosen.quote, extra)


def candidates(passages: Sequence[PassageText], start: Fact | None) -> list[Candidate]:
    """Every value the contract's expiration could be, with the features the model scores."""
    found: list[Candidate] = []
    headed = {p.index for p in passages if TERM_HEADING.search(last_heading(p))}
    stating = stating_passages(passages)
    count = max(1, len(passages))
    for position, passage in enumerate(passages):
        where = {
            f"head={passage.index in headed}": 1,
            f"stating={passage.index in stating}": 1,
            f"pos={min(4, 5 * position // count)}": 1,
        }
        found.extend(_passage_candidates(passage, start, where))
    repeats = Counter(c.value for c in found)
    for candidate in found:
        candidate.features[f"dup={min(repeats[candidate.value], 4)}"] = 1
    return found


def _passage_candidates(
    passage: PassageText, start: Fact | None, where: dict[str, int]
) -> Iterable[Candidate]:
    text = passage.text
    start_value = str(start.value) if start is not None else None

    def candidate(begin: int, end: int, kind: str, value: str) -> Candidate:
        features = {**where, f"kind={kind}": 1, f"yb={_years_after(value, start_value)}": 1}
        left = _words(text[max(0, begin - _LEFT_CHARS) : begin])[-_LEFT_WORDS:]
        right = _words(text[end : end + _RIGHT_CHARS])[:_RIGHT_WORDS]
        features.update({f"L:{w}": 1 for w in left} | {f"L2:{w}": 1 for w in left[-2:]})
        features.update({f"R:{w}": 1 for w in right} | {f"R2:{w}": 1 for w in right[:2]})
        return Candidate(value, features, passage.index, text[begin:end])

    for date in find_dates(text):
        kind = "dateC" if date.complete else "dateP"
        yield candidate(date.start, date.end, kind, date.value)
    if start is not None:
        for duration in find_durations(text):
            if duration.value[-1] in "YM":
                end = computed_end(passage, duration.text, duration.value, start)
                if end is not None:
                    kind = f"dur{duration.value[-1]}"
                    yield candidate(duration.start, duration.end, kind, end.value)
        for match in ANNIVERSARY.finditer(text):
            years = anniversary_years(match.group("count"))
            end = computed_end(passage, match.group(0), f"P{years}Y", start) if years else None
            if end is not None:
                yield candidate(match.start(), match.end(), "anniv", end.value)
    if _PERPETUAL_HINT.search(text):  # each of PERPETUAL_WORDS's phrasings has one of these
        for perpetual in PERPETUAL_WORDS.finditer(text):
            yield candidate(perpetual.start(), perpetual.end(), "perp", PERPETUAL)


def train(
    examples: Iterable[Sequence[tuple[Candidate, bool]]],
    *,
    c: float = DEFAULT_C,
    threshold: float = DEFAULT_THRESHOLD,
) -> GuessModel:
    """A model from each contract's candidates, each with whether it is the contract's right
    expiration. scikit-learn is imported here only: scoring needs nothing but the weights."""
    # scikit-learn only to train (seconds to import; a review never trains)
    from sklearn.feature_extraction import DictVectorizer
    from sklearn.linear_model import LogisticRegression

    rows, labels = [], []
    for labelled in examples:
        for candidate, right in labelled:
            rows.append(candidate.features)
            labels.append(int(right))
    vectoriser = DictVectorizer()
    matrix = vectoriser.fit_transform(rows)
    regression = LogisticRegression(C=c, max_iter=2000).fit(matrix, labels)
    names = vectoriser.get_feature_names_out()
    weights = {
        str(name): round(float(w), 4)
        for name, w in zip(names, regression.coef_[0], strict=True)
        if abs(w) >= 1e-3
    }
    meta = {"c": c, "candidates": len(rows), "positives": sum(labels)}
    return GuessModel(weights, round(float(regression.intercept_[0]), 4), threshold, meta)


def _words(text: str) -> list[str]:
    return [word.lower() for word in _WORD.findall(text)]


def _years_after(value: str, start: str | None) -> str:
    if not start or not re.match(r"\d{4}", value) or not re.match(r"\d{4}", start):
        return "nostart"
    years = int(value[:4]) - int(start[:4])
    if years < 0:
        return "neg"
    if years <= 3:
        return str(years)
    return "4-6" if years <= 6 else "7-12" if years <= 12 else "big"


def reads_english(passages: Sequence[PassageText]) -> bool:
    """Whether the model can read the contract: the app's own language call on its opening."""
    return detect_language("".join(p.text for p in passages[:20])) == "en"
