"""The claims contract: what a notebook's closing cell states, how each statement is tested, how it is counted.

A claim is one line of a notebook's conclusion (:func:`claim`), logged by ``run.record_claims`` into
``results/<profile>/<notebook>/claims.json`` under the notebook's paper and shown by :func:`show_claims`.

Kinds
    ``paper``: a value or statement the paper makes, quoted (``paper_value``) with its section, tested as the
    paper states it. Only these count as reproduction. ``extension``: beyond the paper (the project's own
    derivations, settings the paper leaves open, controls); reported, never counted as reproduction.
    ``sanity``: true by construction, or arithmetic on the paper's own numbers.

Outcomes and verdicts
    ``holds``, ``fails`` or ``not measured``, each told apart in one of six verdicts (:data:`VERDICTS`): holds ·
    fails, explained · fails, unexplained · not measured, no power at this scale · not measured, needs the
    paper's data or models · not measured, undefined here. A paper, extension or mechanism claim is weighed by
    its power (:mod:`lib.claim_power`) under the decision rule of :mod:`lib.verdict`: a hold counts when every
    null would rarely have held, a fail when the paper, if right, would usually have held; an outcome that is
    not decisive reads "not measured, no power at this scale" with its shares and likelihood ratio. A failure is
    explained only by a claim of kind ``mechanism`` that lists it (``explained_by``) and holds decisively; a
    cause in words alone leaves it unexplained. A NaN measured value is not measured, never a failure: the
    notebook says why the statistic is undefined (``undefined="reason"``), or the catalogue why only the paper
    profile reaches it: the notebook's own sentence can only declare a statistic undefined, never turn a
    measured outcome into "no power".

Catalogue
    A notebook's claims are pre-registered in its catalogue (:mod:`lib.claim_catalogue`); its closing cell passes
    only measured values, standard errors, power draws and mechanisms by id (:class:`Evidence`), and
    ``run.record_claims`` evaluates each with :func:`claim`.

Comparisons
    Typed, and derived from what the paper states: :class:`Range` (the paper gives an interval),
    :class:`Point` (a value, tested two-sided: within a tolerance, or within k standard errors of a logged
    s.e.) and :class:`Bound` (a one-sided statement). A tolerance without a reason is refused; so is a range
    whose ends are swapped, a paper claim without its section and quote, and a :class:`Bound` on a paper claim
    whose quote states a value or a range (a one-sided test of a two-sided value) unless the bound says why.
    Every refusal is a :class:`ValueError` naming the claim.

Citations
    One measurement, one claim: a claim repeating another notebook's measurement names it,
    ``cites="00_theory_checks:purity_law_mc"``, and is counted once, at its owner (:func:`counts`).
"""

from __future__ import annotations

import math
import re
import shutil
import textwrap
from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass, field, fields
from typing import Any

import pandas as pd

from lib import claim_power, verdict

#: Where a claim is measured: on real models, on the paper's own synthetic or closed-form settings, or exactly (a
#: test with no random element). The scoreboard counts paper claims on real models apart from the others.
SETTINGS: tuple[str, ...] = ("real", "synthetic", "exact")
#: Claim kinds; only ``paper`` claims count as reproduction.
KINDS: tuple[str, ...] = ("paper", "extension", "sanity", "mechanism")
HOLDS, FAILS, NOT_MEASURED = "holds", "fails", "not measured"
#: Outcomes of a claim.
OUTCOMES: tuple[str, ...] = (HOLDS, FAILS, NOT_MEASURED)
FAILS_EXPLAINED, FAILS_UNEXPLAINED = "fails, explained", "fails, unexplained"
NO_POWER, NEEDS_PAPER = "not measured, no power at this scale", "not measured, needs the paper's data or models"
UNDEFINED = "not measured, undefined here"
#: The six verdicts a claim is counted in.
VERDICTS: tuple[str, ...] = (HOLDS, FAILS_EXPLAINED, FAILS_UNEXPLAINED, NO_POWER, NEEDS_PAPER, UNDEFINED)
#: Verdict labels logged by earlier versions, and what they read as now.
LEGACY_VERDICTS: Mapping[str, str] = {"not measured, needs the paper profile": NEEDS_PAPER}
#: Kinds whose tests must carry their power: the reproduction, the project's own reported claims, and the
#: mechanisms that explain failures.
WEIGHED_KINDS: tuple[str, ...] = ("paper", "extension", "mechanism")
#: What each kind is, as the summaries say it.
KIND_NOTES: Mapping[str, str] = {
    "paper": "the paper's values and statements: reproduction",
    "extension": "beyond the paper: reported, not counted as reproduction",
    "sanity": "true by construction or arithmetic on the paper's numbers: not counted as reproduction",
    "mechanism": "measured predictions that explain a failure: not counted as reproduction",
}
#: The line a closing cell prints under the smoke profile.
SMOKE_NOTE = ("Profile smoke: tiny random models and toy sizes that exercise the code paths; "
              "these numbers mean nothing about any paper.")
