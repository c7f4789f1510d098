"""The synthetic factor world of paper 002, App. A.3.3 (Eq. 45–48, Lemma 4, Proposition 5, Table 35).

Each example draws 32 independent fair factors z ∈ {0, 1}³² and shows them as 32 observation tokens
o(j, z_j) in a uniformly random order, then 12 distinct queries drawn without replacement from a pool
of 50, each followed by its answer (Eq. 46):

    BOS  o(σ₁, z_σ₁) … o(σ₃₂, z_σ₃₂)  SEP  q₁ a₁ … q₁₂ a₁₂          (1 + 32 + 1 + 24 = 58 tokens)

The vocabulary (118 tokens) is laid out as BOS = 0, SEP = 1, the answer tokens ⟨a₀⟩ = 2 and ⟨a₁⟩ = 3,
the observation tokens o(j, v) = 4 + 2j + v (j = 0…31 in code), and the query tokens 68 + q for the pool
index q. The pool holds the 32 factor queries (q = j, answer z_j) and 18 aggregate queries: one
*target* and one *control* for each of nine families (threshold over 2, 4, 8, 16 factors, conjunction
over 2 and 4, parity over 2, 4, 8; Eq. 47):

    threshold  1[Σ_{j∈S} z_j ≥ |S|/2],   conjunction  ∏_{j∈S} z_j,   parity  Σ_{j∈S} z_j mod 2.

Targets are answered with their true value, controls with a fresh fair bit per occurrence; a probe
always labels the true aggregate. A measurement sequence is the 35-token prefix BOS … SEP q ending at
one query token (the answer is not shown).

Table 35 (the factor subsets) was lost in the text extraction and is rebuilt here (:data:`TABLE_35`,
in the paper's numbering of factors 1…32; code indices are one less). The constraints the text states
are kept exactly: target and control of a family have equal sizes (Lemma 4); the eight-factor
threshold target covers factors 12–19 and its control 16–23 (sharing 16–19, the overlap control of
A.3.4); the sixteen-factor threshold control contains both conjunction targets. Everything else was
drawn once with ``numpy.random.default_rng(35)`` and then written out as literals: the conjunction
targets (disjoint), ten further factors completing the sixteen-factor threshold control, whose target is
then its complement (a control is kept disjoint from its own family's target everywhere except the
overlap pair, so that the overlap pair is the only one sharing inputs within a family), and the
remaining targets and controls uniformly at random. Chance intersections across families remain (the
four-parity control contains the two-parity target, for example), as the paper says of its own table.
Equations 45–48 were lost too; their content is restated from the prose and the proofs of Lemma 4 and
Proposition 5.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
from scipy import stats as sps

N_FACTORS = 32  #: binary factors per example (A.3.3)
N_SLOTS = 12  #: query–answer pairs per training sequence (Eq. 46)
BOS, SEP, ANSWER0, ANSWER1 = 0, 1, 2, 3  #: special tokens and the two answer tokens
OBSERVATION0 = 4  #: o(j, v) = OBSERVATION0 + 2j + v
QUERY0 = OBSERVATION0 + 2 * N_FACTORS  #: the token of pool query q is QUERY0 + q
FAMILIES: tuple[tuple[str, int], ...] = (
    ("threshold", 2), ("threshold", 4), ("threshold", 8), ("threshold", 16),
    ("conjunction", 2), ("conjunction", 4), ("parity", 2), ("parity", 4), ("parity", 8),
)  #: the nine function families (A.3.3, "Query pool")
ROLES = ("target", "control")
FUNCTIONS = ("threshold", "conjunction", "parity")
N_QUERIES = N_FACTORS + len(ROLES) * len(FAMILIES)  #: 50
VOCAB_SIZE = QUERY0 + N_QUERIES  #: 4 + 64 + 50 = 118
PREFIX_LEN = 1 + N_FACTORS + 1 + 1  #: 35: BOS, observations, SEP, one query
SEQ_LEN = 1 + N_FACTORS + 1 + 2 * N_SLOTS  #: 58
#: Token positions of the answers a₁…a₁₂ in a training sequence; the logits one position earlier predict them.
ANSWER_POSITIONS: tuple[int, ...] = tuple(N_FACTORS + 3 + 2 * i for i in range(N_SLOTS))

#: Table 35 (rebuilt; see the module docstring): (function, |S|, role) → factors, numbered 1…32 as in the paper.
TABLE_35: dict[tuple[str, int, str], tuple[int, ...]] = {
    ("threshold", 2, "target"): (2, 28),
    ("threshold", 2, "control"): (1, 24),
    ("threshold", 4, "target"): (4, 12, 18, 31),
    ("threshold", 4, "control"): (3, 5, 10, 14),
    ("threshold", 8, "target"): (12, 13, 14, 15, 16, 17, 18, 19),
    ("threshold", 8, "control"): (16, 17, 18, 19, 20, 21, 22, 23),
    ("threshold", 16, "target"): (2, 4, 5, 6, 9, 12, 13, 15, 16, 18, 19, 20, 26, 28, 29, 31),
    ("threshold", 16, "control"): (1, 3, 7, 8, 10, 11, 14, 17, 21, 22, 23, 24, 25, 27, 30, 32),
    ("conjunction", 2, "target"): (24, 32),
    ("conjunction", 2, "control"): (8, 22),
    ("conjunction", 4, "target"): (3, 10, 14, 30),
    ("conjunction", 4, "control"): (17, 24, 28, 29),
    ("parity", 2, "target"): (10, 23),
    ("parity", 2, "control"): (5, 18),
    ("parity", 4, "target"): (4, 11, 24, 31),
    ("parity", 4, "control"): (10, 15, 19, 23),
    ("parity", 8, "target"): (1, 3, 7, 8, 17, 20, 24, 25),
    ("parity", 8, "control"): (9, 10, 12, 14, 15, 23, 26, 28),
}


def label_rate(function: str, size: int) -> float:
    """P(g(z) = 1) for fair independent factors: paper 002, A.3.3, Lemma 4 (Eq. 48, restated from its proof).

    The label depends on S only through Σ_{j∈S} z_j ~ Binomial(|S|, ½): threshold P(Bin ≥ |S|/2)
    (½ + C(|S|, |S|/2)/2^{|S|+1} for even |S|: ties count as 1), conjunction 2^{−|S|}, parity ½.
    """
    if function not in FUNCTIONS:
        raise ValueError(f"function={function!r} is unknown; allowed: {', '.join(FUNCTIONS)}")
    if isinstance(size, bool) or not isinstance(size, (int, np.integer)) or size < 1:
        raise ValueError(f"size={size!r} is out of range; allowed: an integer >= 1")
    if function == "threshold":
        return float(sps.binom.sf(math.ceil(size / 2) - 1, size, 0.5))
    if function == "conjunction":
        return 0.5 ** int(size)
    return 0.5


def aggregate(function: str, sums: np.ndarray, size: int) -> np.ndarray:
    """g(z) from s = Σ_{j∈S} z_j (Eq. 47): threshold 1[s ≥ |S|/2], conjunction 1[s = |S|], parity s mod 2."""
    sums = np.asarray(sums)
    if function == "threshold":
        return (2 * sums >= size).astype(np.int8)
    if function == "conjunction":
        return (sums == size).astype(np.int8)
    if function == "parity":
        return (sums % 2).astype(np.int8)
    raise ValueError(f"function={function!r} is unknown; allowed: {', '.join(FUNCTIONS)}")


def loss_infimum(n_controls: int = len(FAMILIES), n_queries: int = N_QUERIES) -> float:
    """(9/50)·log 2: the infimum of the expected answer loss of Eq. 49 (paper 002, A.3.3, Proposition 5).

    Control answers are fresh fair bits, so each control position costs at least log 2; every other
    answer is a function of the prefix and its loss can be driven to zero; 9 of the 50 queries are controls.
    """
    return n_controls / n_queries * math.log(2.0)


#: Aggregate targets the paper's trained models do not learn (A.3.4, Result: "Four- and eight-factor parity
#: targets fail the readability gate", in every model); answering one at chance costs log 2 per position.
UNLEARNED_TARGETS: tuple[str, ...] = ("parity4_target", "parity8_target")


def attainable_loss() -> float:
    """(11/50)·log 2: the answer loss of a model that learns every query the paper's models learn.

    Proposition 5's infimum (:func:`loss_infimum`) assumes every non-control answer is learned, yet the
    paper's own models leave :data:`UNLEARNED_TARGETS` at chance; each then costs log 2, like a control. A
    convergence margin is measured from this loss, so that it can be reached by a model trained as well as the
    paper's (derived here from Proposition 5's proof and A.3.4; the paper states no convergence margin).
    """
    return loss_infimum(n_controls=len(FAMILIES) + len(UNLEARNED_TARGETS))


def binary_entropy(rate: float) -> float:
    """H(r) = −r·log r − (1 − r)·log(1 − r) in nats (0 at r = 0 or 1)."""
    return -sum(p * math.log(p) for p in (rate, 1.0 - rate) if p > 0)


@dataclass(frozen=True)
class Query:
    """One query of the pool: ``index`` q (token QUERY0 + q); ``role`` "factor", "target" or "control";
    ``function`` "factor" or an aggregate; ``factors``: 0-based indices of S."""

    index: int
    name: str
    role: str
    function: str
    factors: tuple[int, ...]

    @property
    def size(self) -> int:
        return len(self.factors)

    @property
    def token(self) -> int:
        return QUERY0 + self.index

    @property
    def learnable(self) -> bool:
        """A factor, or a target the paper's models learn (every target but :data:`UNLEARNED_TARGETS`, A.3.4)."""
        return self.role == "factor" or (self.role == "target" and self.name not in UNLEARNED_TARGETS)

    @property
    def rate(self) -> float:
        """P(g_q(z) = 1): ½ for a factor, Lemma 4's :func:`label_rate` for an aggregate."""
        return 0.5 if self.role == "factor" else label_rate(self.function, self.size)

    @property
    def chance_cost(self) -> float:
        """The expected answer loss at a position of this query answered at its label rate, without reading the
        prefix: H(rate) nats (A.3.3, Proposition 5's proof: an answer the model does not compute costs at least the
        entropy of its label; a control's fresh fair bit costs log 2 whatever the model does)."""
        return binary_entropy(self.rate)


