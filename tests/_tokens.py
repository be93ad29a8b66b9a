"""Token streams for kernel tests: words joined by single spaces, with their byte spans."""

from __future__ import annotations

import numpy as np


def word_spans(words: list[str]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The UTF-8 bytes of ``words`` joined by single spaces, and each word's byte span."""
    data = " ".join(words).encode("utf-8")
    starts, ends, pos = [], [], 0
    for w in words:
        starts.append(pos)
        pos += len(w.encode("utf-8"))
        ends.append(pos)
        pos += 1
    return (
        np.frombuffer(data, dtype=np.uint8),
        np.array(starts, dtype=np.int64),
        np.array(ends, dtype=np.int64),
    )