_OPERATORS = ("<", "<=", ">", ">=")
_LOGGED_FILE = re.compile(r"[A-Za-z0-9_.-]+\.(?:parquet|json)\b")
_CITATION = re.compile(r"^[A-Za-z0-9_]+:[A-Za-z0-9_]+$")
#: A quote that starts with a number, "≈ number", or an interval states a value or a range, not a direction.
_STATES_A_VALUE = re.compile(r"^\s*(?:[≈~]\s*)?(?:[\[(]\s*)?[-+−]?(?:\d+\.?\d*|\.\d+)")


def _number(value: float) -> str:
    """A number of a comparison as written: up to six significant digits."""
    return f"{float(value):.6g}"


def _measured(value: float) -> str:
    """A measured number in a reason: four significant digits."""
    return f"{float(value):.4g}"


def _finite_se(se: float | None) -> bool:
    return se is not None and math.isfinite(se)


# --------------------------------------------------------------------------- comparisons


@dataclass(frozen=True)
class Range:
    """The paper gives an interval: holds when ``lo ≤ measured ≤ hi``, each end widened by ``k·se`` when a
    logged standard error ``se`` of the measurement is given."""

    lo: float
    hi: float
    se: float | None = None
    k: float = 3.0

    def problems(self) -> list[str]:
        """What makes this range unusable ([] when none)."""
        if not (math.isfinite(self.lo) and math.isfinite(self.hi)):
            return [f"Range({self.lo!r}, {self.hi!r}) needs finite ends"]
        found = [] if self.lo <= self.hi else [f"Range({_number(self.lo)}, {_number(self.hi)}) has lo > hi"]
        if (self.se is not None and self.se < 0) or self.k < 0:
            found.append("a Range's se and k must be >= 0")
        return found

    def describe(self) -> str:
        """The comparison as a person reads it."""
        text = f"in [{_number(self.lo)}, {_number(self.hi)}]"
        return text if self.se is None else f"{text} widened by {_number(self.k)} s.e. (s.e. {_measured(self.se)})"

    def check(self, measured: float) -> tuple[str, str]:
        """(outcome, reason) for a finite ``measured``."""
        if self.se is not None and not _finite_se(self.se):
            return NOT_MEASURED, "its standard error is NaN"
        margin = self.k * self.se if self.se is not None else 0.0
        lo, hi = self.lo - margin, self.hi + margin
        if measured < lo:
            return FAILS, f"{_measured(measured)} is below {_measured(lo)}"
        if measured > hi:
            return FAILS, f"{_measured(measured)} is above {_measured(hi)}"
        return HOLDS, ""


