"""The claims catalogue: each notebook's claims pre-registered as data, ``lib/<paper>/claims/<notebook>.yaml``.

The catalogue is the pre-registration: for each claim its id, kind, the paper's section and words, what is
measured, the test with its tolerance and reason, the null it is tested against, how its power is computed, and
what would make it decisive. A change to it is a reviewed diff, recorded in ``docs/CLAIM_CHANGES.md``. The
notebook's closing cell passes only :class:`lib.claims.Evidence` by id to ``run.record_claims``, which evaluates
each entry here (:func:`evaluate`). ``python -m lib.claim_catalogue --check`` (run by ``make lint``) fails when a
catalogue is malformed, refuses a test that cannot fail, or disagrees with its notebook's closing cell.

An entry (YAML)::

    - id: shared_exponent
      kind: paper                      # paper | extension | sanity | mechanism
      section: "A.4.2, Eq. 57"
      paper_says: "0.65 [0.44, 0.91]"  # the paper's words
      measures: "shared exponent b of Eq. 57 on the panel, …"
      test: {range: [0.44, 0.91], se_k: 3}   # or {point: v, tol: t, reason: …} | {point: v, se_k: 3}
                                             # | {bound: ">=", value: v, reason: …, se_k: 2}

A range or point widened by ``se_k`` logged s.e. accepts the paper's value within noise; a bound with ``se_k``
must be cleared by ``se_k`` s.e. (a direction shown beyond noise, a one-sided test).
      support: [-.inf, .inf]           # the values the statistic can take; a test covering them (it cannot
                                       # fail) or excluding them (it cannot hold) is refused
      null_hypothesis: "b = 0: N* does not depend on k*"   # (a key named null would read as YAML null); or a
                                       # list of nulls, each plausible, a hold must beat every one
      power: simulated                 # | {normal: {if_paper: 0.65, if_null: 0.0}} | {exact: "why"}
      decisive_with: "the paper profile's 109 observations"
      paper_profile_only: "…"          # optional: why only the paper profile reaches it
      cites: "K01_kstar:counts"        # optional: another notebook's claim owning this measurement
      explains: [other_claim]          # kind mechanism only: the failures this measured prediction explains
      sources: [seeds, test_texts]     # optional: the sources of noise the value has in this run; the closing cell
                                       # passes each one's s.e. (Evidence(sources={…})), added in variance
      setting: real                    # optional: real | synthetic, where it differs from the notebook's (the
                                       # paper record's ``synthetic`` notebooks check synthetic or closed forms)

``power: {normal: …}`` draws the statistic from the logged s.e. around the paper's value and the null's
(:func:`lib.claim_power.normal_draws`; ``if_null`` a list, one centre per null, when several are listed);
``simulated`` takes the draws the notebook passes (``if_paper``, ``if_null``: a mapping of each listed null's
words to its draws when there are several); ``exact`` is a test with no random element. Sanity claims and citing
claims take no power. A failure is explained only by a ``mechanism`` entry that lists it in ``explains`` and
holds decisively (:func:`evaluate_all` judges the mechanisms first).
"""

from __future__ import annotations

import ast
import dataclasses
import math
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import yaml

from lib import claim_power, claims, papers, paths, strict_json

#: What a failure under the smoke profile says beside its arithmetic (it stays unexplained: nothing was diagnosed).
SMOKE_FAILURE = "the smoke profile's tiny random models and toy sizes only exercise the code paths"
_TEST_KEYS = {"range": {"range", "se_k"}, "point": {"point", "tol", "reason", "se_k"},
              "bound": {"bound", "value", "reason", "se_k"}}
_ENTRY_KEYS = {"id", "kind", "section", "paper_says", "measures", "test", "support", "null_hypothesis", "power",
               "decisive_with", "paper_profile_only", "cites", "explains", "setting", "sources"}
#: The sources of noise a claim's value can have in a run: what its draws resample.
NOISE_SOURCES = ("seeds", "test_texts", "train_texts", "groups", "tasks", "checkpoints", "replicates", "samples",
                 "models", "decisions", "pairs", "templates")


