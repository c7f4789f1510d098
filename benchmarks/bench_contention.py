"""Slowdown of a fine-tuning step loop and of an extraction when a CPU-bound process runs beside them.

Each workload runs in a fresh child process, first alone, then beside a competitor process that keeps one
core busy with its own torch work. Three thread policies are compared in the same run:

- ``lib, 1 job``: what ``import lib`` sets when nothing tells it about the competitor (a notebook in
  JupyterLab beside another kernel or batch): passive OpenMP wait, one thread per core;
- ``lib, 2 jobs``: the same policy when the runner knows two jobs share the cores (``--jobs 2``):
  threads = cores / 2;
- ``spinning``: torch's defaults before the fix (one thread per core, OpenMP busy-waiting).

Target: slowdown ≤ 2.5× under the ``lib`` policy on 2 cores (the issue measured ≈ 14× before).
Run it on an otherwise quiet machine: another heavy process makes every number meaningless.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import time

CORES = len(os.sched_getaffinity(0))

STEP_LOOP = """
import time, torch
torch.manual_seed(0)
x = torch.randn(8, 64, 576)
layer = torch.nn.Linear(576, 1536)
optimiser = torch.optim.SGD(layer.parameters(), lr=1e-3)
start = time.perf_counter()
for _ in range(150):
    optimiser.zero_grad()
    layer(x).square().mean().backward()
    optimiser.step()
print(time.perf_counter() - start)
"""

EXTRACTION = """
import time, torch
from transformers import BertConfig, BertModel
torch.manual_seed(0)
config = BertConfig(hidden_size=384, num_hidden_layers=6, num_attention_heads=12, intermediate_size=1536)
model = BertModel(config).eval()
ids = torch.randint(1000, (32, 48))
start = time.perf_counter()
with torch.no_grad():
    for _ in range(12):
        model(input_ids=ids, output_hidden_states=True)
print(time.perf_counter() - start)
"""

COMPETITOR = """
import time, torch
a = torch.randn(512, 512)
while True:
    a = torch.tanh(a @ a.T / 512)
"""


POLICIES = ("lib, 1 job", "lib, 2 jobs", "spinning")


def environment(policy: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OMP_", "OPENBLAS_", "MKL_", "PROBE_"))}
    if policy == "spinning":
        env.update(OMP_WAIT_POLICY="ACTIVE", OMP_NUM_THREADS=str(CORES))
    else:
        env["PROBE_COMPANION_JOBS"] = "2" if policy == "lib, 2 jobs" else "1"
    return env


def timed(code: str, policy: str) -> float:
    prelude = "import lib\n" if policy.startswith("lib") else ""
    out = subprocess.run([sys.executable, "-c", prelude + textwrap.dedent(code)], env=environment(policy),
                         capture_output=True, text=True, check=True)
    return float(out.stdout.split()[-1])


def beside_competitor(code: str, policy: str) -> float:
    competitor = subprocess.Popen([sys.executable, "-c", "import lib\n" + COMPETITOR], env=environment("lib, 2 jobs"))
    try:
        time.sleep(2.0)  # let it start spinning
        return timed(code, policy)
    finally:
        competitor.kill()
        competitor.wait()


def main() -> None:
    print(f"{CORES} cores")
    for name, code in (("fine-tuning step loop", STEP_LOOP), ("extraction", EXTRACTION)):
        for policy in POLICIES:
            alone = timed(code, policy)
            shared = beside_competitor(code, policy)
            print(f"{name:>22} · {policy:>11}: alone {alone:6.2f} s, beside a competitor {shared:6.2f} s, "
                  f"slowdown {shared / alone:5.2f}x" + (" (target <= 2.5x)" if policy.startswith("lib") else ""))


if __name__ == "__main__":
    main()