@dataclass(frozen=True)
class Point:
    """The paper gives a value, tested two-sided: ``|measured − value| ≤ tol`` (``tol`` > 0 needs its
    ``reason``), or ``≤ k·se`` for a logged standard error ``se``; with neither, the value exactly."""

    value: float
    tol: float | None = None
    reason: str = ""
    se: float | None = None
    k: float = 3.0

    def problems(self) -> list[str]:
        """What makes this point unusable ([] when none)."""
        found = [] if math.isfinite(self.value) else [f"Point value {self.value!r} is not finite"]
        if self.tol is not None and self.se is not None:
            found.append("a Point takes tol or se, not both")
        if self.tol is not None and not (self.tol >= 0):
            found.append(f"tol={self.tol!r} must be >= 0")
        if self.tol and not self.reason.strip():
            found.append(f"the tolerance {_number(self.tol)} around {_number(self.value)} has no reason; "
                         "say why it is this wide: Point(value, tol=..., reason=...)")
        if (self.se is not None and self.se < 0) or self.k < 0:
            found.append("a Point's se and k must be >= 0")
        return found

    def describe(self) -> str:
        """The comparison as a person reads it."""
        if self.se is not None:
            return f"within {_number(self.k)} s.e. of {_number(self.value)} (s.e. {_measured(self.se)})"
        if self.tol:
            return f"within {_number(self.tol)} of {_number(self.value)}"
        return f"= {_number(self.value)}"

    def check(self, measured: float) -> tuple[str, str]:
        """(outcome, reason) for a finite ``measured``."""
        if self.se is not None and not _finite_se(self.se):
            return NOT_MEASURED, "its standard error is NaN"
        allowed = self.k * self.se if self.se is not None else (self.tol or 0.0)
        distance = abs(measured - self.value)
        if distance <= allowed:
            return HOLDS, ""
        if not allowed:
            return FAILS, f"{_measured(measured)} is not {_number(self.value)}"
        what = f"{_number(self.k)} s.e. = {_measured(allowed)}" if self.se is not None else _number(allowed)
        return FAILS, f"|{_measured(measured)} − {_number(self.value)}| = {_measured(distance)} exceeds {what}"


@dataclass(frozen=True)
class Bound:
    """A one-sided statement: ``measured <op> value``. With a logged standard error ``se`` the measurement must
    clear the bound by ``k·se`` (a one-sided test against noise: a direction shown, not a coin's side). On a
    paper claim whose quote states a value or a range it needs the ``reason`` the test is one-sided."""

    op: str
    value: float
    reason: str = ""
    se: float | None = None
    k: float = 2.0

    def problems(self) -> list[str]:
        """What makes this bound unusable ([] when none)."""
        if self.op not in _OPERATORS:
            return [f"Bound op={self.op!r} is not one of {', '.join(_OPERATORS)}"]
        found = [] if math.isfinite(self.value) else [f"Bound value {self.value!r} is not finite"]
        if (self.se is not None and self.se < 0) or self.k < 0:
            found.append("a Bound's se and k must be >= 0")
        return found

    def _edge(self) -> float:
        margin = self.k * self.se if self.se is not None else 0.0
        return self.value + margin if self.op in (">", ">=") else self.value - margin

    def describe(self) -> str:
        """The comparison as a person reads it."""
        text = f"{self.op} {_number(self.value)}"
        return text if self.se is None else f"{text} by {_number(self.k)} s.e. (s.e. {_measured(self.se)})"

    def check(self, measured: float) -> tuple[str, str]:
        """(outcome, reason) for a finite ``measured``."""
        if self.se is not None and not _finite_se(self.se):
            return NOT_MEASURED, "its standard error is NaN"
        edge = self._edge()
        held = {"<": measured < edge, "<=": measured <= edge, ">": measured > edge, ">=": measured >= edge}[self.op]
        if held:
            return HOLDS, ""
        return FAILS, f"{_measured(measured)} is not {self.op} {_measured(edge)}" + (
            "" if self.se is None else f" ({_number(self.value)} {'+' if self.op[0] == '>' else '−'} "
                                       f"{_number(self.k)} s.e.)")


Comparison = Range | Point | Bound


def states_a_value(quote: str) -> bool:
    """Whether the paper's words state a value or a range ("0.65–0.99", "≈ 1.0", "[0, 1]"), not a direction."""
    return bool(_STATES_A_VALUE.match(quote))


# --------------------------------------------------------------------------- claims


