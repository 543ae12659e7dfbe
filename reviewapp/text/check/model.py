"""A trained second-stage check: one linear score over hashed (passage, category) features,
a calibration, and a threshold per category.

The artefact is a compressed ``.npz`` of plain arrays and a JSON header, read with
``allow_pickle=False`` (loading a file runs no code), like the router's. Text tokens are
weighed by sublinear tf-idf and scaled to unit length; shape tokens are binary. Both are hashed
with scikit-learn's ``HashingVectorizer`` into one space of ``N_FEATURES`` columns.
"""

from __future__ import annotations

import io
import json
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np
from scipy import sparse

from reviewapp.text.router.model import weigh

from .passage_gate import GateRows, PassageGate, blended
from .passage_gate import header as passage_gate_header

FORMAT = "clausewise.check/1"
N_FEATURES = 2**21
EXPLAIN_FEATURES = 4


def _identity(tokens: list[str]) -> list[str]:
    return tokens


@lru_cache(maxsize=1)
def hasher() -> Any:
    # scikit-learn on first use: importing it costs a web process about half a second
    from sklearn.feature_extraction.text import HashingVectorizer

    return HashingVectorizer(
        analyzer=_identity, n_features=N_FEATURES, alternate_sign=False, norm=None
    )


def feature_matrix(
    text: Sequence[list[str]], shape: Sequence[list[str]], idf: np.ndarray
) -> sparse.csr_matrix:
    """Rows of weighed text tokens plus binary shape tokens (see the module docstring)."""
    words = weigh(hasher().transform(list(text)), idf)
    marks = hasher().transform(list(shape))
    marks.data[:] = 1.0
    return (words + marks.astype(np.float32)).tocsr()


@dataclass(frozen=True)
class CheckScore:
    """The check's verdict on one category of one passage."""

    category: str
    score: float  # calibrated probability that the clause is there
    threshold: float
    features: tuple[str, ...] = ()

    @property
    def stands(self) -> bool:
        return self.score >= self.threshold


@dataclass
class CheckModel:
    idf: np.ndarray  # (N_FEATURES,) float32, 0 for shape-only columns
    coef: np.ndarray  # (N_FEATURES,) float32
    intercept: float
    calibration: tuple[float, float]  # probability = sigmoid(a * margin + b)
    thresholds: dict[str, float]  # calibrated probability at or above which a category stands
    meta: dict[str, Any] = field(default_factory=dict)
    gate: PassageGate | None = None  # None: a check file from before the gate

    def blended(self, scores: np.ndarray, rows: GateRows) -> np.ndarray:
        """Per candidate, its check score blended with its passage's gate probability (the
        check score itself without a gate)."""
        return gate_blended(self.gate, scores, rows)

    def stands(self, category: str, score: float, blend: float) -> bool:
        if score < self.threshold(category):
            return False
        return self.gate is None or blend >= self.gate.threshold(category)

    def margins(self, matrix: sparse.csr_matrix) -> np.ndarray:
        return np.asarray(matrix @ self.coef).ravel() + self.intercept

    def probabilities(self, matrix: sparse.csr_matrix) -> np.ndarray:
        a, b = self.calibration
        return 1.0 / (1.0 + np.exp(-(a * self.margins(matrix) + b)))

    def threshold(self, category: str) -> float:
        """A category the check was not tuned for always stands (0.0)."""
        return float(self.thresholds.get(category, 0.0))

    def explain(
        self,
        matrix: sparse.csr_matrix,
        tokens: Sequence[Sequence[str]],
        top: int = EXPLAIN_FEATURES,
    ) -> list[tuple[tuple[str, float], ...]]:
        """Per row of ``matrix`` (``feature_matrix`` of the candidates whose text and shape
        tokens are ``tokens``), the features that weighed most either way: (feature, weight).
        The columns come from the matrix; they are named from one hash of each of the
        document's distinct tokens (a token-by-token search costs ten times more)."""
        # scikit-learn on first use: importing it costs a web process about half a second
        from sklearn.utils import murmurhash3_32

        names = {
            _column(murmurhash3_32(token, seed=0)): token
            for token in {token for row in tokens for token in row}
        }
        found = []
        for row in range(matrix.shape[0]):
            start, end = matrix.indptr[row], matrix.indptr[row + 1]
            columns = matrix.indices[start:end]
            weights = matrix.data[start:end] * self.coef[columns]
            order = np.argsort(-np.abs(weights))[:top]
            found.append(
                tuple(
                    (_shown(names.get(int(columns[k]), "?")), round(float(weights[k]), 2))
                    for k in order
                    if weights[k]
                )
            )
        return found

    @property
    def label(self) -> str:
        return str(self.meta.get("name", "check"))

    def save(self, path: str | Path) -> None:
        Path(path).write_bytes(self.to_bytes())

    def to_bytes(self) -> bytes:
        header: dict[str, Any] = {
            "format": FORMAT,
            "intercept": self.intercept,
            "calibration": list(self.calibration),
            "thresholds": self.thresholds,
            "meta": self.meta,
        }
        arrays = _packed("", self.idf, self.coef)
        if self.gate is not None:
            header["gate"] = passage_gate_header(self.gate)
            arrays |= _packed("gate_", self.gate.idf, self.gate.coef)
        buffer = io.BytesIO()
        arrays["header"] = np.frombuffer(json.dumps(header).encode("utf-8"), dtype=np.uint8)
        np.savez_compressed(buffer, **arrays)  # type: ignore[arg-type]
        return buffer.getvalue()


