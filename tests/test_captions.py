"""lib.captions: a caption's first sentence, never cut inside a citation's parentheses or a formula."""

from __future__ import annotations

from lib import captions


def test_the_first_sentence_ends_after_the_citation_not_at_its_abbreviation():
    caption = "Family F1 (paper 000, Sec. 4.2; Fig. 3). Nominal detections. More."
    assert captions.first_sentence(caption) == "Family F1 (paper 000, Sec. 4.2; Fig. 3)."
    assert captions.first_sentence("Budget e.g. Sec. 5 of the paper. Then more.") == "Budget e.g. Sec. 5 of the paper."


def test_a_long_sentence_is_cut_at_a_word_outside_parentheses():
    caption = "Test texts an audit needs at the measured separation (paper 000, Sec. 6, for every dimension)."
    assert captions.first_sentence(caption, limit=80) == "Test texts an audit needs at the measured separation…"


def test_shorten_never_cuts_inside_a_formula():
    text = "$\\alpha^{2}\\Phi(\\frac{s}{\\sqrt{2}})+2\\alpha(1-\\alpha)$ and then some words"
    assert captions.shorten(text, 20) == "$\\alpha^{2}\\Phi(\\frac{s}{\\sqrt{2}})+2\\alpha(1-\\alpha)$…"
    assert captions.shorten("short", 20) == "short"