@dataclass(frozen=True)
class Claim:
    """One line of a notebook's conclusion, as logged in ``claims.json``."""

    id: str
    kind: str  # one of KINDS
    section: str  # the paper's section, equation or table
    statement: str  # what is measured, in full
    paper_value: str  # the paper's words: a short quote
    measured: float
    se: float  # the logged standard error of ``measured`` (NaN when none was given)
    comparison: str  # as a person reads it: "within 0.1 of 0.5", "in [0.44, 0.91]", "> 0"
    outcome: str  # one of OUTCOMES
    verdict: str  # one of VERDICTS: the outcome with why it failed or why it is not measured
    reason: str  # why it fails or is not measured; "" when it holds
    mechanism: str  # a failure's candidate cause in words (explains nothing unless a mechanism claim holds); ""
    power: dict | None  # claim_power.Power.record(side) or Exact.record(); None for sanity and citing claims
    comparison_reason: str  # why the comparison is this one: its tolerance's reason, or why a bound is one-sided
    cites: str  # "<notebook>:<claim id>" of the claim that owns this measurement, or ""
    explains: str = ""  # a mechanism claim: the ids of the failures it would explain, comma-separated
    explained_by: str = ""  # a failure explained: the mechanism claim that holds decisively and lists it
    setting: str = ""  # one of SETTINGS: measured on real models, on the paper's synthetic settings, or exact


#: The columns of a logged claims table: the notebook's paper, then the :class:`Claim` fields.
COLUMNS: list[str] = ["paper", *(f.name for f in fields(Claim))]


def _refusals(id: str, kind: str, section: str, paper_value: str, comparison: Any, cites: str) -> list[str]:
    if kind not in KINDS:
        return [f"kind={kind!r} is not a claim kind; allowed: {', '.join(KINDS)}"]
    if not isinstance(comparison, Range | Point | Bound):
        return [f"comparison={comparison!r} is not a Range, Point or Bound"]
    found = comparison.problems()
    if kind == "paper" and not (section.strip() and paper_value.strip()):
        found.append("a paper claim needs the paper's section and its words (paper_value)")
    if (kind == "paper" and isinstance(comparison, Bound) and not comparison.reason.strip()
            and states_a_value(paper_value)):
        found.append(f"the paper states {paper_value!r}, a value or range, and {comparison.describe()!r} tests one "
                     "side of it: compare with Point or Range, or give the Bound the reason the test is one-sided")
    if cites and not _CITATION.match(cites):
        found.append(f"cites={cites!r} is not '<notebook>:<claim id>'")
    return found


def cited_files(text: str) -> list[str]:
    """The logged files a sentence names (``diagnostics.parquet``, ``fits.json``): a failure's candidate cause
    and a reason cite what a reader can open."""
    return _LOGGED_FILE.findall(text)


def _failure(reason: str, cause: str, explained_by: str, mechanisms: str) -> tuple[str, str]:
    """(verdict, reason) of a decisive failure: explained when a mechanism claim that lists it holds decisively
    (``explained_by``); otherwise unexplained, with the candidate ``cause`` in words and the ``mechanisms`` that
    list it but did not hold."""
    if explained_by:
        return FAILS_EXPLAINED, reason
    told = f"; candidate cause, not measured as a mechanism: {cause.strip()}" if cause.strip() else ""
    tried = f"; its mechanism claim(s) did not hold decisively: {mechanisms}" if mechanisms else ""
    return FAILS_UNEXPLAINED, f"fails — unexplained: {reason}{told}{tried}"


def _no_power(found: claim_power.Power, would: tuple[str, str], decision: verdict.Decision,
              decisive_with: str) -> str:
    outcome, why = would
    value = f"the value would {'hold' if outcome == HOLDS else 'fail'}" + (f" ({why})" if why else "")
    if found.asserted(decision.side):
        shares = (f"its draws under {', '.join(found.asserted(decision.side))} are all equal, so the share a "
                  f"{decision.side} rests on is asserted, not estimated (a test with no random element is catalogued "
                  "exact, saying why)")
    elif decision.side == verdict.HOLD:
        shares = (f"a hold counts when every null holds ≤ {verdict.DECISIVE_IF_NULL:.0%} and the likelihood ratio "
                  f"p1/p0 ≥ {verdict.DECISIVE_RATIO:g}")
    else:
        shares = (f"a fail counts when the paper holds ≥ {verdict.DECISIVE_IF_PAPER:.0%} and the likelihood ratio "
                  f"(1 − p0)/(1 − p1) ≥ {verdict.DECISIVE_RATIO:g}")
    needs = f"; decisive with {decisive_with.strip()}" if decisive_with.strip() else ""
    return (f"no power at this scale: {value}, and the test {found.describe()} "
            f"({decision.describe()}; {shares}){needs}")


