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
        table = np.array(pieces, dtype=np.int64).reshape(-1, 3)
        return cls.from_piece_arrays(table[:, 0], table[:, 1], table[:, 2])

    @classmethod
    def from_piece_arrays(
        cls, out_lengths: IntArray, src_starts: IntArray, src_ends: IntArray
    ) -> OffsetMap:
        """:meth:`from_pieces` with the pieces given as three arrays (built in one kernel call)."""
        from neardup._kernels.text import pieces_offsets

        starts, ends = pieces_offsets(
            np.ascontiguousarray(out_lengths, dtype=np.int64),
            np.ascontiguousarray(src_starts, dtype=np.int64),
            np.ascontiguousarray(src_ends, dtype=np.int64),
        )
        return cls(starts, ends)

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
