"""The claims catalogue: each notebook's claims pre-registered as data, ``lib/<paper>/claims/<notebook>.yaml``.

The catalogue is the pre-registration: for each claim its id, kind, the paper's section and words, what is
measured, the test with its tolerance and reason, the null it is tested against, how its power is computed, and
what would make it decisive. A change to it is a reviewed diff, recorded in ``docs/CLAIM_CHANGES.md``. The
notebook's closing cell passes only :class:`lib.claims.Evidence` by id to ``run.record_claims``, which evaluates
each entry here (:func:`evaluate`). ``python -m lib.claim_catalogue --check`` (run by ``make lint``) fails when a
catalogue is malformed, refuses a test that cannot fail, or disagrees with its notebook's closing cell.

An entry (YAML)::

    - id: shared_exponent
      kind: paper                      # paper | extension | sanity
      section: "A.4.2, Eq. 57"
      paper_says: "0.65 [0.44, 0.91]"  # the paper's words
      measures: "shared exponent b of Eq. 57 on the panel, …"
      test: {range: [0.44, 0.91], se_k: 3}   # or {point: v, tol: t, reason: …} | {point: v, se_k: 3}
                                             # | {bound: ">=", value: v, reason: …, se_k: 2}

A range or point widened by ``se_k`` logged s.e. accepts the paper's value within noise; a bound with ``se_k``
must be cleared by ``se_k`` s.e. (a direction shown beyond noise, a one-sided test).
      support: [-.inf, .inf]           # the values the statistic can take; a test covering them is refused
      null_hypothesis: "b = 0: N* does not depend on k*"   # (a key named null would read as YAML null)
      power: simulated                 # | {normal: {if_paper: 0.65, if_null: 0.0}} | {exact: "why"}
      decisive_with: "the paper profile's 109 observations"
      paper_profile_only: "…"          # optional: why only the paper profile reaches it
      cites: "K01_kstar:counts"        # optional: another notebook's claim owning this measurement

``power: {normal: …}`` draws the statistic from the logged s.e. around the paper's value and the null's
(:func:`lib.claim_power.normal_draws`); ``simulated`` takes the draws the notebook passes (``if_paper``,
``if_null``); ``exact`` is a test with no random element. Sanity claims and citing claims take no power.
"""

from __future__ import annotations

import ast
import dataclasses
import math
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

import yaml

from lib import claim_power, claims, papers, paths

#: What a failure under the smoke profile says beside its arithmetic (it stays unexplained: nothing was diagnosed).
SMOKE_FAILURE = "the smoke profile's tiny random models and toy sizes only exercise the code paths"
_TEST_KEYS = {"range": {"range", "se_k"}, "point": {"point", "tol", "reason", "se_k"},
              "bound": {"bound", "value", "reason", "se_k"}}
_ENTRY_KEYS = {"id", "kind", "section", "paper_says", "measures", "test", "support", "null_hypothesis", "power",
               "decisive_with", "paper_profile_only", "cites"}


