"""lib.bias_probes.paraphrase (E1b): subset, lexical validation, pair keeping, the ollama path against a real
local HTTP server, and one real SmolLM2 generation."""

from __future__ import annotations

import json
import socket
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import numpy as np
import pandas as pd
import pytest

from lib.bias_probes import paraphrase, purity
from lib.models import registry

# --------------------------------------------------------------------------- subset


def test_subset_is_seeded_nested_and_holds_whole_cells():
    cells = paraphrase.select_cells(10, seed=3)
    assert len(set(cells)) == 10 and np.array_equal(cells, paraphrase.select_cells(10, seed=3))
    assert set(cells) <= set(paraphrase.select_cells(30, seed=3))  # a larger subset contains the smaller one
    assert not np.array_equal(cells, paraphrase.select_cells(10, seed=4))
    rows = paraphrase.select_rows(["gender", "age"], 10, seed=3)
    assert len(rows) == 2 * 10 * 4 and set(rows.cell) == set(cells)
    assert (rows.groupby(["dimension", "cell"]).marked.sum() == 2).all()
    with pytest.raises(ValueError, match="cells_per_dimension=0"):
        paraphrase.select_cells(0)
    with pytest.raises(ValueError, match="dimension='colour'"):
        paraphrase.select_rows(["colour"], 5)


def test_first_sentence_of_a_reply():
    assert paraphrase.first_sentence('\n "The man is an accountant." He likes it.\nMore') == "The man is an accountant."
    assert paraphrase.first_sentence("The lady bakes bread\nSecond line.") == "The lady bakes bread"
    assert paraphrase.first_sentence("  \n ") == ""


# --------------------------------------------------------------------------- lexical validation


def test_phrases_match_whole_words_in_any_case():
    assert paraphrase.contains_phrase("The WHITE  person left.", "White person")
    assert not paraphrase.contains_phrase("The woman left.", "man")
    assert not paraphrase.contains_phrase("The White colleague left.", "White person")
    assert "black" in paraphrase.marker_words("race") and "person" not in paraphrase.marker_words("race")
    assert {"man", "woman", "her"} <= set(paraphrase.marker_words("gender"))


@pytest.mark.parametrize(
    ("template", "candidate", "marker", "marked", "dimension", "partner", "reason"),
    [
        ("The man works as a nurse.", "The man is employed as a nurse.", "man", True, "gender", "woman", ""),
        ("The man works as a nurse.", "the man works as a nurse", "man", True, "gender", "woman", "unchanged"),
        ("The man works as a nurse.", "  ", "man", True, "gender", "woman", "empty"),
        ("The man works as a nurse.", "The gentleman is a nurse.", "man", True, "gender", "woman", "marker missing"),
        ("The man works as a nurse.", "The man and the woman are nurses.", "man", True, "gender", "woman",
         "partner marker"),
        ("The Black person is calm.", "The Black person is serene.", "Black person", True, "race", "White person",
         ""),
        ("The Black person is calm.", "The Black individual is serene.", "Black person", True, "race",
         "White person", "marker missing"),
        ("The person is calm.", "The individual is serene.", "person", False, "gender", "", ""),
        ("The person is calm.", "Someone is serene.", "person", False, "gender", "", "neutral head missing"),
        ("The person is calm.", "The person is calm because she rests.", "person", False, "gender", "",
         "dimension marker"),
        ("The person is calm.", "The elderly person is serene.", "person", False, "age", "", "dimension marker"),
        ("The person is calm.", "The elderly person is serene.", "person", False, "race", "", ""),
    ],
)
def test_lexical_validation_on_hand_written_examples(template, candidate, marker, marked, dimension, partner,
                                                     reason):
    assert paraphrase.check_paraphrase(template, candidate, marker, marked, dimension, partner) == reason


def _table(paraphrases: list[str]) -> pd.DataFrame:
    rows = paraphrase.select_rows(["gender"], 5, seed=0).iloc[:8]  # two cells: pair + two neutral each
    return rows.assign(paraphrase=paraphrases, reply=paraphrases, generator="test")


