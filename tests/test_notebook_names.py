"""lib.notebook_names: a notebook named on the command line by its full name or its short id, in any case."""

from __future__ import annotations

import pytest

from lib import config, notebook_names, runner

AVAILABLE = ["00_theory_checks", "D01_deltab", "E01_regimes", "E01b_paraphrases", "E08_leakage", "K01_kstar"]


@pytest.mark.parametrize(("name", "notebook"), [
    ("E08", "E08_leakage"), ("e08", "E08_leakage"), ("D01", "D01_deltab"), ("d01", "D01_deltab"),
    ("00", "00_theory_checks"), ("K01", "K01_kstar"), ("E01", "E01_regimes"), ("E01b", "E01b_paraphrases"),
    ("e01B", "E01b_paraphrases"), ("E08_leakage", "E08_leakage"), ("e08_LEAKAGE", "E08_leakage"),
])
def test_a_short_id_or_a_name_in_any_case_resolves_to_one_notebook(name, notebook):
    assert notebook_names.resolve(name, "default", AVAILABLE) == notebook


def test_every_notebook_of_the_repository_answers_to_its_short_id():
    available = runner.discover("default")
    assert [notebook_names.resolve(notebook_names.short_id(n).lower(), "default", available)
            for n in available] == available


@pytest.mark.parametrize("name", ["E1", "E0", "E01_", "leakage", "E08_leak", ""])
def test_a_name_that_names_no_notebook_is_one_line_with_what_is_allowed(name):
    with pytest.raises(config.ConfigError) as error:
        notebook_names.resolve(name, "default", AVAILABLE)
    message = str(error.value)
    assert message.startswith(f"no notebook {name!r} under profile 'default'") and "\n" not in message
    assert "(allowed: a name or its short id, the part before '_', in any case, e.g. 00 for 00_theory_checks; " \
           f"available: {', '.join(AVAILABLE)})" in message


def test_a_close_miss_names_the_closest_short_id():
    with pytest.raises(config.ConfigError, match=r"did you mean 'E08'\?"):
        notebook_names.resolve("E8", "default", AVAILABLE)


def test_a_short_id_two_notebooks_share_is_refused_naming_both():
    with pytest.raises(config.ConfigError, match=r"^notebook 'e01' is ambiguous under profile 'smoke': it names "
                                                 r"E01_a, E01_b; allowed: one of their full names$"):
        notebook_names.resolve("e01", "smoke", ["E01_a", "E01_b"])


def test_resolving_many_keeps_their_order_names_each_once_and_every_bad_one_at_once():
    assert notebook_names.resolve_all(["k01", "E08", "E08_leakage"], "default", AVAILABLE) == ["K01_kstar",
                                                                                               "E08_leakage"]
    with pytest.raises(config.ConfigError) as error:
        notebook_names.resolve_all(["X1", "E08", "Y2"], "default", AVAILABLE)
    lines = str(error.value).splitlines()
    assert [line.split(" under ")[0] for line in lines] == ["no notebook 'X1'", "no notebook 'Y2'"]
