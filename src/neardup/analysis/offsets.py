"""Offset maps: where each character of a filtered text came from in the original input.

A character filter turns a text into another text. To point at the user's own text later, it
also returns, for every output character ``i``, the half-open span ``[starts[i], ends[i])`` of
the input characters it came from. An identity filter returns ``None`` instead of a map, so the
common case (text that needs no change) costs nothing.

Maps compose: after filters f then g, output character ``i`` of g came from
``f.starts[g.starts[i]] .. f.ends[g.ends[i] - 1]``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

IntArray = npt.NDArray[np.int64]


@dataclass(frozen=True, slots=True)
class OffsetMap:
    """Per output character, the span of input characters it came from."""

    starts: IntArray
    ends: IntArray

    def __post_init__(self) -> None:
        if self.starts.shape != self.ends.shape or self.starts.ndim != 1:
            raise ValueError("starts and ends must be 1-d arrays of the same length")

    def __len__(self) -> int:
        return int(self.starts.shape[0])

    @classmethod
    def identity(cls, n: int) -> OffsetMap:
        idx = np.arange(n, dtype=np.int64)
        return cls(idx, idx + 1)

    @classmethod
    def from_pieces(cls, pieces: list[tuple[int, int, int]]) -> OffsetMap:
        """Build from ``(output_length, src_start, src_end)`` pieces in output order.

        A piece whose output length equals its source length maps character by character;
        any other piece maps every output character to the whole source span.
        """
        starts_parts: list[IntArray] = []
        ends_parts: list[IntArray] = []
        for out_len, src_start, src_end in pieces:
            if out_len <= 0:
                continue
            if out_len == src_end - src_start:
                s = np.arange(src_start, src_end, dtype=np.int64)
                starts_parts.append(s)
                ends_parts.append(s + 1)
            else:
                starts_parts.append(np.full(out_len, src_start, dtype=np.int64))
                ends_parts.append(np.full(out_len, src_end, dtype=np.int64))
        if not starts_parts:
            empty = np.zeros(0, dtype=np.int64)
            return cls(empty, empty.copy())
        return cls(np.concatenate(starts_parts), np.concatenate(ends_parts))

    def then(self, later: OffsetMap | None) -> OffsetMap:
        """The map of applying this filter's output to ``later`` (a filter applied after)."""
        if later is None:
            return self
        if len(later) == 0:
            return later
        return OffsetMap(self.starts[later.starts], self.ends[later.ends - 1])

    def spans(self, first: IntArray, last_exclusive: IntArray) -> tuple[IntArray, IntArray]:
        """Map half-open output spans ``[first, last_exclusive)`` to input spans."""
        if first.shape[0] == 0:
            return first.astype(np.int64), last_exclusive.astype(np.int64)
        return self.starts[first], self.ends[last_exclusive - 1]


def compose(earlier: OffsetMap | None, later: OffsetMap | None) -> OffsetMap | None:
    """Compose two optional maps (``None`` is the identity)."""
    if earlier is None:
        return later
    return earlier.then(later)