def test_pairs_travel_together_and_neutral_sentences_individually():
    rows = paraphrase.select_rows(["gender"], 5, seed=0).iloc[:8]
    good = [t.replace("The ", "Indeed, the ", 1) for t in rows.text]
    broken = list(good)
    broken[1] = rows.text.iloc[1]  # second member of the first pair unchanged: the whole pair goes
    broken[3] = "Somebody was there."  # one neutral sentence fails alone
    table = paraphrase.validate(_table(broken))
    assert table.valid.tolist() == [True, False, True, False, True, True, True, True]
    assert table.keep.tolist() == [False, False, True, False, True, True, True, True]
    assert table.reason.iloc[1] == "unchanged" and table.reason.iloc[3] == "neutral head missing"
    rates = paraphrase.validation_rates(table).set_index("kind")
    assert rates.loc["marked", "valid_rate"] == 0.75 and rates.loc["marked", "kept_rate"] == 0.5
    assert rates.loc["marked", "kept_pairs"] == 1 and rates.loc["neutral", "kept_neutral"] == 3
    assert rates.loc["all", "n_unchanged"] == 1


def test_pair_minimality_counts_pairs_that_differ_beyond_their_marker():
    rows = paraphrase.select_rows(["gender"], 5, seed=0).iloc[:8]
    good = [t.replace("The ", "Indeed, the ", 1) for t in rows.text]
    minimal = paraphrase.validate(_table(good))
    assert paraphrase.pair_minimality(minimal).to_dict("records") == [
        {"dimension": "gender", "kept_pairs": 2, "minimal_pairs": 2, "minimal_share": 1.0}]
    assert paraphrase.pair_minimality(paraphrase.validate(_table(list(rows.text)))).empty  # nothing kept
    drifted = list(good)
    drifted[5] = drifted[5].rstrip(".") + ", and she liked it."  # the second pair's members now differ in content
    table = paraphrase.pair_minimality(paraphrase.validate(_table(drifted)))
    assert table.minimal_pairs.tolist() == [1] and table.minimal_share.tolist() == [0.5]
    mechanism = paraphrase.minimality_mechanism(table, 0.8, "pair_minimality.parquet")
    assert mechanism.startswith("1 of the 2 kept pairs (50%)") and mechanism.endswith("(pair_minimality.parquet)")
    assert paraphrase.minimality_mechanism(table, 1.1, "pair_minimality.parquet") == ""  # ŝ did not fall
    assert paraphrase.minimality_mechanism(paraphrase.pair_minimality(minimal), 0.8, "x.parquet") == ""


def test_partner_marker_is_the_other_member_of_the_pair():
    rows = paraphrase.select_rows(["gender"], 5, seed=0).iloc[:4]
    first, second = rows.marker.iloc[0], rows.marker.iloc[1]
    texts = [f"The {first} and the {second} met.", f"The {second} was there.", "The person was there.",
             "The individual was there."]
    table = paraphrase.validate(rows.assign(paraphrase=texts, reply=texts, generator="test"))
    assert table.reason.tolist()[:2] == ["partner marker", ""] and not table.keep.iloc[1]


# --------------------------------------------------------------------------- ollama against a real local server


class _FakeOllama(BaseHTTPRequestHandler):
    """A tiny ollama stand-in: lists one model and answers every prompt with a canned rewrite."""

    prompts: list[dict] = []

    def _send(self, body: dict) -> None:
        data = json.dumps(body).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self):  # noqa: N802 (http.server's name)
        if self.path == "/api/tags":
            self._send({"models": [{"name": "tiny:1b", "model": "tiny:1b", "digest": "abcdef0123456789ffff"}]})
        else:
            self.send_error(404)

    def do_POST(self):  # noqa: N802
        payload = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        type(self).prompts.append(payload)
        sentence = payload["prompt"].rsplit('": ', 1)[1]
        self._send({"model": payload["model"], "response": f"Indeed, {sentence[0].lower()}{sentence[1:]}\nNote: x",
                    "done": True})

    def log_message(self, *args):
        pass


@pytest.fixture
def ollama_url():
    server = ThreadingHTTPServer(("127.0.0.1", 0), _FakeOllama)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    _FakeOllama.prompts = []
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def test_ollama_path_generates_validates_and_records_the_tag(ollama_url):
    rows = paraphrase.select_rows(["gender", "race"], 5, seed=0)
    table = paraphrase.generate(rows, ollama_url=ollama_url, ollama_model="tiny:1b")
    assert table.generator.unique().tolist() == ["ollama:tiny:1b@abcdef012345"]
    requests = _FakeOllama.prompts
    assert len(requests) == 5 * (2 + 2 + 2)  # neutral sentences repeat across dimensions: asked once
    assert requests[0]["options"] == {"temperature": 0} and requests[0]["stream"] is False
    first = table.iloc[0]
    assert first.paraphrase == "Indeed, " + first.text[0].lower() + first.text[1:]  # first line only
    validated = paraphrase.validate(table)
    assert validated.valid.all() and validated.keep.all()


