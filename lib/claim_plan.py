"""The planner: at what scale each undecided claim would be decisive, and what that scale costs here.

A claim whose outcome is not decisive (:mod:`lib.verdict`) reads "not measured, no power at this scale". Its
logged power carries the mean and s.d. of its statistic's draws under the paper and under each null
(:attr:`lib.claim_power.Power.spread`); a run of ``m`` times the units its draws resample (seeds, replicates,
texts, tasks) shrinks each s.d., and a standard error its test is widened by, by ``√m`` (the statistic's
expectation under each hypothesis stays where it is). The planner redraws the statistic at ``m`` in
:data:`SCALES`, in the normal approximation, and keeps the smallest ``m`` at which the test is decisive both ways
(``p1 ≥ 0.8`` and every ``p0 ≤ 0.2`` with both likelihood ratios ≥ 4: whichever way it comes out, the outcome
counts). Runs logged before draws' spreads were logged give the spread for a ``normal`` power from the catalogue's
centres and the logged s.e.; a simulated power without one is priced once a run logs it.

The price is the notebook's logged wall time times ``m − 1``: an upper bound, as if every step of the notebook
grew with the units (most grow less). Rows at most :data:`CHEAP_MINUTES` added lane-minutes are marked: the
default profile buys them first, the most claims decided per lane-minute first (``docs/CLAIM_CHANGES.md`` records
each change of scale). ``python -m lib claims --plan --profile P`` prints the plan and writes
``figures/<P>/CLAIMS_PLAN.md``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from lib import claim_catalogue, claim_power, claims, paths, plotting, published, results, runner, strict_json, verdict

#: Multiples of the run's units the planner tries, smallest first.
SCALES = claim_power.SCALES
#: Added lane-minutes at or under which a plan row is cheap enough for the default profile to buy.
CHEAP_MINUTES = 60.0


@dataclass(frozen=True)
class Row:
    """One undecided claim's plan."""

    notebook: str
    id: str
    kind: str
    p1: float
    p0: float
    scale: float | None  # the smallest multiple of the run's units that decides it; None: none in SCALES
    p1_at: float
    p0_at: float
    minutes_now: float | None  # the notebook's logged wall time
    why: str  # "" when priced; else why it is not

    @property
    def added_minutes(self) -> float | None:
        if self.scale is None or self.minutes_now is None:
            return None
        return self.minutes_now * (self.scale - 1)


def _spreads(entry: claim_catalogue.Entry, power: Mapping[str, Any], se: float) -> dict[str, tuple[float, float]]:
    """Mean and s.d. of the statistic under the paper (``paper``) and each null, as logged, else from a normal
    power's centres and the logged s.e."""
    if isinstance(power.get("spread"), Mapping):
        return {h: (float(m), float(s)) for h, (m, s) in power["spread"].items()}
    if isinstance(entry.power, Mapping) and "normal" in entry.power and math.isfinite(se):
        centres = entry.power["normal"]
        nulls = centres["if_null"] if isinstance(centres["if_null"], list) else [centres["if_null"]]
        return {"paper": (float(centres["if_paper"]), se), **{n: (float(c), se) for n, c in zip(
            entry.nulls, nulls, strict=True)}}
    return {}


def plan_claim(notebook: str, entry: claim_catalogue.Entry, row: Mapping[str, Any],
               minutes_now: float | None) -> Row:
    """The plan of one logged claim ``row`` (its claims.json entry) of ``entry``."""
    power = row.get("power") if isinstance(row.get("power"), Mapping) else {}
    p1, p0 = float(power.get("if_paper", math.nan)), float(power.get("if_null", math.nan))
    se = float(row["se"]) if isinstance(row.get("se"), int | float) else math.nan
    spreads = _spreads(entry, power, se)
    unpriced = Row(notebook, entry.id, entry.kind, p1, p0, None, math.nan, math.nan, minutes_now, "")
    if asserted := _asserted(power, _side(entry, row)):
        return _replace(unpriced, f"its draws under {'; '.join(map(repr, asserted))} are all equal: the share its "
                                  "outcome rests on is asserted, and no scale estimates it; catalogue the test exact, "
                                  "saying why, or give that hypothesis draws with noise")
    if not spreads or "paper" not in spreads:
        return _replace(unpriced, "its run logged no spread of its draws: the next run logs it")
    if entry.widened_by_se and not math.isfinite(se):
        return _replace(unpriced, "its test is widened by an s.e. the run did not log")
    m, p1_at, p0_at = claim_power.decisive_scale(
        lambda shrink: entry.comparison(se * shrink if entry.widened_by_se else None), spreads, entry.support)
    return Row(notebook, entry.id, entry.kind, p1, p0, m, p1_at, p0_at, minutes_now, "" if m is not None else (
        f"not decisive at {SCALES[-1]:g}× the units: the paper's and the nulls' values are too close for the test; "
        "redesign the statistic or its null"))