@dataclass(frozen=True)
class Entry:
    """One pre-registered claim."""

    id: str
    kind: str
    section: str
    paper_says: str
    measures: str
    test: Mapping[str, Any]
    null: str = ""
    power: Any = None  # "simulated", {"normal": {"if_paper": v, "if_null": v}}, {"exact": "why"}, or None
    decisive_with: str = ""
    support: tuple[float, float] = (-math.inf, math.inf)
    paper_profile_only: str = ""
    cites: str = ""
    extra: tuple[str, ...] = field(default=(), repr=False)  # unknown keys, reported by problems()

    def comparison(self, se: float | None = None) -> claims.Comparison:
        """The test as a :class:`lib.claims.Range`, ``Point`` or ``Bound``, widened by ``se`` where it says."""
        t, k = self.test, self.test.get("se_k")
        if "range" in t:
            lo, hi = t["range"]
            return claims.Range(float(lo), float(hi), se=se if k is not None else None, k=float(k or 3))
        if "point" in t:
            if k is not None:
                return claims.Point(float(t["point"]), se=se, k=float(k))
            tol = t.get("tol")
            return claims.Point(float(t["point"]), tol=None if tol is None else float(tol), reason=t.get("reason", ""))
        return claims.Bound(str(t["bound"]), float(t["value"]), reason=t.get("reason", ""),
                            se=se if k is not None else None, k=float(k if k is not None else 2))

    @property
    def widened_by_se(self) -> bool:
        return self.test.get("se_k") is not None

    def problems(self) -> list[str]:
        """What makes this entry unusable, each naming the claim ([] when none)."""
        found = [f"unknown key {key!r} (allowed: {', '.join(sorted(_ENTRY_KEYS))})" for key in self.extra]
        shapes = [name for name in _TEST_KEYS if name in self.test]
        if len(shapes) != 1:
            return [*found, f"test={dict(self.test)!r} must have exactly one of range, point, bound"]
        if unknown := set(self.test) - _TEST_KEYS[shapes[0]]:
            found.append(f"test key(s) {sorted(unknown)} do not belong to a {shapes[0]} test")
        try:
            comparison = self.comparison(se=0.0 if self.widened_by_se else None)
        except (TypeError, ValueError, KeyError) as error:
            return [*found, f"test={dict(self.test)!r} is malformed ({error})"]
        found += comparison.problems()
        weighed = self.kind in claims.WEIGHED_KINDS and not self.cites
        if weighed and not self.null.strip():
            found.append("a paper or extension claim names the null it is tested against (null_hypothesis: …)")
        if weighed and not _power_shape_ok(self.power):
            found.append(f"power={self.power!r} must be 'simulated', {{normal: {{if_paper: v, if_null: v}}}} or "
                         "{exact: why}")
        if not self.widened_by_se and cannot_fail(comparison, self.support):
            found.append(f"the test {comparison.describe()} holds for every value the statistic can take "
                         f"(support [{self.support[0]:g}, {self.support[1]:g}]): it cannot fail")
        return found


def _power_shape_ok(power: Any) -> bool:
    if power == "simulated":
        return True
    if isinstance(power, Mapping) and set(power) == {"exact"}:
        return bool(str(power["exact"]).strip())
    if isinstance(power, Mapping) and set(power) == {"normal"} and isinstance(power["normal"], Mapping):
        return set(power["normal"]) == {"if_paper", "if_null"}
    return False


def cannot_fail(comparison: claims.Comparison, support: tuple[float, float]) -> bool:
    """Whether ``comparison`` holds for every value in ``support`` (a test that covers every value the statistic
    can take cannot fail)."""
    lo, hi = support
    if isinstance(comparison, claims.Range):
        return comparison.lo <= lo and hi <= comparison.hi
    if isinstance(comparison, claims.Point):
        tol = comparison.tol or 0.0
        return comparison.value - tol <= lo and hi <= comparison.value + tol
    return {"<": hi < comparison.value, "<=": hi <= comparison.value,
            ">": lo > comparison.value, ">=": lo >= comparison.value}[comparison.op]


def _entry(raw: Mapping[str, Any]) -> Entry:
    support = tuple(float(v) for v in raw.get("support", (-math.inf, math.inf)))
    return Entry(id=str(raw.get("id", "")), kind=str(raw.get("kind", "paper")), section=str(raw.get("section", "")),
                 paper_says=str(raw.get("paper_says", "")), measures=str(raw.get("measures", "")),
                 test=dict(raw.get("test") or {}), null=str(raw.get("null_hypothesis", "")), power=raw.get("power"),
                 decisive_with=str(raw.get("decisive_with", "")), support=support,  # type: ignore[arg-type]
                 paper_profile_only=str(raw.get("paper_profile_only", "")), cites=str(raw.get("cites", "")),
                 extra=tuple(sorted(set(raw) - _ENTRY_KEYS)))


