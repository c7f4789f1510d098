"""The probing companion's library: a flat shared core plus one package per paper (see docs/ARCHITECTURE.md).

Core: config, parameters, schemas (the registry index), paths, results, plotting, parallel, runner, stats,
features, probes, wheels, files, sources, progress, report, mathml, captions, lab. Papers: ``bias_probes``
(000), ``bias_shift`` (001), ``kstar`` (002); the core never imports a paper (except the registry index and
the command line in ``__main__``), and papers never import each other.
"""

from lib.parallel import configure_threads as _configure_threads

_configure_threads()  # the thread policy is fixed before any module loads torch or BLAS
