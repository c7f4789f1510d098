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
        assert [f.name for f in fields(Probe)] == ["profile", "recompute", "rows"]
        assert {"00_theory_checks", "D01_deltab", "K01_kstar", "A01_audit_your_model"} <= set(config.known_notebooks())
    finally:
        del parameters.REGISTERED["ZZ_parameters_test"]


def test_seed_and_n_jobs_exist_only_where_a_notebook_reads_them():
    @dataclass(frozen=True)
    class Both(parameters.ParallelParams, parameters.SeededParams):
        docs = {"seed": "seed of the one draw"}
        n_jobs: int = parameters.n_jobs_param(-1)

    assert [(f.name, f.default) for f in fields(Both)] == [
        ("profile", "default"), ("recompute", True), ("seed", 0), ("n_jobs", -1)]
    assert parameters.doc_of(Both, "seed") == "seed of the one draw"  # the notebook's own word for its seed
    assert parameters.doc_of(Both, "n_jobs") == parameters.doc_of(parameters.ParallelParams, "n_jobs")
    assert dict(fields(Both)[3].metadata)["exclude"] == (0,)
    for notebook in ("K01_kstar", "K04_synthetic_world", "K08_label_budget"):  # paper 002 names its seeds
        assert "seed" not in {f.name for f in fields(config.schema_for(notebook))}
    for notebook in ("A01_audit_your_model", "D01_deltab", "D02_deltab_ablations"):  # nothing runs in parallel
        assert "n_jobs" not in {f.name for f in fields(config.schema_for(notebook))}


def test_each_schema_marks_its_own_model_fields_with_whether_a_layer_indexes_them():
    from lib import config, parameters

    e01 = config.canonical("E01_regimes", "smoke")
    assert parameters.model_fields(e01) == {"models": True}
    k08 = config.canonical("K08_label_budget", "smoke")
    assert parameters.model_fields(k08) == {"model": True, "students": False}
    k05 = config.canonical("K05_deployment", "smoke")
    assert parameters.model_fields(k05) == {"model": True, "tuned_model": False}


def test_a_model_field_under_a_new_name_is_checked_before_any_compute():
    import dataclasses

    from lib import config, runner
    from lib.parameters import NotebookParams, model_param

    @dataclasses.dataclass(frozen=True)
    class Teachers(NotebookParams):
        teacher: str = model_param("no-such-model", layered=False, doc="a teacher model")

    with pytest.raises(config.ConfigError, match=r"parameter 'teacher' = 'no-such-model'"):
        runner.check_models(Teachers())
