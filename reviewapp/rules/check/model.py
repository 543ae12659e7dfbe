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

from reviewapp.rules.router.model import weigh

FORMAT = "clausewise.check/1"
N_FEATURES = 2**21
EXPLAIN_FEATURES = 4


def _identity(tokens: list[str]) -> list[str]:
    return tokens


@lru_cache(maxsize=1)
def hasher() -> Any:
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

    def margins(self, matrix: sparse.csr_matrix) -> np.ndarray:
        return np.asarray(matrix @ self.coef).ravel() + self.intercept

    def probabilities(self, matrix: sparse.csr_matrix) -> np.ndarray:
        a, b = self.calibration
        return 1.0 / (1.0 + np.exp(-(a * self.margins(matrix) + b)))

    def threshold(self, category: str) -> float:
        """A category the check was not tuned for always stands (0.0)."""
        return float(self.thresholds.get(category, 0.0))

    def explain(self, text: list[str], shape: list[str], top: int = EXPLAIN_FEATURES) -> tuple:
        """The features that weighed most, either way: (feature, weight) pairs."""
        from sklearn.utils import murmurhash3_32

        weights = []
        for token in set(text) | set(shape):
            column = abs(murmurhash3_32(token, seed=0)) % N_FEATURES
            scale = float(self.idf[column]) if token in text else 1.0
            weight = float(self.coef[column]) * (scale or 1.0)
            if weight:
                weights.append((token.partition("|")[2] or token, round(weight, 2)))
        weights.sort(key=lambda pair: -abs(pair[1]))
        return tuple(weights[:top])

    @property
    def label(self) -> str:
        return str(self.meta.get("name", "check"))

    def save(self, path: str | Path) -> None:
        Path(path).write_bytes(self.to_bytes())

    def to_bytes(self) -> bytes:
        used = np.flatnonzero((self.coef != 0) | (self.idf != 0))
        header = {
            "format": FORMAT,
            "intercept": self.intercept,
            "calibration": list(self.calibration),
            "thresholds": self.thresholds,
            "meta": self.meta,
        }
        buffer = io.BytesIO()
        np.savez_compressed(
            buffer,
            header=np.frombuffer(json.dumps(header).encode("utf-8"), dtype=np.uint8),
            index=used.astype(np.int32),
            idf=self.idf[used].astype(np.float16),
            coef=self.coef[used].astype(np.float16),
        )
        return buffer.getvalue()


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
            idf = np.zeros(N_FEATURES, dtype=np.float32)
            coef = np.zeros(N_FEATURES, dtype=np.float32)
            idf[arrays["index"]] = arrays["idf"].astype(np.float32)
            coef[arrays["index"]] = arrays["coef"].astype(np.float32)
    except CheckFileInvalid:
        raise
    except (OSError, KeyError, ValueError) as error:
        raise CheckFileInvalid(f"unreadable second-stage check: {error}") from error
    a, b = (float(v) for v in header["calibration"])
    thresholds = {k: float(v) for k, v in header["thresholds"].items()}
    meta = dict(header.get("meta") or {})
    return CheckModel(idf, coef, float(header["intercept"]), (a, b), thresholds, meta)


def logit(probability: float) -> float:
    probability = min(max(probability, 1e-6), 1 - 1e-6)
    return math.log(probability / (1 - probability))