def _side(entry: claim_catalogue.Entry, row: Mapping[str, Any]) -> str | None:
    """``hold`` or ``fail``: the outcome of a logged row's measured value under the catalogue's test at the logged
    s.e.; None when it has no finite value or the test cannot judge it."""
    measured = row.get("measured")
    if not isinstance(measured, int | float) or not math.isfinite(float(measured)):
        return None
    se = row.get("se") if isinstance(row.get("se"), int | float) else None
    outcome = entry.comparison(se).check(float(measured))[0]
    return None if outcome == claims.NOT_MEASURED else verdict.HOLD if outcome == claims.HOLDS else verdict.FAIL


def _asserted(power: Mapping[str, Any], side: str | None) -> list[str]:
    """The hypotheses whose logged draws were all equal (a logged power's ``constant``) and on whose share the
    outcome ``side`` (:func:`_side`) rests: a hold on the nulls', a fail on the paper's: the engine's rule
    (:meth:`lib.claim_power.Power.asserted`) on the logged form. Restated, not shared, because ``claim_power`` is a
    source of every notebook's code key: moving the rule into a function both call would stale every published
    notebook."""
    return [h for h in power.get("constant") or () if side is not None
            and (h == claim_power.PAPER) == (side == verdict.FAIL)]


def _replace(row: Row, why: str) -> Row:
    return Row(row.notebook, row.id, row.kind, row.p1, row.p0, None, math.nan, math.nan, row.minutes_now, why)


def _logged(profile: str) -> list[tuple[str, list[Mapping[str, Any]], float | None]]:
    """(notebook, claims rows, lane minutes) of the profile's logged runs, else of ``published/`` when it holds
    that profile."""
    found = []
    for file in sorted(paths.RESULTS_DIR.joinpath(paths.check_profile(profile)).glob("*/claims.json")):
        if paths.split_run_name(file.parent.name)[1]:
            continue
        try:
            manifest = results.read_manifest(file)
        except results.IncompleteResultError:  # half-written or corrupt: nothing to plan from
            continue
        found.append((file.parent.name, results.load_json(file), _lane_minutes(profile, file.parent.name, manifest)))
    if found:
        return found
    folder = published.default_folder()
    record = published.record(folder)
    if record is None or record.get("profile") != profile:
        return []
    for file in sorted((folder / published.NOTEBOOKS).glob("*.claims.json")):
        notebook = file.name.removesuffix(".claims.json")
        found.append((notebook, strict_json.loads(file.read_text()), _minutes(published.manifest(folder, notebook))))
    return found


def _minutes(manifest: Mapping[str, Any]) -> float | None:
    """A manifest's lane time in minutes (:func:`lib.runner.published_lane_seconds`: a published run's across its
    attempts, else its wall time); None when it records neither."""
    seconds = runner.published_lane_seconds(manifest)
    return seconds / 60 if seconds is not None else None


def _lane_minutes(profile: str, notebook: str, claims_manifest: Mapping[str, Any]) -> float | None:
    """A logged run's lane time in minutes: its completion stamp's (:func:`lib.runner.logged_lane_seconds`, which
    counts the attempts whose results a rerun reused), else the seconds its kernel took to write ``claims.json``."""
    seconds = runner.logged_lane_seconds(profile, notebook)
    return seconds / 60 if seconds is not None else _minutes(claims_manifest)


