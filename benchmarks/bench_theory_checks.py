"""Wall time of 00_theory_checks under smoke (target ≤ 15 s) and default (target ≤ 180 s).

Each is run through the runner with --force in a repository copy; the ratio is against the
tiny-notebook baseline (kernel start and runner) timed in the same process.
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from conftest import tiny_repository  # noqa: E402

TARGETS_S = {"smoke": 15.0, "default": 180.0}


def timed_run(root: Path, notebook: str, profile: str) -> float:
    start = time.perf_counter()
    subprocess.run([sys.executable, "-m", "lib", "run", notebook, "--profile", profile, "--force", "--quiet"],
                   cwd=root, check=True, capture_output=True)
    return time.perf_counter() - start


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = tiny_repository(Path(tmp))
        baseline = timed_run(root, "ZZ_tiny", "smoke")
        print(f"baseline (tiny notebook through the runner): {baseline:.1f} s")
        for profile, target in TARGETS_S.items():
            seconds = timed_run(root, "00_theory_checks", profile)
            print(f"00_theory_checks [{profile}]: {seconds:.1f} s = {seconds / baseline:.1f}x baseline; "
                  f"{seconds / target:.2f} of the {target:.0f} s target")


if __name__ == "__main__":
    main()