@dataclass(frozen=True)
class Batch:
    """Training sequences (Eq. 46): ``tokens`` (n, 58); ``factors`` z (n, 32); ``queries`` pool indices
    (n, 12); ``answers`` the answer bits shown (fresh bits for controls); ``truth`` the true g_q(z)."""

    tokens: np.ndarray
    factors: np.ndarray
    queries: np.ndarray
    answers: np.ndarray
    truth: np.ndarray


@dataclass(frozen=True)
class ProbeSet:
    """Measurement prefixes (A.3.3): ``tokens`` (queries, n, 35), one 35-token prefix per query sharing z and
    the order; ``labels`` (queries, n) the true aggregates; ``queries`` the pool indices probed."""

    tokens: np.ndarray
    labels: np.ndarray
    queries: tuple[int, ...]


Subsets = Mapping[tuple[str, int, str], Sequence[int]]


def _check_subsets(subsets: Subsets) -> dict[tuple[str, int, str], tuple[int, ...]]:
    expected = {(f, s, r) for f, s in FAMILIES for r in ROLES}
    unknown = sorted(set(subsets) - expected, key=str)
    if unknown:
        raise ValueError(f"subsets has the keys {unknown}; allowed: (function, size, role) of {list(FAMILIES)} "
                         f"× {ROLES}")
    missing = sorted(expected - set(subsets), key=str)
    if missing:
        raise ValueError(f"subsets lacks the keys {missing}: every family needs a target and a control")
    out = {}
    for key in sorted(expected, key=lambda k: (FAMILIES.index(k[:2]), ROLES.index(k[2]))):
        factors = tuple(subsets[key])
        bad = [j for j in factors if isinstance(j, bool) or not isinstance(j, (int, np.integer))
               or not 1 <= j <= N_FACTORS]
        if bad:
            raise ValueError(f"subsets[{key}] holds {bad}; allowed: factor numbers 1…{N_FACTORS}")
        if len(set(factors)) != len(factors):
            raise ValueError(f"subsets[{key}] = {factors} repeats a factor; allowed: distinct factors")
        if len(factors) != key[1]:
            raise ValueError(f"subsets[{key}] = {factors} has {len(factors)} factors; allowed: exactly {key[1]} "
                             "(target and control of a family have equal sizes, Lemma 4)")
        out[key] = tuple(sorted(int(j) for j in factors))
    for function, size in FAMILIES:
        if out[(function, size, "target")] == out[(function, size, "control")]:
            raise ValueError(f"subsets of {function} {size}: target and control are both "
                             f"{out[(function, size, 'target')]}; allowed: different subsets")
    return out