def claim(id: str, section: str, statement: str, paper_value: str, measured: float | None, comparison: Comparison,
          *, kind: str = "paper", undefined: str = "", needs_paper_profile: str = "", cites: str = "",
          se: float | None = None, power: claim_power.Power | claim_power.Exact | None = None,
          no_power: str = "", mechanism: str = "", explains: Iterable[str] = (), explained_by: str = "",
          mechanisms: str = "", decisive_with: str = "") -> Claim:
    """A :class:`Claim` whose outcome is ``comparison`` evaluated on ``measured``, weighed by its ``power``.

    ``needs_paper_profile``: why only the paper profile (its data or models) reaches this claim; ``undefined``: why
    the statistic is undefined on this run (a NaN or None ``measured`` with no sentence is undefined too, and
    said so). A paper, extension or mechanism claim that owns its measurement needs its ``power``
    (:mod:`lib.claim_power`), or ``no_power``, the sentence why none could be computed; an outcome that is not
    decisive (:mod:`lib.verdict`) reads "not measured, no power at this scale" with its shares, likelihood ratio
    and ``decisive_with``. A decisive failure is "fails, explained" when ``explained_by`` names a mechanism claim
    that lists it and holds decisively, else "fails, unexplained" with ``mechanism`` (its candidate cause in
    words) and ``mechanisms`` (the mechanism claims that list it but did not hold). ``explains``: a mechanism
    claim's targets. ``cites``: the ``"<notebook>:<claim id>"`` whose measurement this repeats; counted there.
    Raises :class:`ValueError` naming ``id`` for a contract the claim breaks (module docstring).
    """
    problems = _refusals(id, kind, section, paper_value, comparison, cites)
    value = math.nan if measured is None else float(measured)
    weighed = kind in WEIGHED_KINDS and not cites
    if weighed and power is None and not (needs_paper_profile.strip() or undefined.strip() or no_power.strip()
                                          or math.isnan(value)):
        problems.append(f"a {kind} claim needs its power (lib.claim_power): can it hold if the paper is right "
                        "and fail if the null is?")
    if kind == "mechanism" and not list(explains):
        problems.append("a mechanism claim lists the failures it explains (explains: [claim id, …])")
    if problems:
        raise ValueError(f"claim {id!r}: " + "; ".join(problems))
    decision = None
    if math.isfinite(value) and power is not None:
        outcome = comparison.check(value)[0]
        if outcome != NOT_MEASURED:
            decision = power.decision(verdict.HOLD if outcome == HOLDS else verdict.FAIL)
    if needs_paper_profile.strip():
        outcome, verdict_, reason = NOT_MEASURED, NEEDS_PAPER, needs_paper_profile.strip()
    elif undefined.strip():
        aside = f" (the value {_measured(value)} this run computed is set aside)" if math.isfinite(value) else ""
        outcome, verdict_, reason, value = NOT_MEASURED, UNDEFINED, undefined.strip() + aside, math.nan
        decision = None
    elif math.isnan(value):
        outcome, verdict_, reason = NOT_MEASURED, UNDEFINED, ("the statistic is undefined on this run and the "
                                                              "notebook gives no reason: unexplained")
    else:
        outcome, reason = comparison.check(value)
        verdict_ = outcome
        if weighed and power is None:
            outcome, verdict_, reason = NOT_MEASURED, NO_POWER, no_power.strip() or reason
        elif outcome == NOT_MEASURED:
            verdict_ = NO_POWER
        elif weighed and decision is not None and not decision.decisive:
            assert isinstance(power, claim_power.Power)  # Exact is always decisive
            outcome, verdict_, reason = NOT_MEASURED, NO_POWER, _no_power(power, (outcome, reason), decision,
                                                                          decisive_with)
        elif outcome == FAILS:
            verdict_, reason = _failure(reason, mechanism, explained_by, mechanisms)
    basis = comparison.reason if isinstance(comparison, Point | Bound) else ""
    side = None if decision is None else decision.side
    return Claim(id, kind, section, statement, paper_value, value, math.nan if se is None else float(se),
                 comparison.describe(), outcome, verdict_, reason, mechanism.strip() if outcome == FAILS else "",
                 power.record(side) if power is not None else None, basis.strip(), cites, ", ".join(explains),
                 explained_by if verdict_ == FAILS_EXPLAINED else "")


