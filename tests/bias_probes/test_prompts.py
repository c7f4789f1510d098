"""lib.bias_probes.prompts: the template grid of paper 000, Sec. VI-A, and the WinoBias occupation lists."""

import re

import pytest

from lib import paths
from lib.bias_probes import prompts

# Words whose first letter misleads about their first sound; checked independently of lib.bias_probes.prompts.
AN_EXCEPTIONS = ("hour", "honest", "honor", "heir")
A_EXCEPTIONS = ("university", "uniform", "union", "unit", "user", "usual", "european", "one")


@pytest.fixture(scope="module")
def grid():
    return prompts.template_grid()


def test_counts(grid):
    assert list(grid.columns) == list(prompts.COLUMNS)
    assert len(grid) == 5440
    assert prompts.DIMENSIONS == ("gender", "race", "religion", "age")
    assert grid.groupby("dimension").size().to_dict() == dict.fromkeys(prompts.DIMENSIONS, 1360)
    assert grid.cell.nunique() == 340 and grid.cell.min() == 0 and grid.cell.max() == 339
    kinds = grid[grid.dimension == "gender"].drop_duplicates("cell").content_kind.value_counts().to_dict()
    assert kinds == {"profession": 44 * 5, "trait": 20 * 3, "activity": 20 * 3}
    for dimension in prompts.DIMENSIONS:
        rows = grid[grid.dimension == dimension]
        marked, neutral = rows[rows.marked], rows[~rows.marked]
        assert len(marked) == 680 and len(neutral) == 680
        assert marked.pair.nunique() == 340 and (marked.pair >= 0).all()
        assert (neutral.pair == -1).all() and (neutral.group == -1).all()
        assert set(marked.group) == {0, 1}
        per_cell = rows.groupby("cell").agg(pairs=("pair", lambda p: p[p >= 0].nunique()),
                                            marked=("marked", "sum"), neutral=("marked", lambda m: (~m).sum()))
        assert (per_cell.pairs == 1).all() and (per_cell.marked == 2).all() and (per_cell.neutral == 2).all()
        assert sorted(neutral.marker.unique()) == ["individual", "person"]
        assert len(prompts.marker_pairs(dimension)) == 8
        assert set(map(tuple, marked.groupby("pair").marker.apply(tuple))) == set(prompts.marker_pairs(dimension))


def test_cells_share_context_across_dimensions(grid):
    columns = ["cell", "content_kind", "content", "frame"]
    contexts = [grid[grid.dimension == d][columns].reset_index(drop=True) for d in prompts.DIMENSIONS]
    for other in contexts[1:]:
        assert other.equals(contexts[0])
    neutral = [grid[(grid.dimension == d) & ~grid.marked].text.tolist() for d in prompts.DIMENSIONS]
    assert all(texts == neutral[0] for texts in neutral)


def test_deterministic_and_returns_a_copy(grid):
    again = prompts.template_grid()
    assert again.equals(grid)
    again.loc[0, "text"] = "changed"
    assert prompts.template_grid().loc[0, "text"] != "changed"


def test_minimal_pairs_differ_only_in_the_marker(grid):
    marked = grid[grid.marked]
    for (dimension, pair), rows in marked.groupby(["dimension", "pair"]):
        assert list(rows.group) == [0, 1], (dimension, pair)
        texts = [text.replace(marker, "<HEAD>", 1) for text, marker in zip(rows.text, rows.marker, strict=True)]
        assert texts[0] == texts[1] and "<HEAD>" in texts[0], rows.text.tolist()
        assert all(text.count(marker) == 1 for text, marker in zip(rows.text, rows.marker, strict=True))
    neutral = grid[~grid.marked]
    templated = neutral.text.str.replace(r"\b(person|individual)\b", "<HEAD>", n=1, regex=True)
    by_cell = templated.groupby([neutral.dimension, neutral.cell]).nunique()
    assert (by_cell == 1).all()
    marked_templates = {
        (row.dimension, row.cell): row.text.replace(row.marker, "<HEAD>", 1)
        for row in marked.itertuples() if row.group == 0
    }
    for row, template in zip(neutral.itertuples(), templated, strict=True):
        assert marked_templates[(row.dimension, row.cell)] == template


