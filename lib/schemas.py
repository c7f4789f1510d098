"""The registry index: every notebook's parameter schema, gathered from the paper packages.

The one place where the core names the papers (besides the command line in ``__main__``):
importing a paper's ``schemas`` module registers its notebooks in
:data:`lib.parameters.REGISTERED`, which :mod:`lib.config` validates against.
"""

from __future__ import annotations

from lib import parameters
from lib.bias_probes import schemas as bias_probes_schemas  # noqa: F401  (paper 000: 00, E01–E11)
from lib.bias_shift import schemas as bias_shift_schemas  # noqa: F401  (paper 001: D01, D02)
from lib.kstar import schemas as kstar_schemas  # noqa: F401  (paper 002: K01–K06)

#: Notebook name → its parameter schema.
SCHEMAS = parameters.REGISTERED