def records(claims: Iterable[Claim], paper: str) -> list[dict[str, Any]]:
    """The logged form of ``claims``: one dict per claim, under ``paper``; ids must be unique."""
    rows = [{"paper": paper, **asdict(c)} for c in claims]
    ids = [row["id"] for row in rows]
    if len(set(ids)) != len(ids):
        raise ValueError(f"claim ids must be unique, got {ids}")
    return rows


def power_text(power: Any) -> str:
    """A logged power record as a person reads it ("" for none)."""
    if not isinstance(power, Mapping):
        return ""
    if "exact" in power:
        return f"exact: {power['exact']}"
    nulls = power.get("nulls") or {power["null"]: power["if_null"]}
    text = f"holds {_share(power['if_paper'])} if the paper is right, " + ", ".join(
        f"{_share(p0)} if {null}" for null, p0 in nulls.items())
    if power.get("lr") is not None or "lr" in power:
        lr = "∞" if power.get("lr") is None else f"{power['lr']:.3g}"
        text += f"; LR {lr}" + (" (decisive)" if power.get("decisive") else " (not decisive)")
    return text


def _share(p: Any) -> str:
    """A logged share as a percentage ("n/a" for a share of no draws)."""
    try:
        return f"{float(p):.0%}" if math.isfinite(float(p)) else "n/a"
    except (TypeError, ValueError):
        return "n/a"


def _legacy_verdict(row: pd.Series) -> str:
    return {HOLDS: HOLDS, FAILS: FAILS_UNEXPLAINED}.get(row["outcome"], NO_POWER)


def frame(rows: Iterable[Mapping[str, Any]]) -> pd.DataFrame:
    """Logged claims as a table in :data:`COLUMNS` order, ``power`` as text (:func:`power_text`). Rows logged
    before outcomes existed (a boolean ``holds``, no kind) read as ``holds``, ``not measured`` (NaN) or ``fails``,
    kind ``paper``; rows logged before verdicts read a failure as unexplained and not measured as no power."""
    table = pd.DataFrame(list(rows))
    for column in COLUMNS:
        if column not in table:
            table[column] = math.nan if column in ("measured", "se") else ""
    table["kind"] = table["kind"].fillna("").replace("", "paper")
    table["explains"] = table["explains"].fillna("")
    table["explained_by"] = table["explained_by"].fillna("")
    table["setting"] = table["setting"].fillna("")
    legacy = table["outcome"].eq("") | table["outcome"].isna()
    if legacy.any() and "holds" in table:
        measured = pd.to_numeric(table["measured"], errors="coerce")
        old = table["holds"].astype(bool).map({True: HOLDS, False: FAILS}).where(measured.notna(), NOT_MEASURED)
        table.loc[legacy, "outcome"] = old[legacy]
    table["verdict"] = table["verdict"].replace(dict(LEGACY_VERDICTS))
    unjudged = table["verdict"].eq("") | table["verdict"].isna()
    if unjudged.any():
        table.loc[unjudged, "verdict"] = table[unjudged].apply(_legacy_verdict, axis=1)
    table["power"] = table["power"].map(power_text)
    table["measured"] = pd.to_numeric(table["measured"], errors="coerce")
    table["se"] = pd.to_numeric(table["se"], errors="coerce")
    return table[COLUMNS].fillna({c: "" for c in COLUMNS if c not in ("measured", "se")})


# --------------------------------------------------------------------------- evidence


