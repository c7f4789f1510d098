"""lib.models.truncation (and its use by lib.models.extraction and lib.kstar.measure): inputs within a token limit,
a chat input cut inside its user text so its generation prompt survives (paper 002, A.1.2)."""

from types import SimpleNamespace

import numpy as np
import pytest

from lib.kstar import measure
from lib.models import extraction, loading, truncation

LONG = " ".join(f"word{i} of the long article about markets" for i in range(60))
SHORT = "A short review."

#: A template with a default system prompt ahead of the user turn, as SmolLM2's adds one.
SYSTEM_TEMPLATE = (
    "[system] you are a helpful model [SEP] "
    "{% for message in messages %}[{{ message['role'] }}] {{ message['content'] }} [SEP] {% endfor %}"
    "{% if add_generation_prompt %}[assistant] {% endif %}"
)

#: A template whose text runs into the next word (no space): "abc" alone is one token, after a word two ("##ab",
#: "##c"), so the rendered input is one token longer than the text's tokens and the template's apart.
MERGING_TEMPLATE = (
    "{% for message in messages %}q: {{ message['content'] }}abc{% endfor %}"
    "{% if add_generation_prompt %} answer :{% endif %}"
)


@pytest.fixture(scope="module")
def tokenizer():
    """tiny-llama's tokenizer (MiniLM's WordPiece, with the tiny chat template; built offline on first use)."""
    return loading.cached_tokenizer(str(loading.model_folder("tiny-llama")))


def tokens(tokenizer, string: str) -> list[str]:
    """The tokens the forward pass reads (default special tokens)."""
    return tokenizer.convert_ids_to_tokens(tokenizer(string)["input_ids"])


def test_a_long_chat_input_keeps_its_generation_prompt_and_fits(tokenizer):
    (rendered,) = extraction.render("tiny-llama", [LONG], chat_template=True, max_tokens=32)
    read = tokens(tokenizer, rendered)
    assert len(read) == 32  # filled up to the limit, never beyond
    assert read[-5:] == ["[SEP]", "[", "assistant", "]", "[SEP]"]  # end of the user turn, generation prompt
    assert read[:6] == ["[CLS]", "[", "user", "]", "word", "##0"]  # the head and the text's first tokens


def test_a_system_prompt_and_the_generation_prompt_both_survive(tokenizer):
    for max_tokens in (20, 25, 40):
        inputs = truncation.fit_chat(tokenizer, SYSTEM_TEMPLATE, [LONG], max_tokens)
        read = tokens(tokenizer, inputs.strings[0])
        assert len(read) == max_tokens and read[-4:] == ["[", "assistant", "]", "[SEP]"]
        assert inputs.strings[0].startswith("[system] you are a helpful model [SEP] [user] word0")
        assert inputs.kept_tokens[0] == max_tokens - truncation.chat_overhead(tokenizer, SYSTEM_TEMPLATE)


def test_tokens_merging_across_the_template_boundary_are_cut_again(tokenizer):
    overhead = truncation.chat_overhead(tokenizer, MERGING_TEMPLATE)
    for max_tokens in range(overhead + 2, overhead + 30):
        inputs = truncation.fit_chat(tokenizer, MERGING_TEMPLATE, [LONG], max_tokens)
        assert len(tokens(tokenizer, inputs.strings[0])) == max_tokens and inputs.strings[0].endswith("abc answer :")
        assert inputs.kept_tokens[0] == max_tokens - overhead - 1  # the first cut was one token too long
    with pytest.raises(ValueError, match=rf"^max_tokens={overhead + 1} keeps no token of the text 'word0"):
        truncation.fit_chat(tokenizer, MERGING_TEMPLATE, [LONG], overhead + 1)  # one text token and its merge


def test_a_short_text_is_not_cut(tokenizer):
    inputs = truncation.fit_chat(tokenizer, None, [SHORT, LONG], 32)
    assert inputs.strings[0] == truncation.render_chat(tokenizer, None, SHORT)
    assert inputs.strings[0] == "[user] A short review. [SEP] [assistant] "
    assert inputs.kept_tokens[0] == inputs.text_tokens[0] == 4 and inputs.kept_tokens[1] < inputs.text_tokens[1]
    np.testing.assert_array_equal(truncation.fit_chat(tokenizer, None, [LONG], None).kept_tokens,
                                  [len(tokenizer(LONG, add_special_tokens=False)["input_ids"])])


def test_a_limit_below_the_template_names_max_tokens_and_the_minimum(tokenizer):
    overhead = truncation.chat_overhead(tokenizer, None)  # [CLS] [ user ] [SEP] [ assistant ] [SEP]
    assert overhead == 9
    with pytest.raises(ValueError, match=r"^max_tokens=9 cannot hold the chat template's 9 tokens and a text; "
                                         r"allowed: at least 10$"):
        extraction.render("tiny-llama", [SHORT], chat_template=True, max_tokens=9)
    assert len(tokens(tokenizer, extraction.render("tiny-llama", [LONG], True, 10)[0])) == 10  # one text token


