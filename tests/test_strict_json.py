"""lib.strict_json: non-finite numbers written as null with a record beside them, and read back as floats."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest

from lib import strict_json


def _strict(text: str) -> object:
    """Parse as a browser would: a bare NaN or Infinity is an error."""
    def refuse(name: str) -> None:
        raise ValueError(f"{name} is not JSON")

    return json.loads(text, parse_constant=refuse)


def test_a_non_finite_number_is_null_with_what_it_was_beside_it():
    text = strict_json.dumps({"measured": 0.5, "se": float("nan"), "bound": np.float32("inf")}, sort_keys=True)
    assert _strict(text) == {"measured": 0.5, "se": None, "bound": None,
                             "non_finite": {"se": "nan", "bound": "inf"}}


def test_numbers_in_lists_are_named_by_their_indices_and_nested_objects_keep_their_own_map():
    value = {"auc": [0.5, [-math.inf]], "arr": np.array([1.0, np.nan]), "rows": [{"x": math.nan}]}
    written = _strict(strict_json.dumps(value))
    assert written["non_finite"] == {"auc": {"1": {"0": "-inf"}}, "arr": {"1": "nan"}}
    assert written["rows"] == [{"x": None, "non_finite": {"x": "nan"}}]


def test_what_is_written_reads_back_as_it_was():
    value = {"a": [1.0, [math.inf], -math.inf], "b": {"c": math.nan, "d": "text"}, "e": None, 3: math.nan}
    back = strict_json.loads(strict_json.dumps(value, sort_keys=True))
    assert back["a"][0] == 1.0 and back["a"][1] == [math.inf] and back["a"][2] == -math.inf
    assert math.isnan(back["b"]["c"]) and back["b"]["d"] == "text"
    assert back["e"] is None  # a null that was written as None stays None
    assert math.isnan(back["3"]) and "non_finite" not in back and "non_finite" not in back["b"]


def test_finite_values_are_written_as_plain_json_would_write_them():
    value = {"b": (1, 2.5), "a": np.int64(3), "p": Path("x/y"), "m": np.arange(3.0)}
    assert strict_json.dumps(value, sort_keys=True) == json.dumps(
        {"b": [1, 2.5], "a": 3, "p": "x/y", "m": [0.0, 1.0, 2.0]}, sort_keys=True)


def test_files_written_before_with_bare_nan_still_read():
    assert math.isnan(strict_json.loads('{"se": NaN}')["se"])


@pytest.mark.parametrize(("value", "where"), [(math.nan, "the top"), ([1.0, [math.inf]], r"\[1\]\[0\]")])
def test_a_non_finite_number_with_no_object_around_it_is_refused(value, where):
    with pytest.raises(ValueError, match=f"non-finite value at {where} has no JSON object around it"):
        strict_json.dumps(value)


def test_an_object_with_the_reserved_key_is_refused():
    with pytest.raises(ValueError, match=r"\['rows'\]\[0\] has a key 'non_finite'"):
        strict_json.dumps({"rows": [{"non_finite": 1}]})
