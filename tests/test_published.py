"""lib.published: a publication folder and its record."""

from __future__ import annotations

import json

import pytest

from lib import config, publish, published


def test_a_target_holding_another_profile_or_other_files_is_refused(tmp_path):
    other = tmp_path / "other"
    other.mkdir()
    (other / published.RECORD).write_text(json.dumps({"profile": "default"}))
    with pytest.raises(config.ConfigError, match="holds the 'default' profile's publication"):
        publish.check_target("paper", other)
    (tmp_path / "notes").mkdir()
    (tmp_path / "notes" / "mine.txt").write_text("keep me")
    with pytest.raises(config.ConfigError, match="not a publication"):
        publish.check_target("default", tmp_path / "notes")
    publish.check_target("default", other)  # its own profile: replaced


def test_the_pointer_says_where_a_finished_run_is_and_how_to_open_it(tmp_path):
    assert published.pointer(tmp_path) is None  # no publication: nothing to point to
    (tmp_path / published.RECORD).write_text(json.dumps(
        {"profile": "default", "notebooks": ["E01_regimes", "K01_kstar"], "finished": "2026-12-04T03:14:58+00:00"}))
    found = published.pointer(tmp_path)
    assert f"is in {tmp_path}/ (profile default, 2 notebooks, finished 2026-12-04)" in found
    assert f"open {tmp_path}/report/index.html in a browser" in found and f"{tmp_path}/CLAIMS.md" in found
    assert "python -m lib list --published" in found and len(found.splitlines()) == 2


def _refuse_constant(name: str) -> None:
    raise ValueError(f"{name} is not JSON")


def test_every_published_json_parses_strictly():
    found = sorted(published.default_folder().rglob("*.json"))
    assert found, "published/ holds no JSON"
    failing = []
    for path in found:
        try:
            json.loads(path.read_text(), parse_constant=_refuse_constant)
        except ValueError as error:
            failing.append(f"{path.relative_to(published.default_folder())}: {error}")
    assert not failing, f"{len(failing)} of {len(found)} files are not strict JSON:\n" + "\n".join(failing[:5])
