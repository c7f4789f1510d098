"""lib.mathml: the papers' ``$…$`` as MathML, in text, in HTML fragments and in Markdown."""

from __future__ import annotations

from markdown_it import MarkdownIt

from lib import mathml


def test_text_is_escaped_and_each_dollar_span_becomes_math():
    html = mathml.text_html("a <b> & $\\alpha^{2}\\Phi(\\frac{s}{\\sqrt{2}})$ then $n=300$.")
    assert html.startswith("a &lt;b&gt; &amp; <math") and html.endswith("</math>.")
    assert html.count("<math") == 2 and "<mfrac>" in html and "<msqrt>" in html and "$" not in html


def test_currency_and_lone_dollars_stay_text():
    assert mathml.text_html("costs $5 and $6") == "costs $5 and $6"
    assert mathml.text_html("a $ b $ c") == "a $ b $ c"  # a space inside the dollars: not math


def test_tex_it_cannot_read_is_shown_as_written():
    assert mathml.tex("x^") == '<code class="tex">x^</code>'


def test_in_html_converts_text_and_leaves_tags_style_and_code():
    fragment = '<style>td { x: "$a$" }</style><td title="$b$">&lt; $\\beta_{B}$</td><code>$c$</code>'
    html = mathml.in_html(fragment)
    assert html.startswith('<style>td { x: "$a$" }</style><td title="$b$">&lt; <math')
    assert "<msub>" in html and html.endswith("</math></td><code>$c$</code>")


def test_markdown_reads_inline_and_display_math():
    parser = mathml.use_in_markdown(MarkdownIt("commonmark", {"html": False}))
    html = parser.render("The law $\\alpha$ costs $5.\n\n$$\\frac{a}{b}$$\n")
    assert html.count("<math") == 2 and 'display="block"' in html and "costs $5." in html
