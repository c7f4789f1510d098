"""lib.kstar.order.population: who is in A.2.1's population of base causal LMs, and when a panel can carry a
cross-model statistic."""

import pytest

from lib.kstar.order import population


def test_an_encoder_and_an_instruction_tuned_release_are_outside_the_population():
    assert population.causal_lm("tiny-llama") and not population.causal_lm("tiny-bert")  # from config.json
    assert population.why_not_base_causal("tiny-llama") == ""
    assert population.why_not_base_causal("tiny-bert") == "an encoder, not a causal LM"
    # named from the registry before any config is read (SmolLM2-135M-Instruct is not converted here)
    assert population.why_not_base_causal("smollm2-135m").startswith("an instruction-tuned release")
    assert population.why_not_base_causal("google/gemma-2-9b-it").startswith("an instruction-tuned release")


def test_the_paper_population_keeps_the_base_causal_lms_and_says_why_one_cannot_be_compared():
    panel = population.paper_population(["tiny-bert", "smollm2-135m", "tiny-llama"])
    assert panel.models == ("tiny-llama",)
    assert "tiny-bert (an encoder, not a causal LM)" in panel.left_out
    assert "smollm2-135m (an instruction-tuned release" in panel.left_out
    assert panel.missing.startswith("base causal LMs in `models`: 1 (tiny-llama); a cross-model statistic needs two")
    assert panel.note.startswith("base causal LMs: tiny-llama; left out: tiny-bert")
    everyone = population.all_models(["tiny-bert", "smollm2-135m", "tiny-llama"])
    assert everyone.models == ("tiny-bert", "smollm2-135m", "tiny-llama") and everyone.missing == ""


@pytest.mark.parametrize(("models", "missing"), [
    (["google/a", "meta-llama/b"], ""),
    (["google/a", "google/b"], "the base causal LMs in `models` (google/a, google/b) all come from one lab"),
    ([], "base causal LMs in `models`: 0 (none)"),
])
def test_a_panel_needs_two_models_from_two_labs(monkeypatch, models, missing):
    monkeypatch.setattr(population, "why_not_base_causal", lambda model: "")  # hub ids without a local config
    found = population.paper_population(models).missing
    assert found.startswith(missing) if missing else found == ""
