"""The claims contract: what a notebook's closing cell states, how each statement is tested, how it is counted.

A claim is one line of a notebook's conclusion (:func:`claim`), logged by ``run.record_claims`` into
``results/<profile>/<notebook>/claims.json`` under the notebook's paper and shown by :func:`show_claims`.

Kinds
    ``paper``: a value or statement the paper makes, quoted (``paper_value``) with its section, tested as the
    paper states it. Only these count as reproduction. ``extension``: beyond the paper (the project's own
    derivations, settings the paper leaves open, controls); reported, never counted as reproduction.
    ``sanity``: true by construction, or arithmetic on the paper's own numbers.

Outcomes and verdicts
    ``holds``, ``fails`` or ``not measured``, each told apart in one of five verdicts (:data:`VERDICTS`): holds ·
    fails, explained · fails, unexplained · not measured, no power at this scale · not measured, needs the paper
    profile. A paper or extension claim is weighed by its power (:mod:`lib.claim_power`): a test that cannot both
    hold if the paper is right and fail if its null is reads "not measured, no power at this scale", with both
    shares and what would make it decisive. A failure is explained when its mechanism names a diagnostic the
    notebook logged. A NaN measured value is not measured, never a failure; so is a claim given
    ``not_measured="reason"`` (a sentence about the setting) or ``needs_paper_profile="reason"``.

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
from dataclasses import asdict, dataclass, fields
from typing import Any

import pandas as pd

from lib import claim_power

#: Claim kinds; only ``paper`` claims count as reproduction.
KINDS: tuple[str, ...] = ("paper", "extension", "sanity")
HOLDS, FAILS, NOT_MEASURED = "holds", "fails", "not measured"
#: Outcomes of a claim.
OUTCOMES: tuple[str, ...] = (HOLDS, FAILS, NOT_MEASURED)
FAILS_EXPLAINED, FAILS_UNEXPLAINED = "fails, explained", "fails, unexplained"
NO_POWER, NEEDS_PAPER = "not measured, no power at this scale", "not measured, needs the paper profile"
#: The five verdicts a claim is counted in.
VERDICTS: tuple[str, ...] = (HOLDS, FAILS_EXPLAINED, FAILS_UNEXPLAINED, NO_POWER, NEEDS_PAPER)
#: Kinds whose tests must carry their power: the reproduction and the project's own reported claims.
WEIGHED_KINDS: tuple[str, ...] = ("paper", "extension")
#: What each kind is, as the summaries say it.
KIND_NOTES: Mapping[str, str] = {
    "paper": "the paper's values and statements: reproduction",
    "extension": "beyond the paper: reported, not counted as reproduction",
    "sanity": "true by construction or arithmetic on the paper's numbers: not counted as reproduction",
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
    mechanism: str  # what makes a failure fail, citing a logged diagnostic; "" otherwise
    power: dict | None  # claim_power.Power.record() or Exact.record(); None for sanity and citing claims
    comparison_reason: str  # why the comparison is this one: its tolerance's reason, or why a bound is one-sided
    cites: str  # "<notebook>:<claim id>" of the claim that owns this measurement, or ""


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


def cited_files(mechanism: str) -> list[str]:
    """The logged files a mechanism names (``diagnostics.parquet``, ``fits.json``)."""
    return _LOGGED_FILE.findall(mechanism)


def _failure(kind: str, reason: str, mechanism: str) -> tuple[str, str]:
    """(verdict, reason) of a failing claim: explained when its mechanism names a logged diagnostic."""
    if mechanism.strip() and cited_files(mechanism):
        return FAILS_EXPLAINED, reason
    told = "" if not mechanism.strip() else " (its mechanism cites no logged diagnostic)"
    return FAILS_UNEXPLAINED, f"fails — unexplained{told}: {reason}"


def _no_power(found: claim_power.Power, would: tuple[str, str], decisive_with: str) -> str:
    outcome, why = would
    value = f"the value would {'hold' if outcome == HOLDS else 'fail'}" + (f" ({why})" if why else "")
    needs = f"; decisive with {decisive_with.strip()}" if decisive_with.strip() else ""
    return (f"no power at this scale: the test {found.describe()} (decisive needs ≥ "
            f"{claim_power.DECISIVE_IF_PAPER:.0%} and ≤ {claim_power.DECISIVE_IF_NULL:.0%}); {value}{needs}")


def claim(id: str, section: str, statement: str, paper_value: str, measured: float | None, comparison: Comparison,
          *, kind: str = "paper", not_measured: str = "", needs_paper_profile: str = "", cites: str = "",
          se: float | None = None, power: claim_power.Power | claim_power.Exact | None = None,
          mechanism: str = "", decisive_with: str = "") -> Claim:
    """A :class:`Claim` whose outcome is ``comparison`` evaluated on ``measured``, weighed by its ``power``.

    ``needs_paper_profile``: why only the paper profile reaches this claim (not measured, counted apart);
    ``not_measured``: a sentence about the setting that leaves it unmeasured at this run's scale; a NaN or None
    ``measured`` is not measured as well. A paper or extension claim that owns its measurement needs its
    ``power`` (:mod:`lib.claim_power`): a test that is not decisive reads "not measured, no power at this scale"
    with both shares and ``decisive_with`` (what would make it decisive). A failing claim is "fails, explained"
    when ``mechanism`` names a logged diagnostic file, else "fails, unexplained".
    ``cites``: the ``"<notebook>:<claim id>"`` whose measurement this repeats; counted there, not here.
    Raises :class:`ValueError` naming ``id`` for a contract the claim breaks (module docstring).
    """
    problems = _refusals(id, kind, section, paper_value, comparison, cites)
    value = math.nan if measured is None else float(measured)
    weighed = kind in WEIGHED_KINDS and not cites
    if weighed and power is None and not (needs_paper_profile.strip() or not_measured.strip() or math.isnan(value)):
        problems.append(f"a {kind} claim needs its power (lib.claim_power): can it hold if the paper is right "
                        "and fail if the null is?")
    if problems:
        raise ValueError(f"claim {id!r}: " + "; ".join(problems))
    if needs_paper_profile.strip():
        outcome, verdict, reason = NOT_MEASURED, NEEDS_PAPER, needs_paper_profile.strip()
    elif not_measured.strip():
        outcome, verdict, reason = NOT_MEASURED, NO_POWER, not_measured.strip()
    elif math.isnan(value):
        outcome, verdict, reason = NOT_MEASURED, NO_POWER, ("the statistic is undefined on this run and the "
                                                            "notebook gives no reason: unexplained")
    else:
        outcome, reason = comparison.check(value)
        verdict = outcome
        if weighed and power is not None and not power.decisive:
            outcome, verdict, reason = NOT_MEASURED, NO_POWER, _no_power(power, (outcome, reason), decisive_with)
        elif outcome == NOT_MEASURED:
            verdict = NO_POWER
        elif outcome == FAILS:
            verdict, reason = _failure(kind, reason, mechanism)
    basis = comparison.reason if isinstance(comparison, Point | Bound) else ""
    return Claim(id, kind, section, statement, paper_value, value, math.nan if se is None else float(se),
                 comparison.describe(), outcome, verdict, reason, mechanism.strip() if outcome == FAILS else "",
                 power.record() if power is not None else None, basis.strip(), cites)


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
    return claim_power.Power(power["if_paper"], power["if_null"], power["null"]).describe()


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
    legacy = table["outcome"].eq("") | table["outcome"].isna()
    if legacy.any() and "holds" in table:
        measured = pd.to_numeric(table["measured"], errors="coerce")
        old = table["holds"].astype(bool).map({True: HOLDS, False: FAILS}).where(measured.notna(), NOT_MEASURED)
        table.loc[legacy, "outcome"] = old[legacy]
    unjudged = table["verdict"].eq("") | table["verdict"].isna()
    if unjudged.any():
        table.loc[unjudged, "verdict"] = table[unjudged].apply(_legacy_verdict, axis=1)
    table["power"] = table["power"].map(power_text)
    table["se"] = pd.to_numeric(table["se"], errors="coerce")
    return table[COLUMNS].fillna({c: "" for c in COLUMNS if c not in ("measured", "se")})


# --------------------------------------------------------------------------- evidence


@dataclass(frozen=True)
class Evidence:
    """What a closing cell passes for one catalogued claim: the measured ``value``, its logged standard error
    ``se`` (required when the catalogue widens the test by it, or draws the power from it), the statistic's draws
    ``if_paper`` and ``if_null`` when the catalogue's power is simulated (by resampling the run's own seeds or
    splits, or simulating the statistic at this run's size), the ``mechanism`` of a failure in a sentence citing
    a logged diagnostic file, ``not_measured`` (a sentence about the setting that leaves it unmeasured), and a
    ``note`` on this run's population appended to the catalogue's statement ("6 tasks, 3 seeds")."""

    value: float | None
    se: float | None = None
    if_paper: Any = None
    if_null: Any = None
    mechanism: str = ""
    not_measured: str = ""
    note: str = ""


# --------------------------------------------------------------------------- counting


@dataclass(frozen=True)
class Count:
    """How the claims of one kind came out, in the five verdicts; a citing claim is counted at its owner."""

    held: int = 0
    failed_explained: int = 0
    failed_unexplained: int = 0
    no_power: int = 0
    needs_paper: int = 0
    cited: int = 0

    @property
    def failed(self) -> int:
        return self.failed_explained + self.failed_unexplained

    def __add__(self, other: Count) -> Count:
        return Count(*(getattr(self, f.name) + getattr(other, f.name) for f in fields(Count)))

    @property
    def not_measured(self) -> int:
        return self.no_power + self.needs_paper

    @property
    def measured(self) -> int:
        return self.held + self.failed

    def by_verdict(self) -> dict[str, int]:
        """The count of each of :data:`VERDICTS`."""
        return dict(zip(VERDICTS, (self.held, self.failed_explained, self.failed_unexplained, self.no_power,
                                   self.needs_paper), strict=True))

    def cell(self) -> str:
        """``held/measured``, with the unmeasured ones when there are any; ``-`` when there is nothing."""
        if not (self.measured or self.not_measured):
            return "-"
        return f"{self.held}/{self.measured}" + (f" +{self.not_measured} n.m." if self.not_measured else "")

    def sentence(self) -> str:
        """"3 of 5 measured hold (2 fail: 1 explained, 1 unexplained), 2 not measured (1 no power at this scale,
        1 needs the paper profile), 2 cited (counted at their owner)"."""
        text = f"{self.held} of {self.measured} measured hold"
        if self.failed:
            text += f" ({self.failed} fail: {self.failed_explained} explained, {self.failed_unexplained} unexplained)"
        if self.not_measured:
            text += (f", {self.not_measured} not measured ({self.no_power} no power at this scale, "
                     f"{self.needs_paper} needs the paper profile)")
        return text + (f", {self.cited} cited (counted at their owner)" if self.cited else "")


def counts(table: pd.DataFrame) -> dict[str, Count]:
    """The one counting function: per kind, the five verdicts, citing claims apart."""
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
    parts += [f"mechanism: {row['mechanism']}"] if row["outcome"] == FAILS and row["mechanism"] else []
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