def path(notebook: str) -> Path:
    """``lib/<paper package>/claims/<notebook>.yaml``."""
    paper = papers.paper_of(notebook)
    if paper is None:
        raise ValueError(f"notebook {notebook!r} belongs to no paper, so it has no claims catalogue")
    return paths.LIB_DIR / paper.package.removeprefix("lib.") / "claims" / f"{notebook}.yaml"


def parse(text: str, source: str) -> dict[str, Entry]:
    """The entries of a catalogue's YAML ``text`` by id; raises :class:`ValueError` naming ``source`` and the
    claim for each problem (:meth:`Entry.problems`)."""
    raw = yaml.safe_load(text) or []
    if not isinstance(raw, list) or not all(isinstance(item, Mapping) for item in raw):
        raise ValueError(f"{source}: a catalogue is a YAML list of claims, one mapping each")
    entries = [_entry(item) for item in raw]
    ids = [e.id for e in entries]
    problems = [f"claim id {i!r} appears {ids.count(i)} times" for i in sorted(set(ids)) if ids.count(i) > 1]
    for entry in entries:
        problems += [f"claim {entry.id!r}: {problem}" for problem in entry.problems()]
    if problems:
        raise ValueError(f"{source}: " + "; ".join(problems))
    return {e.id: e for e in entries}


@cache
def _load(file: Path, mtime: float) -> dict[str, Entry]:
    return parse(file.read_text(), paths.display(file))


def load(notebook: str) -> dict[str, Entry]:
    """The notebook's catalogue (:func:`path`) by claim id."""
    file = path(notebook)
    if not file.is_file():
        raise FileNotFoundError(f"{paths.display(file)}: notebook {notebook} has no claims catalogue")
    return _load(file, file.stat().st_mtime)


def _power(entry: Entry, found: claims.Evidence, comparison: claims.Comparison
           ) -> claim_power.Power | claim_power.Exact | None:
    if entry.kind not in claims.WEIGHED_KINDS or entry.cites:
        return None
    if isinstance(entry.power, Mapping) and "exact" in entry.power:
        return claim_power.Exact(str(entry.power["exact"]))
    if entry.power == "simulated":
        if found.if_paper is None or found.if_null is None:
            return None
        return claim_power.power(comparison, found.if_paper, found.if_null, entry.null)
    centres = entry.power["normal"]
    if found.se is None or not math.isfinite(found.se):
        return None
    draws = [claim_power.normal_draws(float(centres[h]), float(found.se), support=entry.support, seed=seed)
             for seed, h in enumerate(("if_paper", "if_null"))]
    return claim_power.power(comparison, *draws, entry.null)


def _unmeasured_without_power(entry: Entry, found: claims.Evidence) -> str:
    if entry.power == "simulated":
        return ("no draws of the statistic could be simulated at this run's size, so the test's power is unknown"
                + (f"; decisive with {entry.decisive_with}" if entry.decisive_with else ""))
    return ("no standard error of the measurement could be estimated on this run (one replicate or one seed), so "
            "the test's power is unknown" + (f"; decisive with {entry.decisive_with}" if entry.decisive_with else ""))


def evaluate(entry: Entry, found: claims.Evidence, profile: str) -> claims.Claim:
    """The logged claim of ``entry`` on the notebook's ``found`` evidence under ``profile``."""
    if entry.widened_by_se and found.se is None and found.not_measured == "" and found.value is not None:
        raise ValueError(f"claim {entry.id!r}: its test is widened by the measurement's s.e.; pass Evidence(se=…)")
    comparison = entry.comparison(found.se)
    found_power = _power(entry, found, comparison)
    not_measured = found.not_measured
    value = math.nan if found.value is None else float(found.value)
    if (found_power is None and entry.kind in claims.WEIGHED_KINDS and not entry.cites and not not_measured
            and math.isfinite(value)):
        not_measured = _unmeasured_without_power(entry, found)
    statement = entry.measures + (f" ({found.note.strip()})" if found.note.strip() else "")
    judged = claims.claim(
        entry.id, entry.section, statement, entry.paper_says, found.value, comparison, kind=entry.kind,
        not_measured=not_measured, cites=entry.cites, se=found.se, power=found_power, mechanism=found.mechanism,
        decisive_with=entry.decisive_with,
        needs_paper_profile=entry.paper_profile_only if profile != "paper" else "")
    if profile == "smoke" and judged.verdict == claims.FAILS_UNEXPLAINED:  # still counted apart, said why in words
        return dataclasses.replace(judged, reason=f"{judged.reason} ({SMOKE_FAILURE})")
    return judged


