"""A new file written front to back past the page cache (``O_DIRECT``) where the file system
takes it.

Why: a buffered write of a new file makes the kernel find a fresh page of memory for every 4 KB
of it. On a virtual machine whose memory the host has not handed it yet, that is most of the
cost of writing: 5.3 GB written by ``dd`` took 13.4 s of system time the first time, 1.8 s
once the pages of a deleted file could be reused, and 0.4 s with ``O_DIRECT`` (the dedup's
output is as large as its input). A direct write must start and end on a block boundary from
a buffer aligned the same way, so the writer keeps the bytes past the last whole block and
writes them before the next ones; the last block is padded and the file cut back to its size.
Where ``O_DIRECT`` is refused (tmpfs, other systems) the same calls write through the page
cache."""

from __future__ import annotations

import errno
import os
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path

import numpy as np
import numpy.typing as npt

U8 = npt.NDArray[np.uint8]

#: The block a direct write starts and ends on (a multiple of any disk's logical block).
ALIGN = 4096


def _aligned(size: int) -> U8:
    raw = np.empty(size + ALIGN, dtype=np.uint8)
    skip = (-raw.ctypes.data) % ALIGN
    return raw[skip : skip + size]


class SequentialWriter:
    """Bytes appended to a new file (truncated if it exists): :meth:`reserve` a buffer of the
    next ``size`` bytes, fill it, :meth:`commit` it; :meth:`close` when done. One thread at
    a time. ``direct=False`` writes through the page cache. ``background``: a thread of its
    own writes each committed buffer while the caller fills the next (two buffers in turn),
    so the wait for the disk, most of a direct write's time, overlaps the filling."""

    def __init__(self, path: Path, *, direct: bool = True, background: bool = False) -> None:
        flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_BINARY", 0)
        o_direct = getattr(os, "O_DIRECT", 0) if direct else 0
        self.direct = bool(o_direct)
        try:
            self._fd = os.open(path, flags | o_direct, 0o666)
        except OSError as exc:
            if not o_direct or exc.errno != errno.EINVAL:
                raise
            self.direct = False
            self._fd = os.open(path, flags, 0o666)
        self._buffer = _aligned(0)
        self._spare = _aligned(0)  # the buffer being written in the background
        self._carry = 0  # bytes at the buffer's start not yet written (less than a block)
        self._written = 0
        self._pool = ThreadPoolExecutor(1) if background else None
        self._pending: Future[None] | None = None

    def reserve(self, size: int) -> U8:
        """The buffer for the next ``size`` bytes (valid until :meth:`commit`)."""
        need = self._carry + size + ALIGN
        if self._buffer.shape[0] < need:
            grown = _aligned(max(need, 2 * self._buffer.shape[0]))
            grown[: self._carry] = self._buffer[: self._carry]
            self._buffer = grown
        return self._buffer[self._carry : self._carry + size]

    def commit(self, size: int) -> None:
        """Write the ``size`` bytes filled into the reserved buffer (all but the last partial
        block when direct: it goes with the next ones)."""
        total = self._carry + size
        whole = total - total % ALIGN if self.direct else total
        tail = total - whole
        if self._pool is None:
            self._write(self._buffer[:whole])
            self._buffer[:tail] = self._buffer[whole:total]
            self._carry = tail
            return
        self._wait()  # the spare buffer's write is done: it takes the tail and the next bytes
        if self._spare.shape[0] < self._buffer.shape[0]:
            self._spare = _aligned(self._buffer.shape[0])
        self._spare[:tail] = self._buffer[whole:total]
        self._pending = self._pool.submit(self._write, self._buffer[:whole])
        self._buffer, self._spare = self._spare, self._buffer
        self._carry = tail

    def _wait(self) -> None:
        """Wait for the background write (its error, if any, is raised here)."""
        if self._pending is not None:
            pending, self._pending = self._pending, None
            pending.result()

    def close(self) -> None:
        """Write what is left (a direct write pads its last block; the file is cut back to the
        bytes committed) and close."""
        try:
            self._wait()
            if self._carry:
                size = self._written + self._carry
                if self.direct:
                    self._buffer[self._carry : ALIGN] = 0
                    self._write(self._buffer[:ALIGN])
                    os.ftruncate(self._fd, size)
                else:
                    self._write(self._buffer[: self._carry])
                self._carry = 0
        finally:
            if self._pool is not None:
                self._pool.shutdown(wait=True)
            os.close(self._fd)

    def _write(self, data: U8) -> None:
        view = memoryview(data)  # type: ignore[arg-type]
        done = 0
        while done < len(view):
            try:
                done += os.write(self._fd, view[done:])
            except OSError as exc:
                # a file system that opens with O_DIRECT but refuses the write itself
                if not (self.direct and exc.errno == errno.EINVAL and self._written == 0):
                    raise
                self._buffered()
        self._written += len(view)

    def _buffered(self) -> None:
        """Go on through the page cache (nothing was written yet)."""
        import fcntl

        flags = fcntl.fcntl(self._fd, fcntl.F_GETFL)
        fcntl.fcntl(self._fd, fcntl.F_SETFL, flags & ~os.O_DIRECT)
        self.direct = False
