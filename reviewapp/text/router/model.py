"""A trained router: per-category linear scores over hashed passage features, and why they fired.

The artefact is a compressed ``.npz`` of plain arrays plus a JSON header, read with
``allow_pickle=False``: loading a model file never runs code, so an organisation's retrained
model can be stored and loaded like any other data. Scoring needs numpy, scipy and
scikit-learn's ``HashingVectorizer`` (no vocabulary to ship: features are hashed).
"""

from __future__ import annotations

import io
import json
import math
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np
from scipy import sparse

from .features import PassageView, readable, tokens

FORMAT = "clausewise.router/1"
N_FEATURES = 2**20
EXPLAIN_WORDS = 5


def _analyse(item: PassageView | list[str]) -> list[str]:
    return item if isinstance(item, list) else tokens(item)


@lru_cache(maxsize=1)
def hasher() -> Any:
    """The one feature hasher (stateless: built once per process)."""
    from sklearn.feature_extraction.text import HashingVectorizer  # ~1 s: only where scored

    return HashingVectorizer(
        analyzer=_analyse, n_features=N_FEATURES, alternate_sign=False, norm=None
    )


@lru_cache(maxsize=1 << 18)
def feature_index(token: str) -> int:
    """The column ``hasher()`` gives a token (scikit-learn's signed MurmurHash3, seed 0)."""
    # scikit-learn on first use: importing it costs a web process about half a second
    from sklearn.utils import murmurhash3_32

    value = murmurhash3_32(token, seed=0)
    if value == -(2**31):
        return (2**31 - 1 - (N_FEATURES - 1)) % N_FEATURES
    return abs(value) % N_FEATURES


def weigh(counts: sparse.csr_matrix, idf: np.ndarray) -> sparse.csr_matrix:
    """Sublinear term frequency times idf, each row scaled to unit length."""
    weighted = counts.astype(np.float32, copy=True)
    weighted.data = (1.0 + np.log(weighted.data)) * idf[weighted.indices]
    weighted.eliminate_zeros()
    lengths = np.diff(weighted.indptr)
    rows = np.repeat(np.arange(weighted.shape[0]), lengths)
    norms = np.sqrt(np.bincount(rows, weights=weighted.data**2, minlength=weighted.shape[0]))
    norms[norms == 0] = 1.0
    weighted.data /= norms[rows].astype(np.float32)
    return weighted


@dataclass(frozen=True)
class RouterFlag:
    """The router's flag on one passage: a category, its score (0..1) and the words that weighed
    most for it."""

    passage: int
    category: str
    score: float
    words: tuple[str, ...]


