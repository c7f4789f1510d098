"""lib.schemas: every notebook has a schema, and every schema's defaults are valid."""

import dataclasses

import pytest

from lib import config, paths

NOTEBOOKS = sorted(p.stem for p in paths.NOTEBOOKS_DIR.glob("*.py"))


@pytest.mark.parametrize("notebook", NOTEBOOKS)
def test_each_notebook_has_a_schema_with_valid_defaults(notebook):
    schema = config.schema_for(notebook)
    defaults = {f.name: f.default for f in dataclasses.fields(schema)}
    assert config.validate(notebook, defaults) == schema()


def test_every_schema_has_a_notebook():
    assert set(config.known_notebooks()) == set(NOTEBOOKS)
