"""Every notebook's ``parameters`` cell reads cleanly with papermill's own parser.

papermill warns "Unable to parse line" for a line with two ``=`` (one inside a comment) and then
"Passed unknown parameter" for the value it could not see: noise on every run that a user cannot
act on. The cell must declare every field of the notebook's schema.
"""

from __future__ import annotations

import dataclasses
import logging

import jupytext
import pytest
from papermill.translators import PythonTranslator

from lib import config, paths

NOTEBOOKS = sorted(p.stem for p in paths.NOTEBOOKS_DIR.glob("*.py"))


@pytest.mark.parametrize("notebook", NOTEBOOKS)
def test_papermill_parses_every_parameter(notebook, caplog):
    cells = jupytext.read(paths.notebook_script(notebook)).cells
    tagged = [c for c in cells if "parameters" in c.metadata.get("tags", [])]
    assert len(tagged) == 1, f"{notebook} needs exactly one cell tagged parameters"
    with caplog.at_level(logging.WARNING, logger="papermill"):
        declared = {p.name for p in PythonTranslator.inspect(tagged[0])}
    assert not caplog.records, [r.getMessage() for r in caplog.records]
    fields = {f.name for f in dataclasses.fields(config.schema_for(notebook))}
    assert declared == fields, f"only in the schema: {fields - declared}; only in the cell: {declared - fields}"
