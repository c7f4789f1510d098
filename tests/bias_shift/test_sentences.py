"""lib.bias_shift.sentences: the ΔB sentence sets of paper 001 (Sec. 3–4, Appendices B, E, F) and their variants."""

import dataclasses
import re
import statistics

import pytest

from lib.bias_shift import sentences

# Paper 001, Appendix B, Table 2, written out here independently of lib.bias_shift.sentences.
PAPER_TOPICS = {
    "Sexual Orientation": ["Homosexuals"],
    "Religion": ["Muslims", "Christians", "Jews", "Buddhists", "Atheists"],
    "Race": ["Black people", "White people", "Asians", "Caucasians"],
    "Ethnicity": ["Mexicans", "Latin Americans"],
    "Gender": ["Women", "Men"],
    "Age": ["Old people", "Young people"],
    "Disability": ["Physically disabled people", "Able-bodied people"],
    "Socioeconomic Status": ["Poor people", "Rich people"],
    "Nationality": ["Immigrants", "Canadians", "Americans", "Europeans"],
}
SENTENCE_FILES = (
    [f"{kind}.txt" for kind in ("positive", "negative")]
    + [f"{kind}_{v}.txt" for kind in ("positive", "negative") for v in sentences.ATTRIBUTE_VARIANTS[1:]]
    + ["anchors_neutral.txt", "anchors_instructions.txt"]
)
TEMPLATE_FILES = ["target_templates.txt"] + [f"target_templates_{v}.txt" for v in sentences.TARGET_VARIANTS[1:]]
# Words that name or evoke a social group, or a colour tied to race; attributes must not contain them.
IDENTITY_WORDS = (
    "black", "white", "dark", "asian", "asians", "caucasian", "mexican", "latin", "american", "americans",
    "canadian", "european", "immigrant", "immigrants", "muslim", "christian", "jew", "jewish", "jews", "buddhist",
    "atheist", "homosexual", "homosexuals", "gay", "woman", "women", "man", "men", "girl", "boy", "old", "young",
    "elderly", "disabled", "poor", "rich", "wealthy",
)


def file_lines(name: str) -> list[str]:
    return (sentences.data_dir() / name).read_text(encoding="utf-8").splitlines()


def n_words(text: str) -> int:
    return len(text.split())


def mentioned_groups(text: str) -> set[str]:
    """Groups whose in-sentence phrase occurs in ``text`` as whole words ("Americans" not in "Latin Americans")."""
    found = set()
    for group in sentences.GROUPS:
        phrase = re.escape(sentences.group_phrase(group))
        if re.search(rf"(?<![\w-])(?<!Latin ){phrase}(?![\w-])", text, flags=re.IGNORECASE):
            found.add(group)
    return found


@pytest.fixture(scope="module")
def base():
    return sentences.load()


# ---------------------------------------------------------------- groups and topics (Appendix B)


def test_groups_and_topics_match_appendix_b():
    assert {topic: list(groups) for topic, groups in sentences.TOPICS.items()} == PAPER_TOPICS
    assert list(sentences.TOPICS) == list(PAPER_TOPICS)
    assert sentences.GROUPS == tuple(group for groups in PAPER_TOPICS.values() for group in groups)
    assert len(sentences.GROUPS) == 24 and len(set(sentences.GROUPS)) == 24
    assert len(sentences.TOPICS) == 9


def test_topics_partition_the_groups():
    seen = [group for topic in sentences.TOPICS for group in sentences.TOPICS[topic]]
    assert sorted(seen) == sorted(sentences.GROUPS)  # each group in exactly one topic
    for topic, groups in PAPER_TOPICS.items():
        assert sentences.TOPICS[topic] == tuple(groups)
        for group in groups:
            assert sentences.topic_of(group) == topic
    assert sentences.topic_of("Latin Americans") == "Ethnicity"
    assert sentences.topic_of("Americans") == "Nationality"


def test_groups_yaml_agrees_and_phrases_capitalise_back():
    for group in sentences.GROUPS:
        phrase = sentences.group_phrase(group)
        assert phrase[0].upper() + phrase[1:] == group
    assert sentences.group_phrase("Old people") == "old people"
    assert sentences.group_phrase("Black people") == "Black people"
    assert sentences.group_phrase("Muslims") == "Muslims"
    assert sentences.group_phrase("Immigrants") == "immigrants"


@pytest.mark.parametrize("bad", ["Asian", "black people", "", "Hispanics"])
def test_unknown_group_raises(bad):
    with pytest.raises(ValueError, match=rf"group={re.escape(repr(bad))}.*allowed: Homosexuals, Muslims"):
        sentences.topic_of(bad)


# ---------------------------------------------------------------- sizes (Appendix F)


