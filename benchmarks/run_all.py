"""Run every benchmark (``make bench``); each prints its measurement as a ratio."""

import runpy
from pathlib import Path

for script in sorted(Path(__file__).parent.glob("bench_*.py")):
    print(f"== {script.stem}")
    runpy.run_path(str(script), run_name="__main__")