@dataclass(frozen=True)
class Evidence:
    """What a closing cell passes for one catalogued claim: the measured ``value``, its logged standard error
    ``se`` (required when the catalogue widens the test by it, or draws the power from it), the statistic's draws
    ``if_paper`` and ``if_null`` when the catalogue's power is simulated (by resampling the run's own seeds or
    splits, or simulating the statistic at this run's size; arrays, or functions of the number of draws wanted so
    that a borderline share can be drawn again; ``if_null`` a mapping of each null's words to its draws when the
    catalogue lists several), a failure's candidate cause in words (``mechanism``: it explains nothing unless a
    mechanism claim measures it), ``undefined`` (why the statistic is undefined on this run, e.g. measured at a
    setting other than the paper's: the value is then set aside, and the reason says so), ``needs_data`` (the
    paper's data or models this run lacks, named), ``settings`` (the same statistic at each plausible value of a
    setting the paper does not state, ``unstated`` naming it: "n = 500" → its evidence; the claim holds only if it
    holds at every one, fails only if it fails at every one, and is otherwise undefined here with each outcome
    listed), ``sources`` (the s.e. each source of noise the catalogue names contributes, ``{"seeds": 0.01,
    "test_texts": 0.02}``: the engine adds them in variance into ``se`` and logs each one's share), and a ``note`` on
    this run's population appended to the catalogue's statement ("6 tasks, 3 seeds")."""

    value: float | None
    se: float | None = None
    if_paper: Any = None
    if_null: Any = None
    mechanism: str = ""
    undefined: str = ""
    needs_data: str = ""
    note: str = ""
    settings: Mapping[str, Evidence] = field(default_factory=dict)
    unstated: str = ""
    sources: Mapping[str, float] = field(default_factory=dict)


# --------------------------------------------------------------------------- counting


@dataclass(frozen=True)
class Count:
    """How the claims of one kind came out, in the six verdicts; a citing claim is counted at its owner."""

    held: int = 0
    failed_explained: int = 0
    failed_unexplained: int = 0
    no_power: int = 0
    needs_paper: int = 0
    undefined: int = 0
    cited: int = 0

    @property
    def failed(self) -> int:
        return self.failed_explained + self.failed_unexplained

    def __add__(self, other: Count) -> Count:
        return Count(*(getattr(self, f.name) + getattr(other, f.name) for f in fields(Count)))

    @property
    def not_measured(self) -> int:
        return self.no_power + self.needs_paper + self.undefined

    @property
    def measured(self) -> int:
        return self.held + self.failed

    def by_verdict(self) -> dict[str, int]:
        """The count of each of :data:`VERDICTS`."""
        return dict(zip(VERDICTS, (self.held, self.failed_explained, self.failed_unexplained, self.no_power,
                                   self.needs_paper, self.undefined), strict=True))

    def cell(self) -> str:
        """``held/measured``, with the unmeasured ones when there are any; ``-`` when there is nothing."""
        if not (self.measured or self.not_measured):
            return "-"
        return f"{self.held}/{self.measured}" + (f" +{self.not_measured} n.m." if self.not_measured else "")

    def sentence(self) -> str:
        """"3 of 5 measured hold (2 fail: 1 explained, 1 unexplained), 2 not measured (1 no power at this scale,
        1 needs the paper's data or models, 0 undefined here), 2 cited (counted at their owner)"."""
        text = f"{self.held} of {self.measured} measured hold"
        if self.failed:
            text += f" ({self.failed} fail: {self.failed_explained} explained, {self.failed_unexplained} unexplained)"
        if self.not_measured:
            text += (f", {self.not_measured} not measured ({self.no_power} no power at this scale, "
                     f"{self.needs_paper} needs the paper's data or models, {self.undefined} undefined here)")
        return text + (f", {self.cited} cited (counted at their owner)" if self.cited else "")


def counts(table: pd.DataFrame) -> dict[str, Count]:
    """The one counting function: per kind, the six verdicts, citing claims apart."""
    found = {}
    for kind in KINDS:
        rows = table[table["kind"] == kind]
        citing = rows["cites"].astype(str).ne("") if "cites" in rows else pd.Series(False, index=rows.index)
        verdicts = rows[~citing]["verdict"].value_counts()
        found[kind] = Count(*(int(verdicts.get(v, 0)) for v in VERDICTS), cited=int(citing.sum()))
    return found


