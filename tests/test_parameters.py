"""lib.parameters: schema fields with bounds and named values, the layer field, the registry."""

from dataclasses import dataclass, fields

import pytest

from lib import config, parameters


def test_layer_takes_a_name_or_an_index_not_the_old_minus_one():
    assert config.validate("E01_regimes", {"layer": "mid"}).layer == "mid"
    assert config.validate("D01_deltab", {}).layer == "last"
    assert config.validate("E01_regimes", {"layer": 4}).layer == 4
    for bad in (-1, "middle"):
        allowed = r"'layer' = .* is out of range; allowed: int or str >= 0 or one of 'mid', 'last'"
        with pytest.raises(config.ConfigError, match=allowed):
            config.validate("E01_regimes", {"layer": bad})


def test_param_keeps_only_the_bounds_it_is_given():
    field = parameters.param(3, ge=1, doc="rows")
    assert field.default == 3 and dict(field.metadata) == {"ge": 1, "doc": "rows"}
    layer = parameters.layer_param("mid")
    assert layer.default == "mid" and layer.metadata["names"] == parameters.LAYER_NAMES == ("mid", "last")


def test_register_names_the_schema_and_the_index_holds_every_paper():
    @parameters.register("ZZ_parameters_test")
    @dataclass(frozen=True)
    class Probe(parameters.NotebookParams):
        rows: int = parameters.param(3, ge=1)

    try:
        assert Probe.notebook == "ZZ_parameters_test" and parameters.REGISTERED["ZZ_parameters_test"] is Probe
        assert {f.name for f in fields(Probe)} >= {"profile", "recompute", "seed", "n_jobs", "rows"}
        assert {"00_theory_checks", "D01_deltab", "K01_kstar", "A01_audit_your_model"} <= set(config.known_notebooks())
    finally:
        del parameters.REGISTERED["ZZ_parameters_test"]