def test_a_tokenizer_without_offsets_is_refused_before_any_cut():
    with pytest.raises(ValueError, match=r"^tokenizer SimpleNamespace has no token offsets; allowed: a fast tokenizer"):
        truncation.fit_chat(SimpleNamespace(is_fast=False), None, [LONG], 32)


def test_raw_texts_stay_whole_and_their_log_matches_the_tokenizers_cut(tokenizer):
    assert extraction.render("tiny-llama", [LONG], chat_template=False, max_tokens=32) == [LONG]
    inputs = extraction.input_lengths("tiny-llama", [LONG, SHORT], chat_template=False, max_tokens=32)
    cut = len(tokenizer(LONG, truncation=True, max_length=32)["input_ids"]) - 2  # less [CLS] and [SEP]
    np.testing.assert_array_equal(inputs.kept_tokens, [cut, 4])
    assert inputs.text_tokens[0] > cut and inputs.text_tokens[1] == 4


def test_the_logged_table_counts_the_texts_cut_per_task(tokenizer):
    pools = {"long": SimpleNamespace(texts_train=[LONG, SHORT], texts_test=[SHORT + " Again."]),
             "short": SimpleNamespace(texts_train=[SHORT], texts_test=[SHORT])}
    table = measure.input_lengths_table(["tiny-llama"], pools, 32, chat_template=True).set_index("task")
    assert table.loc["long", ["n_texts", "truncated", "kept_min", "kept_max", "kept_median"]].tolist() == \
        [3, pytest.approx(1 / 3), 4, 32 - 9, 6]
    assert table.loc["short", "truncated"] == 0 and set(table.format) == {"chat"}
    assert measure.input_lengths_table(["tiny-llama"], pools, 32).format.tolist() == ["plain", "plain"]  # A.1.2


QUESTION = "Is this news article about politics? Answer Yes or No.\n\n{text}"


def test_a_frame_is_kept_whole_and_only_its_text_is_cut(tokenizer):
    inputs = truncation.fit_chat(tokenizer, None, [LONG, SHORT], 40, frame=QUESTION)
    read = tokens(tokenizer, inputs.strings[0])
    assert len(read) == 40 and read[-5:] == ["[SEP]", "[", "assistant", "]", "[SEP]"]
    assert inputs.strings[0].startswith("[user] Is this news article about politics? Answer Yes or No.\n\nword0")
    assert inputs.kept_tokens[0] == 40 - truncation.chat_overhead(tokenizer, None, QUESTION)
    assert inputs.strings[1] == truncation.render_chat(tokenizer, None, SHORT, QUESTION)  # short: whole
    assert inputs.text_tokens.tolist() == [len(tokenizer(t, add_special_tokens=False)["input_ids"])
                                           for t in (LONG, SHORT)]
    with pytest.raises(ValueError, match=r"^frame='{text} and {text}' holds 2 \{text\} slots; allowed: exactly one$"):
        truncation.fit_chat(tokenizer, None, [SHORT], 40, frame="{text} and {text}")


@pytest.mark.parametrize("max_tokens", [16, 32, 64])
def test_token_states_read_every_token_of_a_fitted_chat_input(max_tokens, tokenizer):
    """K06's SAEs read token-level states after their own tokenizer call with max_length: the input already fits, so
    that call cuts nothing and the last state read is the generation prompt's (with the tokenizer's closing token)."""
    rendered = extraction.render("tiny-llama", [LONG, SHORT], chat_template=True, max_tokens=max_tokens)
    _, owners = extraction.token_states("tiny-llama", [LONG, SHORT], layers=[1], chat_template=True,
                                        max_tokens=max_tokens, progress=False)
    assert np.bincount(owners).tolist() == [len(tokens(tokenizer, r)) for r in rendered]
    assert np.bincount(owners)[0] == max_tokens


def test_every_paper_002_chat_input_is_rendered_by_the_one_rule():
    """K01–K03 and K05–K07 render a chat input only through lib.models.extraction (render, input_lengths,
    chat_inputs), which cuts the text so the generation prompt survives: no notebook and no module of paper 002's
    package or of the models wing calls a tokenizer's chat template, or truncation's renderer, on its own."""
    import ast

    from lib import paths

    files = [*sorted(paths.NOTEBOOKS_DIR.glob("K0*.py")), *sorted((paths.LIB_DIR / "kstar").rglob("*.py")),
             *sorted((paths.LIB_DIR / "models").glob("*.py"))]
    allowed = {paths.LIB_DIR / "models" / "truncation.py": {"apply_chat_template", "render_chat"},
               paths.LIB_DIR / "models" / "extraction.py": {"fit_chat"}}
    direct = sorted(f"{file.relative_to(paths.REPO_ROOT)}:{node.lineno} {name}"
                    for file in files for node in ast.walk(ast.parse(file.read_text(encoding="utf-8")))
                    if isinstance(node, ast.Call)
                    for name in [getattr(node.func, "attr", getattr(node.func, "id", ""))]
                    if name in {"apply_chat_template", "render_chat", "fit_chat"}
                    and name not in allowed.get(file, set()))
    assert len(files) > 20 and direct == []