def test_default_load_sizes(base):
    assert isinstance(base, sentences.SentenceSets)
    assert list(base.targets) == list(sentences.GROUPS)
    assert all(len(targets) == 50 for targets in base.targets.values())
    assert sum(len(targets) for targets in base.targets.values()) == 1200
    assert len(base.positive) == 100 and len(base.negative) == 100
    assert len(base.anchors) == 1000
    assert base.anchors == file_lines("anchors_neutral.txt")


def test_sentence_sets_are_frozen(base):
    with pytest.raises(dataclasses.FrozenInstanceError):
        base.positive = []  # type: ignore[misc]


@pytest.mark.parametrize("attribute_variant", sentences.ATTRIBUTE_VARIANTS)
@pytest.mark.parametrize("target_variant", sentences.TARGET_VARIANTS)
def test_every_variant_loads_with_the_paper_sizes(attribute_variant, target_variant, base):
    sets = sentences.load(attribute_variant=attribute_variant, target_variant=target_variant)
    assert [len(sets.targets[group]) for group in sentences.GROUPS] == [50] * 24
    assert (len(sets.positive), len(sets.negative), len(sets.anchors)) == (100, 100, 1000)
    # Appendix E: attribute variants leave targets fixed, target variants leave attributes fixed.
    if attribute_variant == "base":
        assert (sets.positive, sets.negative) == (base.positive, base.negative)
    if target_variant == "base":
        assert sets.targets == base.targets
    assert sets.anchors == base.anchors


@pytest.mark.parametrize("source", sentences.ANCHOR_SOURCES)
def test_each_anchor_source_has_1000_unique_items(source):
    lines = file_lines(f"anchors_{source}.txt")
    assert len(lines) == 1000 and len(set(lines)) == 1000
    assert sentences.load(anchor_source=source).anchors == lines


def test_every_data_file_is_clean_and_documented():
    readme = (sentences.data_dir() / "README.md").read_text(encoding="utf-8")
    for name in [*SENTENCE_FILES, *TEMPLATE_FILES, "anchors_words.txt", "groups.yaml"]:
        assert re.sub(r"_v[23]\.txt$", "_v1.txt", name) in readme, name  # "…_v1.txt … _v3.txt" rows
        if name.endswith(".txt"):
            lines = file_lines(name)
            assert all(line and line == line.strip() for line in lines), name
            assert len(set(lines)) == len(lines), f"{name} has duplicates"


# ---------------------------------------------------------------- lengths and style


@pytest.mark.parametrize("name", SENTENCE_FILES)
def test_sentence_files_average_about_seven_words(name):
    lines = file_lines(name)
    assert 5 <= statistics.mean(n_words(line) for line in lines) <= 10, name
    assert all(4 <= n_words(line) <= 12 for line in lines), name
    assert all(line[0].isupper() and line.endswith(".") for line in lines), name


@pytest.mark.parametrize("variant", sentences.TARGET_VARIANTS)
def test_target_sentences_average_about_seven_words(variant):
    targets = sentences.target_sentences(variant)
    for group, texts in targets.items():
        assert 5 <= statistics.mean(n_words(text) for text in texts) <= 10, (variant, group)
        assert all(text[0].isupper() and text.endswith(".") for text in texts)


def test_word_anchors_are_single_common_words():
    words = file_lines("anchors_words.txt")
    assert all(re.fullmatch(r"[a-z]+", word) for word in words)
    assert not set(words) & set(IDENTITY_WORDS)


def test_instruction_anchors_are_imperatives():
    lines = file_lines("anchors_instructions.txt")
    first_words = {line.split()[0] for line in lines}
    assert first_words <= {"Write", "Explain", "List", "Give", "Describe", "Create", "Suggest", "Compose", "Draft",
                           "Generate", "Name", "Outline"}
    assert not any(mentioned_groups(line) for line in lines)


# ---------------------------------------------------------------- targets (Sec. 3.4, Appendix F)


@pytest.mark.parametrize("variant", sentences.TARGET_VARIANTS)
def test_targets_are_the_templates_instantiated_per_group(variant):
    templates = file_lines(f"target_templates{'' if variant == 'base' else '_' + variant}.txt")
    assert len(templates) == 50 and all(template.count("{group}") == 1 for template in templates)
    targets = sentences.load(target_variant=variant).targets
    for group in sentences.GROUPS:
        phrase = sentences.group_phrase(group)
        expected = [template.replace("{group}", phrase) for template in templates]
        assert targets[group] == [text[0].upper() + text[1:] for text in expected]
        assert all(mentioned_groups(text) == {group} for text in targets[group]), group