def _packed(prefix: str, idf: np.ndarray, coef: np.ndarray) -> dict[str, np.ndarray]:
    used = np.flatnonzero((coef != 0) | (idf != 0))
    return {
        f"{prefix}index": used.astype(np.int32),
        f"{prefix}idf": idf[used].astype(np.float16),
        f"{prefix}coef": coef[used].astype(np.float16),
    }


def _unpacked(arrays: Any, prefix: str) -> tuple[np.ndarray, np.ndarray]:
    idf = np.zeros(N_FEATURES, dtype=np.float32)
    coef = np.zeros(N_FEATURES, dtype=np.float32)
    idf[arrays[f"{prefix}index"]] = arrays[f"{prefix}idf"].astype(np.float32)
    coef[arrays[f"{prefix}index"]] = arrays[f"{prefix}coef"].astype(np.float32)
    return idf, coef


def gate_blended(gate: PassageGate | None, scores: np.ndarray, rows: GateRows) -> np.ndarray:
    """Candidates' check ``scores`` blended with ``gate``'s probability of their passages
    (``rows``); the scores themselves without a gate or a passage it reads."""
    if gate is None or not rows.rows:
        return np.asarray(scores, dtype=float)
    passage = gate.probabilities(feature_matrix(rows.text, rows.shape, gate.idf))
    return np.asarray(blended(gate, scores, rows, passage))


class CheckFileInvalid(ValueError):
    pass


def load_check(source: str | Path | bytes) -> CheckModel:
    """A check from a file path or the bytes of one."""
    data = Path(source).read_bytes() if isinstance(source, (str, Path)) else source
    try:
        with np.load(io.BytesIO(data), allow_pickle=False) as arrays:
            header = json.loads(arrays["header"].tobytes().decode("utf-8"))
            if header.get("format") != FORMAT:
                raise CheckFileInvalid(f"not a second-stage check ({header.get('format')!r})")
            idf, coef = _unpacked(arrays, "")
            gate = _gate(header.get("gate"), arrays)
    except CheckFileInvalid:
        raise
    except (OSError, KeyError, ValueError) as error:
        raise CheckFileInvalid(f"unreadable second-stage check: {error}") from error
    a, b = (float(v) for v in header["calibration"])
    thresholds = {k: float(v) for k, v in header["thresholds"].items()}
    meta = dict(header.get("meta") or {})
    return CheckModel(idf, coef, float(header["intercept"]), (a, b), thresholds, meta, gate)


def _gate(header: dict[str, Any] | None, arrays: Any) -> PassageGate | None:
    if header is None:
        return None
    idf, coef = _unpacked(arrays, "gate_")
    thresholds = {k: float(v) for k, v in header["thresholds"].items()}
    return PassageGate(idf, coef, float(header["intercept"]), float(header["blend"]), thresholds)


def _column(value: int) -> int:
    """The column ``hasher()`` gives a token of signed MurmurHash3 ``value`` (scikit-learn's
    ``abs`` of the hash, where the lowest int32 wraps)."""
    if value == -(2**31):
        return (2**31 - 1 - (N_FEATURES - 1)) % N_FEATURES
    return abs(value) % N_FEATURES


def _shown(token: str) -> str:
    """A feature without its category prefix ("Audit Rights|w:audit" reads "w:audit")."""
    return token.partition("|")[2] or token


def logit(probability: float) -> float:
    probability = min(max(probability, 1e-6), 1 - 1e-6)
    return math.log(probability / (1 - probability))
