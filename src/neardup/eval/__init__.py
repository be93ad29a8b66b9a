"""Measuring detection quality: labelled datasets, a generator of near-duplicates from real
text, the measures (ROC AUC, precision/recall/F1, ARI, PAN's plagdet) and a registry of the
methods they are measured on.

``formats``   readers and writers of pairs, clusters and fragment truth (docs/datasets.md)
``generate``  near-duplicates and partial copies with known edits, from real documents
``metrics``   the measures
``methods``   the registry of scoring methods and fragment detectors
``run``       a method over a dataset → a report (what ``neardup eval`` prints)
``plots``     ROC/PR curves and score distributions (matplotlib)
"""

from __future__ import annotations

from neardup.eval.formats import (
    ClusterDataset,
    Fragment,
    LabelledText,
    PairDataset,
    read_clusters,
    read_documents,
    read_fragments,
    read_pairs,
)
from neardup.eval.methods import METHODS, build, method_names, register, score_pairs

__all__ = [
    "METHODS",
    "ClusterDataset",
    "Fragment",
    "LabelledText",
    "PairDataset",
    "build",
    "method_names",
    "read_clusters",
    "read_documents",
    "read_fragments",
    "read_pairs",
    "register",
    "score_pairs",
]