def summary(table: pd.DataFrame) -> str:
    """One line per kind present: how its claims came out (:func:`counts`)."""
    lines = []
    for kind, count in counts(table).items():
        if count.measured or count.not_measured or count.cited:
            lines.append(f"{kind} claims ({KIND_NOTES[kind]}): {count.sentence()}")
    return "\n".join(lines)


# --------------------------------------------------------------------------- the closing cell


def _reason_cell(row: pd.Series) -> str:
    parts = [row["reason"]] if row["outcome"] != HOLDS and row["reason"] else []
    explained = row["verdict"] == FAILS_EXPLAINED
    parts += [f"explained by mechanism claim {row['explained_by']}"] if explained and row["explained_by"] else []
    parts += [f"mechanism: {row['mechanism']}"] if explained and row["mechanism"] else []
    parts += [f"explains {row['explains']}"] if row["explains"] else []
    parts += [f"cites {row['cites']} (counted there)"] if row["cites"] else []
    return "; ".join(parts)


def readable_table(table: pd.DataFrame) -> pd.DataFrame:
    """The columns a closing cell shows: full statement, the paper's words with their section, measured value,
    comparison, verdict, power and, for a failing or unmeasured row, its reason (a failure's mechanism too)."""
    shown = pd.DataFrame({
        "id": table["id"], "kind": table["kind"], "statement": table["statement"],
        "paper says": table["paper_value"] + " (" + table["section"] + ")",
        "measured": table["measured"], "comparison": table["comparison"], "verdict": table["verdict"],
        "power": table["power"],
        "reason": table.apply(_reason_cell, axis=1) if len(table) else pd.Series(dtype=str),
    })
    return shown.reset_index(drop=True)


def _width(width: int | None) -> int:
    """``width``, else the terminal's (or ``COLUMNS``; 100 without either); at least 40."""
    return max(40, width or shutil.get_terminal_size((100, 24)).columns)


def _filled(text: str) -> str:
    """Each line of ``text`` wrapped to :func:`_width`, continued under an indent."""
    return "\n".join(textwrap.fill(line, _width(None), subsequent_indent="    ") for line in text.splitlines())


def claims_text(table: pd.DataFrame, width: int | None = None) -> str:
    """:func:`readable_table` as plain text within ``width`` columns (the terminal's, or ``COLUMNS``; 100 without
    either): per claim a line of id, kind, outcome, measured value and comparison, then its statement, the
    paper's words and any reason, each wrapped under its label."""
    width, lines = _width(width), []
    shown = readable_table(table)
    shown["measured"] = pd.to_numeric(shown["measured"], errors="coerce")
    for row in shown.to_dict("records"):
        measured = [f"measured {_measured(row['measured'])}"] if math.isfinite(row["measured"]) else []
        head = " · ".join([row["id"], row["kind"], row["verdict"], *measured, row["comparison"]])
        lines += textwrap.wrap(head, width, subsequent_indent="    ", break_on_hyphens=False)
        for label in ("statement", "paper says", "power", "reason"):
            if text := str(row[label]).strip():
                lines += textwrap.wrap(text, width, initial_indent=f"    {label:<11}", subsequent_indent=" " * 15,
                                       break_on_hyphens=False)
    return "\n".join(lines)


class _ClaimsView:
    """The closing cell's claims: the full table as HTML in a notebook, :func:`claims_text` as plain text (a
    batch's log, a terminal), where a frame's text would be one line of hundreds of columns per claim."""

    def __init__(self, table: pd.DataFrame) -> None:
        self.table = table

    def __repr__(self) -> str:
        return claims_text(self.table)

    def _repr_html_(self) -> str:
        with pd.option_context("display.max_colwidth", None, "display.max_rows", None):
            return readable_table(self.table)._repr_html_()


def show_claims(table: pd.DataFrame, profile: str) -> None:
    """Render a notebook's logged claims (:class:`_ClaimsView`), then their counts and, under ``smoke``,
    the note that the numbers mean nothing, wrapped to the terminal."""
    try:
        from IPython.display import display
    except ImportError:  # outside a notebook
        print(claims_text(table))
    else:
        display(_ClaimsView(table))
    print(_filled(summary(table)))
    if profile == "smoke":
        print(_filled(SMOKE_NOTE))