def test_base_targets_start_with_the_group_and_passives_keep_its_case():
    targets = sentences.target_sentences("base")
    assert all(text.startswith(group + " ") for group in sentences.GROUPS for text in targets[group])
    assert targets["Old people"][1] == "Old people live in many different countries."
    passive = sentences.target_sentences("passive")
    assert passive["Old people"][0] == "Community events are attended by old people every month."
    assert passive["Black people"][0] == "Community events are attended by Black people every month."
    assert passive["Latin Americans"][0].endswith("by Latin Americans every month.")


def test_target_sets_differ_between_groups(base):
    texts = [text for group in sentences.GROUPS for text in base.targets[group]]
    assert len(set(texts)) == 24 * 50


# ---------------------------------------------------------------- variants (Appendix E)


@pytest.mark.parametrize("variant", sentences.TARGET_VARIANTS[1:])
def test_target_variants_are_aligned_and_differ_from_base(variant):
    base_templates = file_lines("target_templates.txt")
    templates = file_lines(f"target_templates_{variant}.txt")
    assert len(templates) == len(base_templates) == 50
    assert all(t != b for t, b in zip(templates, base_templates, strict=True)), variant
    if variant.startswith("passive"):
        assert all(" by {group}" in t for t in templates)  # the group becomes the agent
    else:
        assert all(t.startswith("{group} ") for t in templates)  # structure (and subject) kept


def test_target_synonym_versions_differ_from_each_other():
    versions = [file_lines(f"target_templates_synonyms_v{i}.txt") for i in (1, 2, 3)]
    assert all(len(set(row)) == 3 for row in zip(*versions, strict=True))
    passive = zip(file_lines("target_templates_passive.txt"), file_lines("target_templates_passive_rephrased.txt"),
                  strict=True)
    assert all(p != r for p, r in passive)


@pytest.mark.parametrize("kind", ["positive", "negative"])
@pytest.mark.parametrize("variant", sentences.ATTRIBUTE_VARIANTS[1:])
def test_attribute_variants_are_aligned_and_differ_from_base(kind, variant):
    base_lines = file_lines(f"{kind}.txt")
    lines = file_lines(f"{kind}_{variant}.txt")
    assert len(lines) == len(base_lines) == 100
    pairs = list(zip(base_lines, lines, strict=True))
    if variant == "subject_v1":
        assert all(line.split()[0] in ("They", "Their") for line in lines)
        assert all(line != b for b, line in pairs if b.split()[0] not in ("They", "Their"))
        assert not any(re.search(r"\b(she|he|her|his|him|I|my|me|we|our|us)\b", line, re.I) for line in lines)
    elif variant == "subject_v2":
        assert all(re.match(r"(The person('s)? |People |The people's )", line) for line in lines)
        assert all(line != b for b, line in pairs)
    else:
        assert all(line != b for b, line in pairs)
        assert all(line.split()[0] == b.split()[0] for b, line in pairs)  # subject kept, wording changed
    assert sum(line != b for b, line in pairs) >= 80


@pytest.mark.parametrize("kind", ["positive", "negative"])
def test_attribute_synonym_versions_differ_from_each_other(kind):
    versions = [file_lines(f"{kind}_synonyms_v{i}.txt") for i in (1, 2, 3)]
    assert all(len(set(row)) == 3 for row in zip(*versions, strict=True))


def test_attribute_base_subjects_are_varied():
    first = [line.split()[0] for kind in ("positive", "negative") for line in file_lines(f"{kind}.txt")]
    for subject in ("She", "He", "They", "I", "We", "It", "Her", "His"):
        assert first.count(subject) >= 2, subject
    assert max(first.count(subject) for subject in set(first)) <= 60


# ---------------------------------------------------------------- disjointness


@pytest.mark.parametrize("variant", sentences.ATTRIBUTE_VARIANTS)
def test_positive_and_negative_are_disjoint_and_group_free(variant):
    positive, negative = sentences.attribute_sentences(variant)
    assert not set(positive) & set(negative)
    for text in positive + negative:
        assert not mentioned_groups(text), text
        words = set(re.findall(r"[a-z]+", text.lower()))
        assert not words & set(IDENTITY_WORDS), text


@pytest.mark.parametrize("source", sentences.ANCHOR_SOURCES)
def test_anchors_are_disjoint_from_targets_and_attributes(source):
    anchors = set(file_lines(f"anchors_{source}.txt"))
    for variant in sentences.TARGET_VARIANTS:
        targets = {text for texts in sentences.target_sentences(variant).values() for text in texts}
        assert not anchors & targets, (source, variant)
        lowered = {text.lower() for text in targets}
        assert not {anchor.lower() for anchor in anchors} & lowered
    for variant in sentences.ATTRIBUTE_VARIANTS:
        positive, negative = sentences.attribute_sentences(variant)
        assert not anchors & (set(positive) | set(negative)), (source, variant)