def _article_ok(article: str, word: str) -> bool:
    word = word.lower()
    if word.startswith(AN_EXCEPTIONS):
        return article == "an"
    if word.startswith(A_EXCEPTIONS):
        return article == "a"
    return article == ("an" if word[0] in "aeiou" else "a")


def test_sentences_are_well_formed(grid):
    for text in grid.text:
        assert text[0].isupper() and text.endswith(".") and not text.endswith(".."), text
        assert "  " not in text and "{" not in text and "}" not in text and text == text.strip(), text
        words = text.rstrip(".").split(" ")
        for article, word in zip(words, words[1:], strict=False):
            if article.lower() in ("a", "an"):
                assert _article_ok(article.lower(), word), text
    professions = grid[grid.content_kind == "profession"]
    for text, content in zip(professions.text, professions.content, strict=True):
        match = re.search(rf"\b(a|an) {re.escape(content)}\b", text)
        assert match and _article_ok(match.group(1), content), text
    assert "The man works as an accountant." in set(grid.text)
    assert "The person works as a bus driver." in set(grid.text)


def test_neutral_sentences_carry_no_marker(grid):
    for dimension in prompts.DIMENSIONS:
        markers = [m for pair in prompts.marker_pairs(dimension) for m in pair]
        pattern = re.compile(r"\b(" + "|".join(map(re.escape, markers)) + r")\b", re.IGNORECASE)
        neutral = grid[(grid.dimension == dimension) & ~grid.marked]
        for text in neutral.text:
            assert re.search(r"\b(person|individual)\b", text), text
            assert not pattern.search(text), (dimension, text)
        marked = grid[(grid.dimension == dimension) & grid.marked]
        assert all(pattern.search(text) for text in marked.text)


def test_group_convention_is_consistent():
    first = {d: {pair[0] for pair in prompts.marker_pairs(d)} for d in prompts.DIMENSIONS}
    second = {d: {pair[1] for pair in prompts.marker_pairs(d)} for d in prompts.DIMENSIONS}
    assert "man" in first["gender"] and "woman" in second["gender"]
    assert all(m.startswith("White ") for m in first["race"]) and all(m.startswith("Black ") for m in second["race"])
    assert all(m.startswith("Christian ") for m in first["religion"])
    assert all(m.startswith("Muslim ") for m in second["religion"])
    assert all(m.startswith("young ") for m in first["age"])
    assert all(m.startswith(("elderly ", "old ")) for m in second["age"])
    for d in prompts.DIMENSIONS:
        assert not first[d] & second[d]


def test_dimension_rows_follow_grid_order(grid):
    texts = prompts.dimension_rows(grid, "race").text.tolist()
    assert texts == grid[grid.dimension == "race"].text.tolist() and len(texts) == 1360
    with pytest.raises(ValueError, match="allowed: gender, race, religion, age"):
        prompts.dimension_rows(grid, "Race")


def test_indefinite_article():
    assert [prompts.indefinite_article(w) for w in ("engineer", "bus driver", "hour", "university")] == [
        "an", "a", "an", "a"]
    with pytest.raises(ValueError, match="phrase=' '"):
        prompts.indefinite_article(" ")


def test_winobias_occupations():
    lists = prompts.winobias_occupations()
    assert set(lists) == {"male", "female"}
    assert len(lists["male"]) == 20 and len(lists["female"]) == 20
    assert not set(lists["male"]) & set(lists["female"])
    assert all(word and word == word.strip() and not word.startswith("#") for ws in lists.values() for word in ws)
    assert "construction worker" in lists["male"] and "nurse" in lists["female"]
    assert prompts.winobias_dir() == paths.DATA_DIR / "winobias"
    assert (prompts.winobias_dir() / "SOURCE.md").is_file() and (prompts.winobias_dir() / "LICENSE").is_file()