@dataclass(frozen=True)
class Entry:
    """One pre-registered claim."""

    id: str
    kind: str
    section: str
    paper_says: str
    measures: str
    test: Mapping[str, Any]
    nulls: tuple[str, ...] = ()
    power: Any = None  # "simulated", {"normal": {"if_paper": v, "if_null": v}}, {"exact": "why"}, or None
    decisive_with: str = ""
    support: tuple[float, float] = (-math.inf, math.inf)
    paper_profile_only: str = ""
    cites: str = ""
    explains: tuple[str, ...] = ()
    setting: str = ""
    sources: tuple[str, ...] = ()
    extra: tuple[str, ...] = field(default=(), repr=False)  # unknown keys, reported by problems()

    @property
    def null(self) -> str:
        """The nulls in words, one sentence."""
        return "; ".join(self.nulls)

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
        if weighed and not all(n.strip() for n in self.nulls) or weighed and not self.nulls:
            found.append(f"a {self.kind} claim names the null(s) it is tested against (null_hypothesis: …)")
        if weighed and not _power_shape_ok(self.power, len(self.nulls)):
            found.append(f"power={self.power!r} must be 'simulated', {{normal: {{if_paper: v, if_null: v}}}} (a "
                         "list of one centre per null when several are listed) or {exact: why}")
        if (self.kind == "mechanism") != bool(self.explains):
            found.append("a mechanism claim, and only one, lists the failures it explains (explains: [claim id])")
        found += support_problems(comparison, self.support, widened=self.widened_by_se)
        if unknown := [s for s in self.sources if s not in NOISE_SOURCES]:
            found.append(f"sources {unknown} are not sources of noise; allowed: {', '.join(NOISE_SOURCES)}")
        if self.sources and not (isinstance(self.power, Mapping) and "normal" in self.power):
            found.append("sources are added in variance into a normal power: power: {normal: …}")
        if self.setting and self.setting not in claims.SETTINGS[:2]:
            found.append(f"setting={self.setting!r} is not one of {', '.join(claims.SETTINGS[:2])}")
        return found

    def setting_in(self, notebook: str) -> str:
        """Where the claim is measured (:data:`lib.claims.SETTINGS`): ``exact`` for a test with no random
        element, else the entry's ``setting``, else ``synthetic`` for a notebook its paper lists as such."""
        if isinstance(self.power, Mapping) and "exact" in self.power:
            return "exact"
        if self.setting:
            return self.setting
        paper = papers.paper_of(notebook)
        return "synthetic" if paper is not None and notebook in paper.synthetic else "real"


def _power_shape_ok(power: Any, n_nulls: int) -> bool:
    if power == "simulated":
        return True
    if isinstance(power, Mapping) and set(power) == {"exact"}:
        return bool(str(power["exact"]).strip())
    if isinstance(power, Mapping) and set(power) == {"normal"} and isinstance(power["normal"], Mapping):
        centres = power["normal"].get("if_null")
        return set(power["normal"]) == {"if_paper", "if_null"} and (
            len(centres) == n_nulls if isinstance(centres, list) else n_nulls == 1)
    return False


def cannot_hold(comparison: claims.Comparison, support: tuple[float, float]) -> bool:
    """Whether ``comparison`` fails for every value in ``support`` (a test that excludes every value the
    statistic can take cannot hold)."""
    lo, hi = support
    if isinstance(comparison, claims.Range):
        margin = comparison.k * comparison.se if comparison.se else 0.0
        return comparison.hi + margin < lo or comparison.lo - margin > hi
    if isinstance(comparison, claims.Point):
        tol = comparison.k * comparison.se if comparison.se is not None else (comparison.tol or 0.0)
        return comparison.value + tol < lo or comparison.value - tol > hi
    edge = comparison._edge()
    return {"<": lo >= edge, "<=": lo > edge, ">": hi <= edge, ">=": hi < edge}[comparison.op]


def support_problems(comparison: claims.Comparison, support: tuple[float, float], *, widened: bool,
                     at: str = "") -> list[str]:
    """Why ``comparison`` cannot fail or cannot hold on ``support`` ([] when it can do both). A test widened by
    a standard error is judged at that s.e. (``at`` says which run's); without one, a widened range or point is
    judged unwidened, where it is narrowest, and a widened bound is not judged (it only grows stricter)."""
    bounds = f"support [{support[0]:g}, {support[1]:g}]"
    found = []
    if not (widened and at == "" and isinstance(comparison, claims.Bound)) and cannot_fail(comparison, support):
        found.append(f"the test {comparison.describe()} holds for every value the statistic can take ({bounds}"
                     f"{at}): it cannot fail")
    if cannot_hold(comparison, support):
        found.append(f"the test {comparison.describe()} fails for every value the statistic can take ({bounds}"
                     f"{at}): it cannot hold")
    return found


