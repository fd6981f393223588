"""Import time of the client, two source trees compared: ``import mcp_sidecar`` and then
``from mcp_sidecar import AsyncSidecar`` in fresh interpreters, the trees alternated, medians.
Shows that something added to the package (the framework adapters) costs a program that does not
import it nothing::

    git archive OLD clients/python/src | tar -x -C /tmp/old
    python3 clients/python/bench/import_time.py /tmp/old/clients/python/src clients/python/src
"""

from __future__ import annotations

import statistics
import subprocess
import sys

CODE = (
    "import time; t = time.perf_counter(); import mcp_sidecar; a = time.perf_counter(); "
    "from mcp_sidecar import AsyncSidecar; b = time.perf_counter(); "
    "import sys; print((a - t) * 1e3, (b - t) * 1e3, len(sys.modules))"
)


def main() -> None:
    trees = sys.argv[1:3]
    runs = int(sys.argv[3]) if len(sys.argv) > 3 else 40
    if len(trees) != 2:
        raise SystemExit("usage: import_time.py OLD_SRC NEW_SRC [RUNS]")
    samples = {tree: [] for tree in trees}
    for i in range(runs):
        for tree in trees if i % 2 == 0 else trees[::-1]:
            out = subprocess.run(
                [sys.executable, "-c", CODE], env={"PYTHONPATH": tree},
                capture_output=True, text=True, check=True,
            ).stdout.split()
            samples[tree].append([float(x) for x in out])
    for tree in trees:
        xs = samples[tree]
        print(
            f"{tree}: import mcp_sidecar {statistics.median(x[0] for x in xs):.2f} ms, "
            f"then AsyncSidecar {statistics.median(x[1] for x in xs):.2f} ms, "
            f"{statistics.median(x[2] for x in xs):.0f} modules (median of {runs})"
        )


if __name__ == "__main__":
    main()
