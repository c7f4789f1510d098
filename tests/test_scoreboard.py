"""lib.scoreboard: claims counted per paper, CLAIMS.md."""

from __future__ import annotations

import math

import pandas as pd
from conftest import claims_table, use_catalogue
from conftest import judged as claim

from lib import claims, config, papers, results, scoreboard
from lib.claims import Bound, Point


def test_the_scoreboard_counts_a_shared_measurement_once_and_not_measured_apart():
    owner = claims_table(claim("purity_law_mc", "Thm 3", "max |error|", "< 0.006", 0.001, Bound("<", 0.006)),
                   claim("unmeasured", "Thm 3", "x", "< 1", math.nan, Bound("<", 1)))
    citing = claims_table(claim("purity_oracle", "E3-A", "max |error|", "< 0.006", 0.001, Bound("<", 0.006),
                          cites="00_theory_checks:purity_law_mc"),
                    claim("ghost", "E3-A", "x", "< 1", 0.5, Bound("<", 1), cites="00_theory_checks:gone"),
                    notebook="E03_ground_truth")
    other = claims_table(claim("k", "A.1.7", "x", "341", 341, Point(341)),
                         claim("j", "A.1.7", "x", "341", 340, Point(341), mechanism="a tie (`ties.json`)"),
                         claim("g", "A.3.2", "x", "253", 1, Point(253), needs_paper_profile="Gemma-2-9B"),
                         paper="002", notebook="K01_kstar")
    board = scoreboard.scoreboard(pd.concat([owner, citing, other], ignore_index=True)).set_index("paper")
    assert board.columns.tolist()[1:7] == list(claims.VERDICTS)
    assert board.loc["000", [*claims.VERDICTS, "cited (counted at owner)"]].tolist() == [1, 0, 0, 0, 0, 1, 2]
    assert board.loc["002", list(claims.VERDICTS)].tolist() == [1, 0, 1, 0, 1, 0]
    assert board.loc["001", list(claims.VERDICTS)].sum() == 0 and board.loc["000", "title"]
    assert scoreboard.dangling(pd.concat([owner, citing])) == ["E03_ground_truth:ghost cites 00_theory_checks:gone"]


def test_claims_md_has_one_table_per_paper_and_the_smoke_note(sandbox, monkeypatch):
    run = results.start(config.validate("00_theory_checks", {"profile": "smoke"}))
    use_catalogue(monkeypatch, """
    - {id: gap, kind: paper, section: Thm 1, paper_says: "< 0.05", measures: "gap |train − test|",
       test: {bound: "<", value: 0.05}, null_hypothesis: "a gap of 0.1", power: {exact: "a closed form"}}
    - {id: lost, kind: paper, section: E3-D, paper_says: "0.17", measures: "κ̂ error", test: {point: 0.17},
       null_hypothesis: "an error of 0.5", power: {exact: "a closed form"}}
    """)
    run.record_claims({"gap": claims.Evidence(0.01), "lost": claims.Evidence(math.nan, undefined="no grid")})
    path = scoreboard.write("smoke")
    assert path == sandbox / "figures" / "smoke" / "CLAIMS.md"
    text = path.read_text()
    assert claims.SMOKE_NOTE in text
    sections = [line for line in text.splitlines() if line.startswith("## Paper ")]
    assert sections == [f"## Paper {p.id} — {p.title}" for p in papers.all_papers()]
    paper_000 = text.split("## Paper 000")[1].split("## Paper")[0]
    assert "gap: gap \\|train − test\\|" in paper_000 and "< 0.05 (Thm 1)" in paper_000
    assert "| not measured, undefined here |" in paper_000 and "no grid" in paper_000
    assert "| exact: a closed form |" in paper_000
    assert "No claims logged." in text.split("## Paper 001")[1]
    printed = scoreboard.text("smoke").splitlines()
    at = printed.index(f"000  {papers.by_id('000').title}")
    assert printed[at + 1].split() == ("paper claims: 1 of 1 measured hold, 1 not measured (0 no power at this "
                                       "scale, 0 needs the paper's data or models, 1 undefined here)").split()
    assert printed[at + 2].split() == ["extension", "claims:", "none"] and printed[1] == claims.SMOKE_NOTE
    assert printed[-1] == "wrote figures/smoke/CLAIMS.md"