def cannot_fail(comparison: claims.Comparison, support: tuple[float, float]) -> bool:
    """Whether ``comparison`` holds for every value in ``support`` (a test that covers every value the statistic
    can take cannot fail)."""
    lo, hi = support
    if isinstance(comparison, claims.Range):
        margin = comparison.k * comparison.se if comparison.se else 0.0
        return comparison.lo - margin <= lo and hi <= comparison.hi + margin
    if isinstance(comparison, claims.Point):
        tol = comparison.k * comparison.se if comparison.se is not None else (comparison.tol or 0.0)
        return comparison.value - tol <= lo and hi <= comparison.value + tol
    edge = comparison._edge()
    return {"<": hi < edge, "<=": hi <= edge, ">": lo > edge, ">=": lo >= edge}[comparison.op]


def _entry(raw: Mapping[str, Any]) -> Entry:
    support = tuple(float(v) for v in raw.get("support", (-math.inf, math.inf)))
    return Entry(id=str(raw.get("id", "")), kind=str(raw.get("kind", "paper")), section=str(raw.get("section", "")),
                 paper_says=str(raw.get("paper_says", "")), measures=str(raw.get("measures", "")),
                 test=dict(raw.get("test") or {}), nulls=_nulls(raw.get("null_hypothesis", "")), power=raw.get("power"),
                 decisive_with=str(raw.get("decisive_with", "")), support=support,  # type: ignore[arg-type]
                 paper_profile_only=str(raw.get("paper_profile_only", "")), cites=str(raw.get("cites", "")),
                 explains=tuple(str(i) for i in raw.get("explains") or ()), setting=str(raw.get("setting", "")),
                 sources=tuple(str(s) for s in raw.get("sources") or ()),
                 extra=tuple(sorted(set(raw) - _ENTRY_KEYS)))


def _nulls(raw: Any) -> tuple[str, ...]:
    """The catalogue's ``null_hypothesis``: one sentence or a list of them."""
    items = raw if isinstance(raw, list) else [raw] if str(raw).strip() else []
    return tuple(str(item).strip() for item in items)


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
        kinds = {e.id: e.kind for e in entries}
        problems += [f"claim {entry.id!r}: explains {target!r}, which is not a non-mechanism claim of this catalogue"
                     for target in entry.explains if kinds.get(target, "mechanism") == "mechanism"]
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
        if isinstance(found.if_null, Mapping) and set(found.if_null) != set(entry.nulls):
            raise ValueError(f"claim {entry.id!r}: draws under the nulls {sorted(found.if_null)} are not the "
                             f"catalogue's {list(entry.nulls)}")
        if not isinstance(found.if_null, Mapping) and len(entry.nulls) != 1:
            raise ValueError(f"claim {entry.id!r}: the catalogue lists {len(entry.nulls)} nulls; pass if_null as a "
                             "mapping of each null's words to its draws")
        return claim_power.power(comparison, found.if_paper, found.if_null, entry.null)
    centres = entry.power["normal"]
    if found.se is None or not math.isfinite(found.se):
        return None
    null_centres = centres["if_null"] if isinstance(centres["if_null"], list) else [centres["if_null"]]

    def normal(centre: float, seed: int) -> Callable[[int], np.ndarray]:
        return lambda n: claim_power.normal_draws(float(centre), float(found.se), support=entry.support, n=n,
                                                  seed=seed)

    return claim_power.power(comparison, normal(centres["if_paper"], 0),
                             {null: normal(c, i + 1) for i, (null, c) in enumerate(zip(entry.nulls, null_centres,
                                                                                         strict=True))})


def _no_power(entry: Entry) -> str:
    """Why a weighed claim with a finite value has no power on this run."""
    why = ("no draws of the statistic could be simulated at this run's size" if entry.power == "simulated" else
           "no standard error of the measurement could be estimated on this run (one replicate or one seed)")
    return (f"no power at this scale: {why}, so the test's power is unknown"
            + (f"; decisive with {entry.decisive_with}" if entry.decisive_with else ""))


def _decisive_with(entry: Entry, found: claims.Evidence, power: claim_power.Power | claim_power.Exact | None) -> str:
    """What would make the claim decisive: the planner's multiple of the units its draws resample
    (:func:`lib.claim_power.decisive_scale`), then the catalogue's words."""
    if not isinstance(power, claim_power.Power) or claim_power.PAPER not in power.spread or power.constant:
        return entry.decisive_with
    se = found.se if found.se is not None and math.isfinite(found.se) else None
    m, _, _ = claim_power.decisive_scale(
        lambda shrink: entry.comparison(se * shrink if se is not None and entry.widened_by_se else se),
        {h: s for h, s in power.spread.items()}, entry.support)
    scale = (f"about {m:g}× the units its draws resample (python -m lib claims --plan prices it)" if m is not None
             else f"no scale up to {claim_power.SCALES[-1]:g}× the units: the test cannot separate the paper from "
                  "its null; a redesign")
    return scale + (f"; {entry.decisive_with}" if entry.decisive_with else "")


