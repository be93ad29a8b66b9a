"""Array types shared by the stages of dedup."""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

U64 = npt.NDArray[np.uint64]
I64 = npt.NDArray[np.int64]
F64 = npt.NDArray[np.float64]

#: ``(signatures, fingerprint values, set sizes, counts)`` of a chunk of texts.
SignedChunk = tuple[npt.NDArray[Any], U64, I64, I64 | None]