def evaluate_all(notebook: str, evidence: Mapping[str, claims.Evidence], profile: str) -> list[claims.Claim]:
    """Every catalogued claim of ``notebook`` on ``evidence``, in catalogue order; the ids must be the same."""
    catalogue = load(notebook)
    if mismatch := _mismatch(set(catalogue), set(evidence)):
        raise ValueError(f"{notebook}: the closing cell and {paths.display(path(notebook))} disagree: "
                         f"{mismatch}")
    return [evaluate(entry, evidence[i], profile) for i, entry in catalogue.items()]


def _mismatch(catalogued: set[str], passed: set[str]) -> str:
    parts = []
    if missing := sorted(catalogued - passed):
        parts.append(f"no evidence for {', '.join(missing)}")
    if extra := sorted(passed - catalogued):
        parts.append(f"evidence for uncatalogued {', '.join(extra)}")
    return "; ".join(parts)


# --------------------------------------------------------------------------- the lint


def closing_ids(source: str) -> set[str] | str:
    """The claim ids a notebook's source passes to ``record_claims`` (a dict literal with string keys), or the
    reason they cannot be read."""
    calls = [node for node in ast.walk(ast.parse(source)) if isinstance(node, ast.Call)
             and getattr(node.func, "attr", getattr(node.func, "id", "")) == "record_claims"]
    if len(calls) != 1:
        return f"calls record_claims {len(calls)} times (once, in the closing cell)"
    args = calls[0].args
    if len(args) != 1 or not isinstance(args[0], ast.Dict):
        return "passes record_claims something other than a dict literal {\"<claim id>\": Evidence(…), …}"
    keys = args[0].keys
    if not all(isinstance(k, ast.Constant) and isinstance(k.value, str) for k in keys):
        return "passes record_claims a dict whose keys are not all claim ids written out as strings"
    return {k.value for k in keys}  # type: ignore[union-attr]


def lint(notebook: str, source: str) -> list[str]:
    """Problems of ``notebook``'s catalogue, and where it and the notebook's closing cell disagree."""
    try:
        catalogue = load(notebook)
    except (FileNotFoundError, ValueError, yaml.YAMLError) as error:
        return [str(error)]
    found = []
    ids = closing_ids(source)
    if isinstance(ids, str):
        found.append(f"{notebook} {ids}")
    elif mismatch := _mismatch(set(catalogue), ids):
        found.append(f"{notebook}: the closing cell and {paths.display(path(notebook))} disagree: {mismatch}")
    inline = sum(isinstance(n, ast.Call) and getattr(n.func, "id", getattr(n.func, "attr", "")) == "claim"
                 for n in ast.walk(ast.parse(source)))
    if inline:
        found.append(f"{notebook} declares {inline} claim(s) inline: the paper's words belong in its catalogue")
    return found


def check() -> list[str]:
    """:func:`lint` over every notebook under ``notebooks/``."""
    found = []
    for script in sorted(paths.NOTEBOOKS_DIR.glob("*.py")):
        found += lint(script.stem, script.read_text())
    return found


def main(argv: list[str] | None = None) -> int:
    """``python -m lib.claim_catalogue --check``: one line per problem, exit 1 when there is one."""
    args = sys.argv[1:] if argv is None else argv
    if args != ["--check"]:
        print("usage: python -m lib.claim_catalogue --check", file=sys.stderr)
        return 2
    problems = check()
    for line in problems:
        print(line, file=sys.stderr)
    print(f"claims catalogues: {len(problems)} problem(s)" if problems else "claims catalogues: every notebook "
          "agrees with its catalogue")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