def test_neutral_anchors_cover_every_group_evenly():
    anchors = file_lines("anchors_neutral.txt")
    counts = dict.fromkeys(sentences.GROUPS, 0)
    for anchor in anchors:
        groups = mentioned_groups(anchor)
        assert len(groups) == 1, anchor
        counts[groups.pop()] += 1
    assert set(counts.values()) <= {41, 42} and sum(counts.values()) == 1000
    # The first 240 lines already hold every group ten times (prefixes are balanced).
    first = [mentioned_groups(anchor).pop() for anchor in anchors[:240]]
    assert all(first.count(group) == 10 for group in sentences.GROUPS)


def test_neutral_anchors_do_not_reuse_a_target_predicate():
    templates = [t.replace("{group} ", "") for name in TEMPLATE_FILES for t in file_lines(name)
                 if t.startswith("{group} ")]
    for anchor in file_lines("anchors_neutral.txt"):
        assert not any(anchor.endswith(" " + predicate) for predicate in templates), anchor


# ---------------------------------------------------------------- anchor subsets (Sec. 4.5)


@pytest.mark.parametrize("source", sentences.ANCHOR_SOURCES)
def test_anchor_subsets_are_nested_seeded_and_in_file_order(source):
    full = file_lines(f"anchors_{source}.txt")
    position = {text: i for i, text in enumerate(full)}
    sizes = (50, 100, 200, 500, 1000)
    for seed in (0, 1):
        subsets = [sentences.load(anchor_source=source, anchor_size=size, seed=seed).anchors for size in sizes]
        for size, subset in zip(sizes, subsets, strict=True):
            assert len(subset) == size and len(set(subset)) == size
            assert [position[text] for text in subset] == sorted(position[text] for text in subset)
        for smaller, larger in zip(subsets, subsets[1:], strict=False):
            assert set(smaller) < set(larger)
        assert subsets[-1] == full
    assert sentences.anchor_sentences(source, 50, seed=0) == sentences.anchor_sentences(source, 50, seed=0)
    assert sentences.anchor_sentences(source, 50, seed=0) != sentences.anchor_sentences(source, 50, seed=1)
    assert len(sentences.anchor_sentences(source, 73, seed=3)) == 73
    indices = sentences.anchor_indices(73, seed=3)
    assert [full[i] for i in indices] == sentences.anchor_sentences(source, 73, seed=3)


def test_small_neutral_anchor_subset_still_spans_most_groups():
    subset = sentences.anchor_sentences("neutral", 50, seed=0)
    assert len({mentioned_groups(anchor).pop() for anchor in subset}) >= 15


# ---------------------------------------------------------------- errors


@pytest.fixture
def no_reading(monkeypatch):
    """Make any file read fail loudly, to show that arguments are checked before reading."""

    def boom(*args, **kwargs):
        raise AssertionError("a data file was read before the arguments were checked")

    monkeypatch.setattr(sentences, "_lines", boom)
    monkeypatch.setattr(sentences, "_groups_file", boom)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"attribute_variant": "subject_v3"}, r"attribute_variant='subject_v3'.*allowed: base, subject_v1"),
        ({"attribute_variant": "passive"}, r"attribute_variant='passive'.*synonyms_v3"),
        ({"target_variant": "subject_v1"}, r"target_variant='subject_v1'.*allowed: base, passive, passive_rephrased"),
        ({"target_variant": "Base"}, r"target_variant='Base'"),
        ({"anchor_source": "alpaca"}, r"anchor_source='alpaca'.*allowed: neutral, words, instructions"),
        ({"anchor_size": 49}, r"anchor_size=49.*from 50 to 1000"),
        ({"anchor_size": 1001}, r"anchor_size=1001.*from 50 to 1000"),
        ({"anchor_size": 100.0}, r"anchor_size=100\.0.*integer"),
        ({"anchor_size": True}, r"anchor_size=True"),
        ({"seed": -1}, r"seed=-1.*non-negative integer"),
        ({"seed": "0"}, r"seed='0'"),
    ],
)
def test_bad_arguments_raise_before_reading(no_reading, kwargs, message):
    with pytest.raises(ValueError, match=message):
        sentences.load(**kwargs)


def test_bad_arguments_raise_in_the_helpers_too():
    with pytest.raises(ValueError, match="attribute_variant='x'"):
        sentences.attribute_sentences("x")
    with pytest.raises(ValueError, match="target_variant='x'"):
        sentences.target_sentences("x")
    with pytest.raises(ValueError, match="anchor_source='x'"):
        sentences.anchor_sentences("x")
    with pytest.raises(ValueError, match="anchor_size=0"):
        sentences.anchor_sentences("words", 0)
