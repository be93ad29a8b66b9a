"""The combined score's model: one fitted, calibrated artefact, read from ``_model.json``.

A pair falls in one **regime** by the canonical tokens of its texts (the rule is in the
artefact): ``part`` when the shorter text has less than ``part_ratio`` of the longer's tokens
(a paragraph or a note against a whole document), else by the shorter text's tokens against
``token_bounds`` — ``sentence`` (two sentences, headlines, short answers), ``paragraph`` (two
news items or paragraphs), ``document`` (two whole documents); a fourth bound would add
``book``.

Each regime weighs two kinds of evidence, each by a logistic model of its own over the named
features (:data:`neardup.score.combined.FEATURE_FUNCTIONS`): **verbatim** (word 5-shingles: a
passage copied whole) and **vocabulary** (the same words, the same written characters). Their
probabilities ``a`` and ``b`` are joined as a noisy OR, ``p = 1 − (1 − a)(1 − b)``: either kind
alone can make a pair a duplicate — a paragraph copied into another long text, or a rewrite
that keeps the words but no 5-word run — and neither lowers the other (every evidence weight is
at least 0; only the lengths, the pair's context, may weigh either way).

The score is ``p`` **calibrated** per regime by a monotone (Platt) map of its logit,
``1 / (1 + exp(−(slope · logit(p) + offset)))``, fitted on out-of-fold logits (pairs the model
was not fitted on), with its 0.5 put where the F1 of the labelled sets is closest to each
set's best (judged by the worst set): so the one threshold 0.5 means "call it a duplicate" on
a sentence, a paragraph against a document and two documents alike.

The artefact is written by ``benchmarks/fit_combined.py`` (one command refits everything and
bumps ``version``); nothing here is chosen by hand. :meth:`CombinedModel.explain` says what
drove a pair's score: each channel's probability and the terms ``weight · value`` of its
features in the channel's logit (a feature at 0 — no evidence of that kind — adds nothing).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

F64 = npt.NDArray[np.float64]
I64 = npt.NDArray[np.int64]

#: The artefact the package ships.
MODEL_PATH = Path(__file__).with_name("_model.json")
#: The regimes' names: ``part`` first, then one a token bin, shortest first.
PART = "part"
BIN_NAMES = ("sentence", "paragraph", "document", "book")


#: The two kinds of evidence a regime's model weighs, each by a logistic model of its own.
CHANNELS = ("verbatim", "vocabulary")


def _softplus(z: F64) -> F64:
    return np.asarray(np.logaddexp(0.0, z), dtype=np.float64)


@dataclass(frozen=True)
class Regime:
    """One regime's model and its calibration map.

    Two logistic models read the features: ``verbatim`` (copied word runs) and ``vocabulary``
    (the same words, letters, terms). Their probabilities ``a`` and ``b`` are combined as a
    noisy OR, ``p = 1 − (1 − a)(1 − b)`` — either kind of evidence alone can make a pair a
    duplicate, and neither lowers the other — and the score is the calibrated logit of ``p``:
    ``slope · logit(p) + offset``."""

    name: str
    weights: tuple[tuple[float, ...], tuple[float, ...]]  # one weight a feature, a channel
    intercepts: tuple[float, float]
    slope: float = 1.0
    offset: float = 0.0

    def channel_logits(self, features: F64) -> F64:
        """The ``(pairs, 2)`` logits of the two channels."""
        x = np.asarray(features, dtype=np.float64)
        return np.stack(
            [self.intercepts[c] + x @ np.asarray(self.weights[c]) for c in range(2)], axis=1
        )

    def logit(self, features: F64) -> F64:
        """The calibrated logit of each row (the score is its logistic)."""
        return self.calibrated(self.channel_logits(features))

    def calibrated(self, channel_logits: F64) -> F64:
        u = _softplus(channel_logits[:, 0]) + _softplus(channel_logits[:, 1])  # −log(1 − p)
        raw = np.log(-np.expm1(-np.maximum(u, 1e-300))) + u  # logit(p) = log p − log(1 − p)
        return np.asarray(self.slope * raw + self.offset, dtype=np.float64)

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "channels": {
                name: {"weights": list(self.weights[c]), "intercept": self.intercepts[c]}
                for c, name in enumerate(CHANNELS)
            },
            "calibration": {"kind": "platt", "slope": self.slope, "offset": self.offset},
        }

    @classmethod
    def from_dict(cls, raw: dict[str, Any]) -> Regime:
        calibration = raw.get("calibration") or {}
        channels = [raw["channels"][name] for name in CHANNELS]
        weights = tuple(tuple(float(w) for w in c["weights"]) for c in channels)
        return cls(
            str(raw["name"]),
            (weights[0], weights[1]),
            (float(channels[0]["intercept"]), float(channels[1]["intercept"])),
            float(calibration.get("slope", 1.0)),
            float(calibration.get("offset", 0.0)),
        )


@dataclass(frozen=True)
class Contribution:
    """One feature's part in one channel: its value and its term ``weight · value`` of the
    channel's logit."""

    feature: str
    value: float
    term: float

    def to_dict(self) -> dict[str, Any]:
        return {"feature": self.feature, "value": round(self.value, 6), "term": round(self.term, 4)}


