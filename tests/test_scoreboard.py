"""lib.scoreboard: claims counted per paper, CLAIMS.md."""

from __future__ import annotations

import math

import pandas as pd
from conftest import claims_table

from lib import claims, config, papers, results, scoreboard
from lib.claims import Bound, Point, claim


def test_the_scoreboard_counts_a_shared_measurement_once_and_not_measured_apart():
    owner = claims_table(claim("purity_law_mc", "Thm 3", "max |error|", "< 0.006", 0.001, Bound("<", 0.006)),
                   claim("unmeasured", "Thm 3", "x", "< 1", math.nan, Bound("<", 1)))
    citing = claims_table(claim("purity_oracle", "E3-A", "max |error|", "< 0.006", 0.001, Bound("<", 0.006),
                          cites="00_theory_checks:purity_law_mc"),
                    claim("ghost", "E3-A", "x", "< 1", 0.5, Bound("<", 1), cites="00_theory_checks:gone"),
                    notebook="E03_ground_truth")
    other = claims_table(claim("k", "A.1.7", "x", "341", 341, Point(341)), paper="002", notebook="K01_kstar")
    board = scoreboard.scoreboard(pd.concat([owner, citing, other], ignore_index=True)).set_index("paper")
    assert board.loc["000", ["paper claims held", "measured", "not measured", "cited (counted at owner)"]].tolist() == [
        1, 1, 1, 2]
    assert board.loc["002", ["paper claims held", "measured"]].tolist() == [1, 1]
    assert board.loc["001", "measured"] == 0 and board.loc["000", "title"]
    assert scoreboard.dangling(pd.concat([owner, citing])) == ["E03_ground_truth:ghost cites 00_theory_checks:gone"]


def test_claims_md_has_one_table_per_paper_and_the_smoke_note(sandbox):
    run = results.start(config.validate("00_theory_checks", {"profile": "smoke"}))
    run.record_claims([claim("gap", "Thm 1", "gap |train − test|", "< 0.05", 0.01, Bound("<", 0.05)),
                       claim("lost", "E3-D", "κ̂ error", "0.17", math.nan, Point(0.17), not_measured="no grid")])
    path = scoreboard.write("smoke")
    assert path == sandbox / "figures" / "smoke" / "CLAIMS.md"
    text = path.read_text()
    assert claims.SMOKE_NOTE in text
    sections = [line for line in text.splitlines() if line.startswith("## Paper ")]
    assert sections == [f"## Paper {p.id} — {p.title}" for p in papers.all_papers()]
    paper_000 = text.split("## Paper 000")[1].split("## Paper")[0]
    assert "gap: gap \\|train − test\\|" in paper_000 and "< 0.05 (Thm 1)" in paper_000
    assert "| not measured |" in paper_000 and "no grid" in paper_000
    assert "No claims logged." in text.split("## Paper 001")[1]
    printed = scoreboard.text("smoke").splitlines()
    at = printed.index(f"000  {papers.by_id('000').title}")
    assert printed[at + 1].split() == "paper claims: 1 of 1 measured hold, 1 not measured".split()
    assert printed[at + 2].split() == ["extension", "claims:", "none"] and printed[1] == claims.SMOKE_NOTE
    assert printed[-1] == "wrote figures/smoke/CLAIMS.md"
