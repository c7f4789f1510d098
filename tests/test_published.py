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
