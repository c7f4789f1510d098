"""The probing companion's library: a flat shared core, a models wing and one package per paper (docs/ARCHITECTURE.md).

Core: ``config`` and ``parameters`` (typed notebook parameters, profiles, one-line errors before compute),
``defaults`` (the copies written from the schemas), ``paths``, ``files``, ``results`` (logged results and their
manifests), ``sources`` (code keys), ``runner`` (papermill batches), ``parallel``, ``progress``, ``probes``,
``stats``, ``uncertainty``, ``plotting``, ``wheels``; the claims: ``claims`` (the contract and the six verdicts),
``claim_catalogue`` (each notebook's pre-registered claims), ``claim_power``, ``claim_changes``, ``scoreboard``;
the reader's side: ``report``, ``mathml``, ``captions``, ``publish``, ``published``, ``readme``, ``lab``; and
``papers``, which discovers the paper packages by their plugin records, with ``__main__`` the command line. The
models wing, ``lib.models``: the registry (one ``ModelSpec`` row per model it names), converters, the hub, loading,
architecture facts from ``config.json``, layers by name, hidden states and their cache, training precision.
Papers: ``bias_probes`` (000), ``bias_shift`` (001), ``kstar`` (002), each with its schemas, its notebooks' claims
catalogues under ``claims/`` and its command-line commands. The core never imports a paper (it finds them through
``papers``), and papers never import each other.
"""

import sys as _sys

# jsonschema's optional IRI format checker, rfc3987_syntax (installed by jupyter-events' jsonschema extra), builds a
# Lark grammar when imported: about 1.3 s of CPU in every process that imports nbformat (papermill, the runner,
# publish), nine tenths of that import (benchmarks/bench_imports.py). No schema validated here has an "iri" field
# (nbformat's notebook schema has none), so the module is left unloaded in processes that import this package, and
# jsonschema skips that format as it does where the package is absent.
_sys.modules.setdefault("rfc3987_syntax", None)

from lib.parallel import configure_threads as _configure_threads  # noqa: E402

_configure_threads()  # the thread policy is fixed before any module loads torch or BLAS
