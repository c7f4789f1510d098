"""lib.config: typed parameters, clear errors before compute, YAML gotchas, hashing."""

import jupytext
import pytest
from conftest import run_cli, tiny_repository

from lib import config, paths, runner


def test_yaml_reads_exponent_floats():
    assert config.parse_yaml("a: 1e-3\nb: -2.5E+2\nc: 7\nd: .5") == {"a": 0.001, "b": -250.0, "c": 7, "d": 0.5}


def test_float_field_accepts_strings_from_yaml_1_1_tools():
    params = config.validate("00_theory_checks", {"chord_sigma_w": "5e-1", "purity_s": [1, "2e0"]})
    assert params.chord_sigma_w == 0.5 and params.purity_s == (1.0, 2.0)


def test_unknown_key_names_the_closest_valid_key():
    with pytest.raises(config.ConfigError, match=r"unknown parameter 'purity_reep'; did you mean 'purity_reps'"):
        config.validate("00_theory_checks", {"purity_reep": 3})


@pytest.mark.parametrize(
    ("values", "message"),
    [
        ({"purity_n": 2.5}, r"'purity_n' = 2.5 has the wrong type; allowed: int >= 20"),
        ({"purity_n": True}, r"'purity_n' = True has the wrong type"),
        ({"purity_n": 3}, r"'purity_n' = 3 is out of range; allowed: int >= 20"),
        ({"purity_alphas": [0.5, 1.5]}, r"'purity_alphas' = \[0.5, 1.5\] is out of range; "
                                        r"allowed: list of float >= 0 <= 1"),
        ({"delta": "often"}, r"'delta' = 'often' has the wrong type"),
        ({"profile": "laptop"}, r"'profile' = 'laptop' is out of range; "
                                r"allowed: str one of 'smoke', 'default', 'paper', 'extended'"),
        ({"n_jobs": 0}, r"'n_jobs' = 0 is out of range; allowed: int >= -1 except 0"),
        ({"null_exact_sizes": [[3, 0]]}, r"'null_exact_sizes'"),
        ({"recompute": "no"}, r"'recompute' = 'no' has the wrong type; allowed: bool"),
    ],
)
def test_bad_values_are_named_with_what_is_allowed(values, message):
    with pytest.raises(config.ConfigError, match=message):
        config.validate("00_theory_checks", values)


def test_unknown_notebook_and_overrides():
    with pytest.raises(config.ConfigError, match="did you mean '00_theory_checks'"):
        config.schema_for("00_theory_check")
    assert config.parse_override("purity_n=100") == ("purity_n", 100)
    assert config.parse_override("purity_s=[1, 2e-1]") == ("purity_s", [1, 0.2])
    with pytest.raises(config.ConfigError, match="KEY=VALUE"):
        config.parse_override("purity_n")


def test_load_reads_the_notebook_namespace_and_requires_every_key():
    values = config.as_dict(config.validate("00_theory_checks", {}))
    namespace = {**values, "np": object(), "unrelated": 1}
    assert config.load("00_theory_checks", namespace) == config.validate("00_theory_checks", values)
    del namespace["gap_reps"]
    with pytest.raises(config.ConfigError, match="'gap_reps' is missing"):
        config.load("00_theory_checks", namespace)


def test_hash_ignores_execution_keys_only():
    base = config.validate("00_theory_checks", {})
    same = config.validate("00_theory_checks", {"recompute": False, "n_jobs": 2})
    other = config.validate("00_theory_checks", {"seed": 1})
    assert config.params_hash(base) == config.params_hash(same) != config.params_hash(other)
    assert config.seeds_of(other) == {"seed": 1}


def test_a_scheduler_is_an_execution_key_checked_before_any_compute():
    local = config.resolve("K01_kstar", "smoke")
    cluster = config.resolve("K01_kstar", "smoke", {"scheduler": "tcp://127.0.0.1:8786"})
    assert cluster.scheduler == "tcp://127.0.0.1:8786" and local.scheduler == ""
    assert config.params_hash(cluster) == config.params_hash(local) and config.variant(cluster) == ""
    with pytest.raises(config.ConfigError, match=r"^K01_kstar: scheduler='http://host:8786' is not a Dask "):
        config.resolve("K01_kstar", "smoke", {"scheduler": "http://host:8786"})


def test_a_layer_spec_is_checked_on_the_model_names_before_any_compute():
    assert config.resolve("K01_kstar", "paper").layers == "table6"  # the paper's Table 6 grids
    with pytest.raises(config.ConfigError, match=r"^K01_kstar: layers 'table6': 'tiny-bert' is not a Table 6 model"):
        config.resolve("K01_kstar", "smoke", {"layers": "table6"})
    with pytest.raises(config.ConfigError, match=r"^K06_sae_correspondence: layers 'grid:x'"):
        config.resolve("K06_sae_correspondence", "smoke", {"layers": "grid:x"})


@pytest.mark.parametrize("profile", paths.PROFILES)
def test_every_params_file_validates(profile):
    for notebook in runner.discover(profile):
        assert config.resolve(notebook, profile).profile == profile


def test_profile_mismatch_in_a_params_file_is_refused(sandbox):
    (sandbox / "params" / "smoke").mkdir(parents=True)
    (sandbox / "params" / "smoke" / "00_theory_checks.yaml").write_text("profile: paper\n")
    with pytest.raises(config.ConfigError, match="sets profile='paper'"):
        config.resolve("00_theory_checks", "smoke")


