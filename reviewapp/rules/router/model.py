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


def hasher() -> Any:
    from sklearn.feature_extraction.text import HashingVectorizer  # ~1 s: only where scored

    return HashingVectorizer(
        analyzer=_analyse, n_features=N_FEATURES, alternate_sign=False, norm=None
    )


def weigh(counts: sparse.csr_matrix, idf: np.ndarray) -> sparse.csr_matrix:
    """Sublinear term frequency times idf, each row scaled to unit length."""
    weighted = counts.astype(np.float32, copy=True)
    weighted.data = (1.0 + np.log(weighted.data)) * idf[weighted.indices]
    weighted.eliminate_zeros()
    norms = np.sqrt(np.asarray(weighted.multiply(weighted).sum(axis=1)).ravel())
    norms[norms == 0] = 1.0
    return sparse.csr_matrix(sparse.diags(1.0 / norms) @ weighted)


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

    def probabilities(self, passages: list[PassageView]) -> np.ndarray:
        """(passages, categories) probabilities."""
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

    def explain(self, passage: PassageView, column: int) -> tuple[str, ...]:
        """The features of ``passage`` that pushed category ``column`` up the most."""
        unique = sorted(set(tokens(passage)))
        if not unique:
            return ()
        columns = hasher().transform([[token] for token in unique]).indices
        weights = np.asarray(self.coef[:, column].todense()).ravel()[columns]
        weights = weights * self.idf[columns]
        order = np.argsort(-weights)[:EXPLAIN_WORDS]
        return tuple(readable(unique[i]) for i in order if weights[i] > 0)

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