def _with_sources(entry: Entry, found: claims.Evidence) -> claims.Evidence:
    """``found`` with its ``se`` the root of the summed squares of the s.e. each catalogued source of noise
    contributes; the sources passed must be the catalogue's, and an ``se`` passed beside them is refused."""
    if set(found.sources) != set(entry.sources):
        raise ValueError(f"claim {entry.id!r}: the catalogue names the sources of noise {list(entry.sources)}, the "
                         f"closing cell passes {sorted(found.sources)}: pass each one's s.e. (Evidence(sources=…))")
    if not entry.sources:
        return found
    if found.se is not None:
        raise ValueError(f"claim {entry.id!r}: pass the s.e. of each source of noise, not se=…: the engine adds them")
    return dataclasses.replace(found, se=math.sqrt(sum(float(se) ** 2 for se in found.sources.values())))


def evaluate(entry: Entry, found: claims.Evidence, profile: str, *, explained_by: str = "",
             mechanisms: str = "") -> claims.Claim:
    """The logged claim of ``entry`` on the notebook's ``found`` evidence under ``profile``; ``explained_by`` and
    ``mechanisms`` as :func:`lib.claims.claim` takes them (:func:`evaluate_all` finds them)."""
    found = _with_sources(entry, found)
    if entry.widened_by_se and found.se is None and found.undefined == "" and found.value is not None:
        raise ValueError(f"claim {entry.id!r}: its test is widened by the measurement's s.e.; pass Evidence(se=…)")
    comparison = entry.comparison(found.se)
    statement = entry.measures + (f" ({found.note.strip()})" if found.note.strip() else "")
    power = _power(entry, found, comparison)
    judged = claims.claim(
        entry.id, entry.section, statement, entry.paper_says, found.value, comparison, kind=entry.kind,
        undefined=found.undefined, cites=entry.cites, se=found.se, power=power,
        no_power=_no_power(entry), mechanism=found.mechanism, explains=entry.explains, explained_by=explained_by,
        mechanisms=mechanisms, decisive_with=_decisive_with(entry, found, power),
        needs_paper_profile=(entry.paper_profile_only if profile != "paper" else "") or found.needs_data)
    if found.sources and isinstance(judged.power, Mapping) and found.se:
        shares = {name: round(float(se) ** 2 / found.se**2, 4) for name, se in found.sources.items()}
        judged = dataclasses.replace(judged, power={**judged.power, "sources": shares})
    if found.settings and judged.verdict not in (claims.UNDEFINED, claims.NEEDS_PAPER):
        judged = _swept(judged, {label: evaluate(entry, at, profile, explained_by=explained_by, mechanisms=mechanisms)
                                 for label, at in found.settings.items()}, found.unstated)
    if profile == "smoke" and judged.verdict == claims.FAILS_UNEXPLAINED:  # still counted apart, said why in words
        return dataclasses.replace(judged, reason=f"{judged.reason} ({SMOKE_FAILURE})")
    return judged


def _swept(judged: claims.Claim, at: Mapping[str, claims.Claim], unstated: str) -> claims.Claim:
    """``judged`` (the profile's own setting) over a setting the paper does not state (``unstated``), measured at
    each plausible value (``at``): it holds only where every value holds, fails only where every value fails, and
    is otherwise undefined here, each outcome listed."""
    if not unstated.strip():
        raise ValueError(f"claim {judged.id!r}: a sweep over settings names the setting the paper leaves unstated")
    listing = "; ".join(f"{c.verdict} at {label}" + (f" ({c.measured:.4g})" if math.isfinite(
        c.measured) else "") for label, c in at.items())
    verdicts = {c.verdict for c in at.values()}
    told = f"swept over {unstated}, which the paper does not state: {listing}"
    if verdicts == {claims.HOLDS}:
        return dataclasses.replace(judged, outcome=claims.HOLDS, verdict=claims.HOLDS, reason="",
                                   statement=f"{judged.statement} ({told})")
    if verdicts <= {claims.FAILS_EXPLAINED, claims.FAILS_UNEXPLAINED}:
        first = next(iter(at.values()))
        return dataclasses.replace(first, measured=judged.measured, se=judged.se, reason=f"{first.reason}; {told}")
    return dataclasses.replace(judged, outcome=claims.NOT_MEASURED, verdict=claims.UNDEFINED,
                               reason=f"the outcome depends on {unstated}, which the paper does not state: {listing}",
                               mechanism="", explained_by="")


