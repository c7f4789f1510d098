"""Per-notebook overhead of ``python -m lib run`` over papermill alone (target: ≤ 2 s).

Both run the same tiny notebook in the same repository copy, one after the other, three times
each; the overhead is the difference of the medians and the ratio their quotient.
"""

from __future__ import annotations

import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from conftest import tiny_repository  # noqa: E402

PAPERMILL_ONLY = """
import jupytext, papermill
nb = jupytext.read("notebooks/ZZ_tiny.py")
nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
papermill.execute_notebook(nb, "build/direct.ipynb", parameters={"profile": "smoke"}, kernel_name="python3",
                           progress_bar=False)
"""


def timed(command: list[str], cwd: Path) -> float:
    start = time.perf_counter()
    subprocess.run(command, cwd=cwd, check=True, capture_output=True)
    return time.perf_counter() - start


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = tiny_repository(Path(tmp))
        (root / "build").mkdir()
        direct, runner = [], []
        for _ in range(3):
            direct.append(timed([sys.executable, "-c", PAPERMILL_ONLY], root))
            runner.append(timed([sys.executable, "-m", "lib", "run", "ZZ_tiny", "--profile", "smoke",
                                 "--force", "--quiet"], root))
    base, ours = statistics.median(direct), statistics.median(runner)
    print(f"papermill alone: {base:.2f} s   python -m lib run: {ours:.2f} s")
    print(f"runner overhead: {ours - base:+.2f} s per notebook (target <= 2 s); ratio {ours / base:.2f}")


if __name__ == "__main__":
    main()