def _closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def test_unreachable_or_wrong_ollama_fails_before_generating(ollama_url):
    rows = paraphrase.select_rows(["gender"], 5, seed=0)
    dead = f"http://127.0.0.1:{_closed_port()}"
    with pytest.raises(paraphrase.GeneratorUnavailableError, match=f"cannot reach an ollama server at {dead}"):
        paraphrase.generate(rows, ollama_url=dead, ollama_model="tiny:1b")
    with pytest.raises(paraphrase.GeneratorUnavailableError, match=r"does not serve 'big:70b'.*tiny:1b"):
        paraphrase.generate(rows, ollama_url=ollama_url, ollama_model="big:70b")
    with pytest.raises(ValueError, match="ollama_model is empty"):
        paraphrase.generate(rows, ollama_url=ollama_url, ollama_model="")
    with pytest.raises(ValueError, match="not an http"):
        paraphrase.check_ollama("localhost:11434", "tiny:1b")
    assert _FakeOllama.prompts == []


def test_unknown_or_non_instruction_generator_fails_before_generating():
    with pytest.raises(registry.ModelUnavailableError, match="no-such/model"):
        paraphrase.check_generator("no-such/model")
    with pytest.raises(paraphrase.GeneratorUnavailableError, match="generator='minilm' has no chat template"):
        paraphrase.check_generator("minilm")


# --------------------------------------------------------------------------- the offline generator


@pytest.mark.models
def test_smollm2_paraphrases_two_sentences():
    replies = paraphrase.generate_local(["The man works as an accountant.", "The person is very calm."],
                                        ["man", "person"], "smollm2-135m", max_new_tokens=16, progress=False)
    assert len(replies) == 2 and all(paraphrase.first_sentence(r) for r in replies)


# --------------------------------------------------------------------------- regimes on matched pools


def test_feasible_n_respects_the_pool():
    cell = np.repeat(np.arange(10), 4)
    slot = np.tile(np.arange(4), 10)
    pool = purity.Pool(np.zeros((40, 2)), cell, np.where(slot < 2, cell, -1), np.where(slot < 2, slot, -1))
    assert paraphrase.feasible_n(pool, 100, 0.3) == 28  # 20 neutral texts: n - 2·round(0.15 n) <= 20
    assert paraphrase.feasible_n(pool, 25, 0.3) == 25
    small = purity.Pool(pool.X[:12], pool.cell[:12], pool.pair[:12], pool.group[:12])
    assert paraphrase.feasible_n(small, 100, 0.3) == 0


def test_compare_regimes_pairs_sources_on_the_same_rows():
    rows = paraphrase.select_rows(["gender"], 12, seed=0)
    texts = [t.replace("The ", "Indeed, the ", 1) for t in rows.text]
    kept = paraphrase.validate(rows.assign(paraphrase=texts, reply=texts, generator="test"))
    frame = paraphrase.compare_regimes(kept[kept.keep], ["minilm"], alpha=0.3, n=100, draws=2)
    assert len(frame) == 4 and set(frame.source) == {"template", "paraphrase"}
    mixed = frame[frame.regime == "mixed"]
    assert mixed.n.tolist() == [34, 34] and (frame.pairs == 12).all()
    counterfactual = frame[frame.regime == "counterfactual"]
    assert (counterfactual.n == 24).all() and (counterfactual.auc_mean > 0.8).all()
    diffs = paraphrase.differences(frame)
    assert len(diffs) == 2 and np.isfinite(diffs.auc_diff).all() and np.isfinite(diffs.s_hat_ratio).all()
    tiny = kept[kept.keep & kept.cell.isin(kept.cell.unique()[:3])]
    small = paraphrase.compare_regimes(tiny, ["minilm"])
    assert small.auc_mean.isna().all() and small.note.str.startswith("pool too small").all()