def evaluate_all(notebook: str, evidence: Mapping[str, claims.Evidence], profile: str) -> list[claims.Claim]:
    """Every catalogued claim of ``notebook`` on ``evidence``, in catalogue order; the ids must be the same.
    Mechanism claims are judged first: a failure is explained by the first of those listing it that holds."""
    catalogue = load(notebook)
    if mismatch := _mismatch(set(catalogue), set(evidence)):
        raise ValueError(f"{notebook}: the closing cell and {paths.display(path(notebook))} disagree: "
                         f"{mismatch}")
    judged = {i: evaluate(e, evidence[i], profile) for i, e in catalogue.items() if e.kind == "mechanism"}
    for i, entry in catalogue.items():
        if entry.kind == "mechanism":
            continue
        listing = [m for m in judged.values() if i in catalogue[m.id].explains]
        held = [m.id for m in listing if m.verdict == claims.HOLDS]
        tried = ", ".join(f"{m.id} ({m.verdict})" for m in listing)
        judged[i] = evaluate(entry, evidence[i], profile, explained_by=held[0] if held else "",
                             mechanisms="" if held else tried)
    return [dataclasses.replace(judged[i], setting=entry.setting_in(notebook)) for i, entry in catalogue.items()]


def with_settings(table: pd.DataFrame) -> pd.DataFrame:
    """``table`` (logged claims with a ``notebook`` column) with each row's ``setting`` filled from its catalogue
    where the run logged none (runs logged before settings were)."""
    missing = table["setting"].eq("") if "setting" in table else pd.Series(True, index=table.index)
    if not missing.any():
        return table
    table = table.copy()

    def lookup(row: pd.Series) -> str:
        try:
            entry = load(row["notebook"]).get(row["id"])
        except (FileNotFoundError, ValueError):
            entry = None
        return entry.setting_in(row["notebook"]) if entry is not None else "real"

    table.loc[missing, "setting"] = table[missing].apply(lookup, axis=1)
    return table


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


def logged_problems(notebook: str, rows: list[Mapping[str, Any]], where: str) -> list[str]:
    """Tests of ``notebook``'s catalogue that cannot fail or cannot hold at the standard errors a run logged
    (``rows``, its claims.json; ``where`` names it): a test widened by an s.e. is judged at that s.e."""
    try:
        catalogue = load(notebook)
    except (FileNotFoundError, ValueError, yaml.YAMLError):
        return []  # lint() reports a broken catalogue
    found = []
    for row in rows:
        entry = catalogue.get(str(row.get("id")))
        se = row.get("se")
        if entry is None or not entry.widened_by_se or not isinstance(se, int | float) or not math.isfinite(se):
            continue
        found += [f"{notebook}: claim {entry.id!r}: {problem}" for problem in support_problems(
            entry.comparison(float(se)), entry.support, widened=True, at=f" at the s.e. {se:.4g} logged in {where}")]
    return found


def logged_runs() -> list[tuple[str, Path]]:
    """(notebook, claims.json) of every logged run in this checkout but ``smoke``'s (tiny random models at sizes
    no claim is tested at: its numbers mean nothing), and of the published run's notebooks whose parameters are
    still the profile's (a run at other parameters says nothing of this size)."""
    from lib import published  # here: lib.published imports the runner, which imports this module

    folder = published.default_folder()
    found = [(f.name.removesuffix(".claims.json"), f) for f in sorted((folder / published.NOTEBOOKS).glob(
        "*.claims.json")) if published.parameters_current(folder, f.name.removesuffix(".claims.json"))]
    return found + [(f.parent.name, f) for f in sorted(paths.RESULTS_DIR.glob("*/*/claims.json"))
                    if paths.split_run_name(f.parent.name)[1] == "" and f.parent.parent.name != "smoke"]


def check() -> list[str]:
    """:func:`lint` over every notebook under ``notebooks/``, and :func:`logged_problems` over every logged run
    (:func:`logged_runs`)."""
    found = []
    for script in sorted(paths.NOTEBOOKS_DIR.glob("*.py")):
        found += lint(script.stem, script.read_text())
    for notebook, file in logged_runs():
        try:
            rows = strict_json.loads(file.read_text())
        except (OSError, ValueError):
            continue
        if notebook in {s.stem for s in paths.NOTEBOOKS_DIR.glob("*.py")} and papers.paper_of(notebook):
            found += logged_problems(notebook, rows, paths.display(file))
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