def decided(entry: claim_catalogue.Entry, row: Mapping[str, Any]) -> verdict.Decision | None:
    """The decision rule applied to a logged row's outcome (its measured value under the catalogue's test at the
    logged s.e.) and its logged shares; None when the row logged no shares or no finite value. A run logged before
    the directional rule judged both sides alike: this is how its "no power" rows read now."""
    power, side = row.get("power"), _side(entry, row)
    if not isinstance(power, Mapping) or "if_paper" not in power or side is None:
        return None
    nulls = power.get("nulls") or {power["null"]: power["if_null"]}
    found = verdict.decide(side, float(power["if_paper"]), {n: float(p) for n, p in nulls.items()})
    return found if not _asserted(power, side) else verdict.Decision(side, False, found.ratio, found.against)


def plan(profile: str) -> list[Row]:
    """A :class:`Row` for every logged claim of ``profile`` whose outcome is not decisive (a row logged "no power"
    whose outcome the directional rule decides is left out)."""
    rows = []
    for notebook, logged, minutes in _logged(profile):
        try:
            catalogue = claim_catalogue.load(notebook)
        except (FileNotFoundError, ValueError):
            continue
        for row in logged:
            entry = catalogue.get(str(row.get("id")))
            if entry is None or row.get("verdict") != claims.NO_POWER:
                continue
            decision = decided(entry, row)
            if decision is None or not decision.decisive:
                rows.append(plan_claim(notebook, entry, row, minutes))
    return rows


def frame(rows: list[Row]) -> pd.DataFrame:
    """The plan as a table, cheapest first, unpriced rows last."""
    table = pd.DataFrame([{
        "notebook": r.notebook, "claim": r.id, "kind": r.kind, "p1 now": r.p1, "p0 now": r.p0,
        "decisive at": "" if r.scale is None else f"{r.scale:g}× units",
        "p1 then": r.p1_at, "p0 then": r.p0_at,
        "lane-min now": r.minutes_now, "added lane-min": r.added_minutes,
        "cheap": "yes" if r.added_minutes is not None and r.added_minutes <= CHEAP_MINUTES else "",
        "why unpriced": r.why} for r in rows])
    if table.empty:
        return table
    return table.sort_values(["added lane-min", "notebook", "claim"], na_position="last").reset_index(drop=True)


def plan_file(profile: str) -> Path:
    """``figures/<profile>/CLAIMS_PLAN.md``."""
    return paths.figures_index(profile).with_name("CLAIMS_PLAN.md")


def markdown(profile: str, rows: list[Row]) -> str:
    """The text of ``CLAIMS_PLAN.md``."""
    table = frame(rows)
    cheap = int((table["cheap"] == "yes").sum()) if len(table) else 0
    head = [f"# Claims plan — profile `{profile}`", "",
            f"{len(rows)} claims are not decisive at this scale; {cheap} would be for at most "
            f"{CHEAP_MINUTES:g} added lane-minutes each (an upper bound: the notebook's logged time × (m − 1)). "
            "'decisive at' is the smallest multiple of the units the claim's draws resample at which a hold and a "
            "fail would both count (lib/claim_plan.py).", ""]
    return "\n".join(head + [plotting.markdown_table(table) if len(table) else "Nothing to plan.", ""])


def write(profile: str) -> tuple[Path, list[Row]]:
    """Write ``CLAIMS_PLAN.md`` atomically; return it with its rows."""
    rows = plan(profile)
    return results.atomic_write_text(plan_file(profile), markdown(profile, rows)), rows


def text(profile: str) -> str:
    """What ``python -m lib claims --plan`` prints: one line per undecided claim, then where the plan went."""
    path, rows = write(profile)
    if not rows:
        return f"no undecided claims logged under profile {profile}\nwrote {paths.relative_to_root(path)}"
    lines = []
    for _, r in frame(rows).iterrows():
        cost = "" if pd.isna(r["added lane-min"]) else f", +{r['added lane-min']:.0f} lane-min" + (
            " (cheap)" if r["cheap"] else "")
        lines.append(f"{r['notebook']}:{r['claim']}  " + (f"decisive at {r['decisive at']}{cost}" if
                                                           r["decisive at"] else f"unpriced: {r['why unpriced']}"))
    return "\n".join([*lines, f"{len(rows)} undecided claims; wrote {paths.relative_to_root(path)}"])
