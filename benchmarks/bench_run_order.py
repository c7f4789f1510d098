"""Wall time of the default batch on two lanes under ``lib run``'s order against longest-first (target: ratio < 1).

A two-lane list schedule, simulated: every notebook of ``published/`` takes the wall time its manifest records and
starts once the notebooks it reads have ended. The runner's rule (:func:`lib.runner.next_ready`: the longest
expected chain of a notebook and its readers first) against the baseline it replaced, Graham's longest-first
(LPT), which left a lane idle for the last 16 minutes of the one-piece run at ``dbef79b`` (docs/TIMINGS.md). The
lower bound is half the lane-minutes. Times are what the published run measured; a notebook whose time depends on
which ran before it (``K01`` reads searches that ``K02`` or ``K06`` may have cached) keeps its published time.
"""

from __future__ import annotations

from collections.abc import Callable

from lib import config, published, runner


def longest_first(pending, batch, ended, expected):
    """The baseline: of the ready notebooks, the longest expected first."""
    ready = [p for p in pending if all(r not in batch or r in ended for r in p.reads)]
    return max(ready, key=lambda p: expected[p.notebook]) if ready else None


def simulate(rule: Callable, resolved: list, seconds: dict[str, float], lanes: int = 2) -> float:
    """Seconds until the last notebook ends when ``lanes`` lanes start notebooks in ``rule``'s order."""
    pending, batch, ended, clock, running = list(resolved), {p.notebook for p in resolved}, set(), 0.0, []
    while pending or running:
        while len(running) < lanes and (ready := rule(pending, batch, ended, seconds)) is not None:
            pending.remove(ready)
            running.append((clock + seconds[ready.notebook], ready.notebook))
        running.sort()
        clock, name = running.pop(0)
        ended.add(name)
    return clock


def main() -> None:
    folder = published.default_folder()
    profile = published.record(folder)["profile"]
    names = sorted(p.name.removesuffix(".manifest.json") for p in (folder / "notebooks").glob("*.manifest.json"))
    seconds = {name: float(published.manifest(folder, name)["wall_time_s"]) for name in names}
    resolved = runner.run_order([config.resolve(name, profile, {}) for name in names])
    baseline, chained = simulate(longest_first, resolved, seconds), simulate(runner.next_ready, resolved, seconds)
    print(f"{len(names)} notebooks of published/ ({profile}), {sum(seconds.values()) / 60:.1f} lane-minutes")
    print(f"longest first:         {baseline / 60:6.1f} min")
    print(f"longest chain first:   {chained / 60:6.1f} min")
    print(f"bound (half the work): {sum(seconds.values()) / 120:6.1f} min")
    print(f"run order: ratio {chained / baseline:.3f}")


if __name__ == "__main__":
    main()