@pytest.mark.parametrize("notebook", sorted(p.stem for p in paths.NOTEBOOKS_DIR.glob("*.py")))
def test_parameters_cell_holds_the_default_profile(notebook):
    """A user opening the notebook in JupyterLab gets exactly the default profile."""
    cells = jupytext.read(paths.notebook_script(notebook)).cells
    tagged = [c for c in cells if "parameters" in c.metadata.get("tags", [])]
    assert len(tagged) == 1
    namespace: dict = {}
    exec(tagged[0].source, namespace)  # literals only (docs/ARCHITECTURE.md)
    from_cell = config.load(notebook, namespace)
    assert config.as_dict(from_cell) == config.as_dict(config.resolve(notebook, "default"))
    assert set(namespace) - {"__builtins__"} == set(config.as_dict(from_cell))


def test_the_cells_profile_selects_its_yaml_and_edited_values_override_it(monkeypatch, capsys):
    monkeypatch.delenv(config.RESOLVED_VARIABLE, raising=False)
    cell = config.as_dict(config.resolve("E01_regimes", "default"))  # the cell as shipped
    smoke = config.load("E01_regimes", {**cell, "profile": "smoke"})
    assert smoke == config.resolve("E01_regimes", "smoke")
    assert "profile smoke (params/smoke/E01_regimes.yaml); overrides: none; results: results/smoke/E01_regimes/" \
        in capsys.readouterr().out
    edited = config.load("E01_regimes", {**cell, "profile": "smoke", "seed": 4, "layer": 1})
    assert edited == config.resolve("E01_regimes", "smoke", {"seed": 4, "layer": 1})
    assert 'overrides: layer=1, seed=4; results: results/smoke/E01_regimes@layer=1,seed=4/' in capsys.readouterr().out


def test_the_runners_resolved_values_are_taken_as_they_are(monkeypatch):
    monkeypatch.setenv(config.RESOLVED_VARIABLE, "1")
    smoke = config.as_dict(config.resolve("E01_regimes", "smoke"))
    shipped = config.as_dict(config.resolve("E01_regimes", "default"))
    changed = next(k for k in smoke if k != "profile" and smoke[k] != shipped[k])
    values = {**smoke, changed: shipped[changed]}  # --set back to the default profile's value
    assert config.as_dict(config.load("E01_regimes", values))[changed] == shipped[changed]


def test_variants_are_named_by_their_overrides():
    def variant(**overrides):
        return config.variant(config.resolve("E01_regimes", "default", overrides))

    assert variant() == "" and variant(n_jobs=2, recompute=False) == ""  # execution keys change no result
    assert variant(seed=1, layer=3) == "layer=3,seed=1"
    assert variant(seed=config.resolve("E01_regimes", "default").seed) == ""  # the YAML's own value
    assert variant(models=["minilm"]) == "models=minilm"
    named = variant(models=["/data/my model"])
    assert named.startswith("models=_data_my_model~") and len(named) == 30
    assert named != variant(models=["/data/my_model"])



def _error_lines(stderr: str) -> list[str]:
    """The non-empty lines a command wrote to stderr (a clean refusal: one ``error:`` line per problem)."""
    return [line for line in stderr.splitlines() if line.strip()]


def test_a_yaml_syntax_error_is_one_line_naming_the_file_and_the_line(tmp_path, monkeypatch):
    root = tiny_repository(tmp_path, only_tiny=True)
    (root / "params" / "smoke" / "ZZ_tiny.yaml").write_text("pause_s: 0.0\nfail: [true\nseed: 1\n")
    for args in (["run", "ZZ_tiny", "--profile", "smoke", "--quiet"], ["run", "--profile", "smoke", "--quiet"],
                 ["list"]):
        result = run_cli(root, *args)
        lines = _error_lines(result.stderr)
        assert result.returncode == 2 and len(lines) == 1 and "Traceback" not in result.stderr, (args, result.stderr)
        assert lines[0].startswith("error: params/smoke/ZZ_tiny.yaml, line 3, column 5: invalid YAML: expected ','")
        assert "flow sequence that starts at line 2" in lines[0] and "allowed: one 'parameter: value'" in lines[0]
    assert "ZZ_tiny   invalid" in result.stdout  # list still lists, marking the broken file
    assert not (root / "build").exists() and not (root / "results").exists()
    monkeypatch.setattr(paths, "PARAMS_DIR", root / "params")
    with pytest.raises(config.ConfigError, match=r"ZZ_tiny\.yaml, line 3, column 5: invalid YAML"):
        config.read_params_file("smoke", "ZZ_tiny")


@pytest.mark.parametrize(("assignment", "problem"), [
    ("purity_s=[0.1,", "expected the node content, but found the end of the text"),
    ('name="half', "found unexpected end of stream"),
    ("seed=a: b: c", "mapping values are not allowed here"),
])
def test_a_malformed_set_value_names_the_key_the_value_and_the_allowed_forms(assignment, problem):
    key, _, raw = assignment.partition("=")
    with pytest.raises(config.ConfigError) as refused:
        config.parse_override(assignment)
    message = str(refused.value)
    assert message.startswith(f"--set {key}={raw!r}: the value is not valid YAML: {problem}; allowed: a number")
    assert "\n" not in message


def test_a_malformed_set_value_is_one_line_before_anything_runs(tmp_path):
    root = tiny_repository(tmp_path, only_tiny=True)
    result = run_cli(root, "run", "--profile", "smoke", "--quiet", "--set", "pause_s=[0.1,")
    lines = _error_lines(result.stderr)
    assert result.returncode == 2 and len(lines) == 1, result.stderr
    assert lines[0].startswith("error: --set pause_s='[0.1,': the value is not valid YAML") and "[0.1, 0.2]" in lines[0]
    assert not (root / "build").exists() and not (root / "results").exists()
