"""CPU seconds a fresh process spends importing what ``python -m lib run`` and papermill import, with and without
the package's import policy (``lib/__init__.py`` leaves jsonschema's optional IRI checker unloaded).

Each variant runs in five fresh interpreters, alternating; the CPU time (user + system) of each child is read from
``resource.getrusage(RUSAGE_CHILDREN)``, so another process on the machine changes wall time more than it changes
these. Prints the median per variant and their ratio; the last line ``imports: lib policy / plain X.XX``.
"""

from __future__ import annotations

import resource
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
#: What the runner process imports before it starts a kernel: nbformat (through papermill) and pandas.
PLAIN = "import nbformat, papermill, pandas"
WITH_POLICY = "import lib, nbformat, papermill, pandas"
BASELINE = "import sys"  # the interpreter's own start, subtracted from both


def cpu_seconds(code: str) -> float:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run([sys.executable, "-c", code], cwd=ROOT, check=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main() -> None:
    times: dict[str, list[float]] = {"baseline": [], "plain": [], "policy": []}
    for _ in range(5):
        for name, code in (("baseline", BASELINE), ("plain", PLAIN), ("policy", WITH_POLICY)):
            times[name].append(cpu_seconds(code))
    start = statistics.median(times["baseline"])
    plain, policy = (statistics.median(times[k]) - start for k in ("plain", "policy"))
    print(f"interpreter start {start:.2f} CPU s (subtracted)")
    print(f"nbformat + papermill + pandas: {plain:.2f} CPU s plain, {policy:.2f} with lib imported first "
          "(lib's own imports included)")
    print(f"imports: lib policy / plain {policy / plain:.2f}")


if __name__ == "__main__":
    main()
