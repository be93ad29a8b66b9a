"""The small process that starts and times every run of ``benchmarks/dedup_peers.py``.

A child's peak RSS (``ru_maxrss``) starts from the memory of the process it was forked from:
Linux keeps the larger of the two across ``exec``. The benchmark's own process holds the
truth arrays (a gigabyte at 100,000 documents), so its children would all report at least
that; this launcher is started before any of it is loaded and holds almost nothing, so its
children's peaks are their own.

Reads one JSON request a line on stdin (``command``, ``env``, ``stdout``, ``stderr``: paths),
runs it to its end and writes one JSON line: wall seconds, and the ``wait4`` usage of the
child and the descendants it waited for (user, system, peak RSS in KiB), and its exit status.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time


def main() -> None:
    for line in sys.stdin:
        request = json.loads(line)
        with open(request["stdout"], "wb") as out, open(request["stderr"], "wb") as err:
            t0 = time.perf_counter()
            proc = subprocess.Popen(request["command"], env=request["env"], stdout=out, stderr=err)
            _, status, usage = os.wait4(proc.pid, 0)
            wall = time.perf_counter() - t0
        reply = {
            "wall": wall,
            "user": usage.ru_utime,
            "system": usage.ru_stime,
            "maxrss_kib": usage.ru_maxrss,
            "exit": os.waitstatus_to_exitcode(status),
        }
        print(json.dumps(reply), flush=True)


if __name__ == "__main__":
    main()