@dataclass(frozen=True)
class ChannelPart:
    """What one channel made of a pair: its probability and its features' terms."""

    name: str
    probability: float
    contributions: tuple[Contribution, ...]

    def top(self, n: int = 3) -> tuple[Contribution, ...]:
        """The ``n`` largest positive terms (the evidence the channel saw), largest first."""
        shown = [c for c in self.contributions if c.term > 0]
        return tuple(sorted(shown, key=lambda c: -c.term)[:n])

    def to_dict(self, n: int = 3) -> dict[str, Any]:
        return {
            "probability": round(self.probability, 6),
            "top": [c.to_dict() for c in self.top(n)],
        }


@dataclass(frozen=True)
class Explanation:
    """Why a pair scored what it did: its regime and what each channel saw."""

    regime: str
    score: float
    channels: tuple[ChannelPart, ChannelPart]

    @property
    def drove(self) -> ChannelPart:
        """The channel of the larger probability: the evidence the score rests on."""
        return max(self.channels, key=lambda c: c.probability)

    def to_dict(self, n: int = 3) -> dict[str, Any]:
        return {
            "regime": self.regime,
            "drove": self.drove.name,
            "channels": {c.name: c.to_dict(n) for c in self.channels},
        }


@dataclass(frozen=True)
class CombinedModel:
    """The regimes' models over ``features`` and the rule that routes a pair to one."""

    features: tuple[str, ...]
    regimes: tuple[Regime, ...]
    #: The shorter text's canonical tokens at which each bin after the first begins.
    token_bounds: tuple[int, ...]
    part_ratio: float
    trained_on: str
    #: Bumped by every refit: a score is reproducible with the same model version.
    version: int
    #: The features that are the pair's context, not evidence (the lengths): an explanation
    #: leaves them out of what drove a score.
    context: tuple[str, ...] = ("length_ratio", "shortness")
    #: What the fit measured and how it was run (the artefact's record; not read to score).
    fit: dict[str, Any] | None = None

    def __post_init__(self) -> None:
        names = regime_names(len(self.token_bounds))
        if tuple(r.name for r in self.regimes) != names:
            raise ValueError(f"the combined model's regimes must be {names}")
        if any(len(w) != len(self.features) for r in self.regimes for w in r.weights):
            raise ValueError("the combined model's weights do not match its features")

    def regime_of(self, shorter: npt.ArrayLike, length_ratio: npt.ArrayLike) -> I64:
        """Each pair's regime (an index into :attr:`regimes`) from its shorter text's tokens
        and its length ratio."""
        shorter = np.asarray(shorter)
        bins = 1 + np.searchsorted(np.asarray(self.token_bounds), shorter, side="right")
        return np.where(np.asarray(length_ratio) < self.part_ratio, 0, bins).astype(np.int64)

    def logits(self, features: F64, regime: I64) -> F64:
        """The calibrated logit of each row of a ``(pairs, len(self.features))`` matrix."""
        features = np.asarray(features, dtype=np.float64)
        out = np.zeros(features.shape[0], dtype=np.float64)
        for r, model in enumerate(self.regimes):
            rows = regime == r
            if rows.any():
                out[rows] = model.logit(features[rows])
        return out

    def apply(self, features: F64, regime: I64) -> F64:
        """The score of each row: the logistic of its regime's calibrated logit."""
        return np.asarray(1.0 / (1.0 + np.exp(-self.logits(features, regime))), np.float64)

    def explain(self, features: Sequence[float], regime: int) -> Explanation:
        """What each channel of ``regime`` made of one pair (see the module docstring)."""
        model = self.regimes[regime]
        x = np.asarray(features, dtype=np.float64)
        logits = model.channel_logits(x[None, :])[0]
        parts = []
        for c, name in enumerate(CHANNELS):
            terms = np.asarray(model.weights[c]) * x
            parts.append(
                ChannelPart(
                    name,
                    float(1.0 / (1.0 + np.exp(-logits[c]))),
                    tuple(
                        Contribution(f, float(v), float(t))
                        for f, v, t in zip(self.features, x.tolist(), terms.tolist(), strict=True)
                        if t != 0.0 and f not in self.context
                    ),
                )
            )
        score = float(1.0 / (1.0 + np.exp(-model.calibrated(logits[None, :])[0])))
        return Explanation(model.name, score, (parts[0], parts[1]))

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "version": self.version,
            "features": list(self.features),
            "rule": {"token_bounds": list(self.token_bounds), "part_ratio": self.part_ratio},
            "context": list(self.context),
            "regimes": [r.to_dict() for r in self.regimes],
            "trained_on": self.trained_on,
        }
        if self.fit is not None:
            out["fit"] = self.fit
        return out

    @classmethod
    def from_dict(cls, raw: dict[str, Any]) -> CombinedModel:
        return cls(
            features=tuple(str(f) for f in raw["features"]),
            regimes=tuple(Regime.from_dict(r) for r in raw["regimes"]),
            token_bounds=tuple(int(b) for b in raw["rule"]["token_bounds"]),
            part_ratio=float(raw["rule"]["part_ratio"]),
            context=tuple(str(f) for f in raw.get("context", ())),
            trained_on=str(raw["trained_on"]),
            version=int(raw["version"]),
            fit=raw.get("fit"),
        )

    @classmethod
    def load(cls, path: str | Path = MODEL_PATH) -> CombinedModel:
        return cls.from_dict(json.loads(Path(path).read_text(encoding="utf-8")))


def regime_names(bounds: int) -> tuple[str, ...]:
    """The regimes of a rule with ``bounds`` token bounds: ``part``, then the bins."""
    if bounds >= len(BIN_NAMES):
        raise ValueError(f"at most {len(BIN_NAMES) - 1} token bounds")
    return (PART, *BIN_NAMES[: bounds + 1])