class FactorWorld:
    """The synthetic world of paper 002, App. A.3.3: sampling of training and measurement sequences.

    ``subsets``: (function, size, role) → factor numbers 1…32 for the 18 aggregate queries
    (default: the rebuilt :data:`TABLE_35`). A subset of the wrong size, with a repeated or
    out-of-range factor, a missing or unknown key, or a control equal to its target raises ValueError.
    """

    def __init__(self, subsets: Subsets | None = None) -> None:
        self.subsets = _check_subsets(TABLE_35 if subsets is None else subsets)
        queries = [Query(j, f"factor{j + 1}", "factor", "factor", (j,)) for j in range(N_FACTORS)]
        for (function, size, role), factors in self.subsets.items():
            queries.append(Query(len(queries), f"{function}{size}_{role}", role, function,
                                 tuple(j - 1 for j in factors)))
        self.queries: tuple[Query, ...] = tuple(queries)
        aggregates = queries[N_FACTORS:]
        self._membership = np.zeros((N_FACTORS, len(aggregates)), dtype=np.int16)
        for col, query in enumerate(aggregates):
            self._membership[list(query.factors), col] = 1
        self._is_control = np.array([q.role == "control" for q in queries])
        self._unlearnable = np.array([not q.learnable for q in queries])

    def query(self, name: str | int) -> Query:
        """The pool query with this name (``"threshold8_target"``, ``"factor3"``) or index."""
        if isinstance(name, (int, np.integer)) and not isinstance(name, bool) and 0 <= name < N_QUERIES:
            return self.queries[int(name)]
        for query in self.queries:
            if query.name == name:
                return query
        raise ValueError(f"query {name!r} is not in the pool; allowed: an index 0…{N_QUERIES - 1} or one of "
                         f"{[q.name for q in self.queries]}")

    def attainable_loss_on(self, batch: Batch) -> float:
        """The answer loss attainable on ``batch`` by a model that learns every learnable query: log 2 at each
        position of a control or an unlearned target, zero elsewhere (:func:`attainable_loss` is its expectation,
        (11/50)·log 2; a set's own share of those positions differs from 11/50 by its sampling noise)."""
        return float(self._unlearnable[batch.queries].mean() * math.log(2.0))

    def truth(self, factors: np.ndarray) -> np.ndarray:
        """g_q(z) of every pool query (n, 50): the factors themselves, then the 18 aggregates (Eq. 47)."""
        factors = np.asarray(factors)
        sums = factors.astype(np.int16) @ self._membership
        columns = [aggregate(q.function, sums[:, i], q.size) for i, q in enumerate(self.queries[N_FACTORS:])]
        return np.concatenate([factors.astype(np.int8), np.stack(columns, axis=1)], axis=1)

    @staticmethod
    def _observations(rng: np.random.Generator, n: int) -> tuple[np.ndarray, np.ndarray]:
        """z (n, 32) and the 34 tokens BOS o(σ₁, z_σ₁) … o(σ₃₂, z_σ₃₂) SEP, σ uniform per row."""
        factors = rng.integers(0, 2, size=(n, N_FACTORS), dtype=np.int8)
        order = np.argsort(rng.random((n, N_FACTORS)), axis=1)
        shown = OBSERVATION0 + 2 * order + np.take_along_axis(factors, order, axis=1)
        tokens = np.empty((n, N_FACTORS + 2), dtype=np.int64)
        tokens[:, 0], tokens[:, -1], tokens[:, 1:-1] = BOS, SEP, shown
        return factors, tokens

    def sample(self, rng: np.random.Generator, n: int) -> Batch:
        """``n`` fresh training sequences (Eq. 46), vectorised over sequences.

        Queries: 12 distinct of 50 per row (the first 12 of a uniform random permutation); answers:
        the true value, except a fresh fair bit wherever the query is a control.
        """
        if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 1:
            raise ValueError(f"n={n!r} is out of range; allowed: an integer >= 1")
        factors, head = self._observations(rng, n)
        queries = np.argsort(rng.random((n, N_QUERIES)), axis=1)[:, :N_SLOTS]
        truth = np.take_along_axis(self.truth(factors), queries, axis=1)
        fresh = rng.integers(0, 2, size=(n, N_SLOTS), dtype=np.int8)
        answers = np.where(self._is_control[queries], fresh, truth).astype(np.int8)
        tokens = np.empty((n, SEQ_LEN), dtype=np.int64)
        tokens[:, : N_FACTORS + 2] = head
        tokens[:, N_FACTORS + 2 :: 2] = QUERY0 + queries
        tokens[:, N_FACTORS + 3 :: 2] = ANSWER0 + answers
        return Batch(tokens, factors, queries, answers, truth)

    def probe_set(self, rng: np.random.Generator, n: int, queries: Sequence[str | int]) -> ProbeSet:
        """``n`` fresh measurement prefixes per query (35 tokens ending at the query, A.3.3), labelled by the
        true aggregate (controls too); all queries share the same z and observation order."""
        if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 1:
            raise ValueError(f"n={n!r} is out of range; allowed: an integer >= 1")
        chosen = [self.query(q) for q in queries]
        if not chosen:
            raise ValueError("queries is empty; allowed: one or more pool queries")
        factors, head = self._observations(rng, n)
        truth = self.truth(factors)
        tokens = np.empty((len(chosen), n, PREFIX_LEN), dtype=np.int64)
        tokens[:, :, :-1] = head
        tokens[:, :, -1] = np.array([q.token for q in chosen])[:, None]
        labels = np.stack([truth[:, q.index] for q in chosen])
        return ProbeSet(tokens, labels, tuple(q.index for q in chosen))