@dataclass
class RouterModel:
    categories: list[str]
    idf: np.ndarray  # (N_FEATURES,) float32
    coef: sparse.csc_matrix  # (N_FEATURES, len(categories))
    intercept: np.ndarray  # (len(categories),)
    thresholds: dict[str, float]  # probability at or above which a category routes a passage
    meta: dict[str, Any] = field(default_factory=dict)
    _weights: dict[int, dict[int, float]] = field(default_factory=dict, repr=False)

    def probabilities(self, passages: list[PassageView] | list[list[str]]) -> np.ndarray:
        """(passages, categories) probabilities; a passage may come as its ``tokens``."""
        if not passages:
            return np.zeros((0, len(self.categories)), dtype=np.float32)
        matrix = weigh(hasher().transform(passages), self.idf)
        logits = np.asarray((matrix @ self.coef).todense()) + self.intercept
        return 1.0 / (1.0 + np.exp(-logits))

    def flags(
        self, passages: list[PassageView], thresholds: dict[str, float] | None = None
    ) -> list[RouterFlag]:
        """A flag per passage and category whose probability reaches its threshold."""
        limits = np.array(
            [(thresholds or {}).get(c, self.thresholds.get(c, 1.01)) for c in self.categories]
        )
        probabilities = self.probabilities(passages)
        flags = []
        for row, column in zip(*np.nonzero(probabilities >= limits), strict=True):
            flags.append(
                RouterFlag(
                    passage=int(row),
                    category=self.categories[column],
                    score=round(float(probabilities[row, column]), 3),
                    words=self.explain(passages[row], int(column)),
                )
            )
        return flags

    def explain(self, passage: PassageView | list[str], column: int) -> tuple[str, ...]:
        """The features of ``passage`` (or its tokens) that pushed category ``column`` up most."""
        weights = self._column_weights(column)
        scored = []
        for token in set(_analyse(passage)):
            index = feature_index(token)
            weight = weights.get(index, 0.0) * float(self.idf[index])
            if weight > 0:
                scored.append((-weight, token))
        return tuple(readable(token) for _, token in sorted(scored)[:EXPLAIN_WORDS])

    def _column_weights(self, column: int) -> dict[int, float]:
        cached = self._weights.get(column)
        if cached is None:
            start, end = self.coef.indptr[column], self.coef.indptr[column + 1]
            indices, values = self.coef.indices[start:end], self.coef.data[start:end]
            cached = dict(zip(indices.tolist(), values.tolist(), strict=True))
            self._weights[column] = cached
        return cached

    @property
    def label(self) -> str:
        return str(self.meta.get("name", "router"))

    def save(self, path: str | Path) -> None:
        Path(path).write_bytes(self.to_bytes())

    def to_bytes(self) -> bytes:
        seen = np.flatnonzero(self.idf != self.idf_default)
        header = {
            "format": FORMAT,
            "categories": self.categories,
            "thresholds": self.thresholds,
            "idf_default": self.idf_default,
            "meta": self.meta,
        }
        buffer = io.BytesIO()
        coef = self.coef.tocsc()
        np.savez_compressed(
            buffer,
            header=np.frombuffer(json.dumps(header).encode("utf-8"), dtype=np.uint8),
            idf_index=seen.astype(np.int32),
            idf_value=self.idf[seen].astype(np.float16),
            coef_data=coef.data.astype(np.float16),
            coef_indices=coef.indices.astype(np.int32),
            coef_indptr=coef.indptr.astype(np.int64),
            intercept=self.intercept.astype(np.float32),
        )
        return buffer.getvalue()

    @property
    def idf_default(self) -> float:
        return float(self.meta.get("idf_default", 0.0))


class RouterFileInvalid(ValueError):
    pass


def load_router(source: str | Path | bytes) -> RouterModel:
    """A model from a file path or the bytes of one."""
    data = Path(source).read_bytes() if isinstance(source, (str, Path)) else source
    try:
        with np.load(io.BytesIO(data), allow_pickle=False) as arrays:
            header = json.loads(arrays["header"].tobytes().decode("utf-8"))
            if header.get("format") != FORMAT:
                raise RouterFileInvalid(f"not a router model ({header.get('format')!r})")
            categories = list(header["categories"])
            idf = np.full(N_FEATURES, header["idf_default"], dtype=np.float32)
            idf[arrays["idf_index"]] = arrays["idf_value"].astype(np.float32)
            coef = sparse.csc_matrix(
                (
                    arrays["coef_data"].astype(np.float32),
                    arrays["coef_indices"],
                    arrays["coef_indptr"],
                ),
                shape=(N_FEATURES, len(categories)),
            )
            intercept = arrays["intercept"].astype(np.float32)
    except (OSError, KeyError, ValueError) as error:
        if isinstance(error, RouterFileInvalid):
            raise
        raise RouterFileInvalid(f"unreadable router model: {error}") from error
    meta = dict(header.get("meta") or {})
    meta["idf_default"] = header["idf_default"]
    thresholds = {k: float(v) for k, v in header["thresholds"].items()}
    return RouterModel(categories, idf, coef, intercept, thresholds, meta)


def logit(probability: float) -> float:
    probability = min(max(probability, 1e-6), 1 - 1e-6)
    return math.log(probability / (1 - probability))


def attach_limits(limits: np.ndarray, margin: float) -> np.ndarray:
    """Probabilities ``margin`` logits below each threshold (above 1: the category is off)."""
    lowered = [1 / (1 + math.exp(-(logit(v) - margin))) if v <= 1 else 1.01 for v in limits]
    return np.array(lowered)
