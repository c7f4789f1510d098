"""The papers' TeX as MathML, for pages read offline.

Claims quote the papers' words with their mathematics between dollars (``$\\alpha^{2}\\Phi(s/\\sqrt{2})$``).
:func:`text_html` escapes such a text for HTML and turns each ``$…$`` span into a ``<math>`` element
(latex2mathml, pure Python), which browsers render natively: no script, no font download, nothing from the
network. :func:`in_html` does the same inside the text of an HTML fragment (a notebook's table output), and
:func:`use_in_markdown` adds ``$…$`` and ``$$…$$`` to a markdown-it parser (mdit-py-plugins' dollarmath).
"""

from __future__ import annotations

import html
import re
from typing import Any

from latex2mathml.converter import convert
from markdown_it import MarkdownIt
from mdit_py_plugins.dollarmath import dollarmath_plugin

#: An inline ``$…$`` span as Markdown dialects read one: no space inside either dollar, no digit right after the
#: closing one (so "$5 and $6" stays currency), no line break inside.
INLINE = re.compile(r"(?<![\\$])\$(?![\s$])((?:\\.|[^$\\\n])+?)(?<!\s)\$(?!\d)")
_TAG = re.compile(r"(<[^>]*>)")
_RAW_TEXT = ("style", "script", "pre", "code")


def tex(source: str, *, display: bool = False) -> str:
    """``source`` (TeX without its dollars) as a ``<math>`` element; TeX latex2mathml cannot read stays as
    escaped source in ``<code class="tex">`` (shown as written rather than lost)."""
    try:
        return convert(source, display="block" if display else "inline")
    except Exception:  # latex2mathml raises bare exceptions of many kinds on TeX it does not know
        return f'<code class="tex">{html.escape(source)}</code>'


def text_html(text: str) -> str:
    """``text`` escaped for HTML, each ``$…$`` span as MathML."""
    parts = INLINE.split(str(text))
    return "".join(tex(part) if odd else html.escape(part) for odd, part in
                   ((i % 2 == 1, p) for i, p in enumerate(parts)))


def in_html(fragment: str) -> str:
    """``fragment`` with the ``$…$`` spans of its text as MathML; tags, and the text of ``style``, ``script``,
    ``pre`` and ``code`` elements, are kept as they are."""
    pieces, raw = [], 0
    for piece in _TAG.split(fragment):
        if piece.startswith("<"):
            name = re.match(r"</?\s*([a-zA-Z0-9]+)", piece)
            if name and name.group(1).lower() in _RAW_TEXT and not piece.endswith("/>"):
                raw += -1 if piece.startswith("</") else 1
            pieces.append(piece)
        elif raw > 0 or "$" not in piece:
            pieces.append(piece)
        else:
            pieces.append(text_html(html.unescape(piece)))
    return "".join(pieces)


def _render(content: str, options: dict[str, Any]) -> str:
    return tex(content, display=bool(options.get("display_mode")))


def use_in_markdown(parser: MarkdownIt) -> MarkdownIt:
    """``parser`` reading ``$…$`` (inline) and ``$$…$$`` (display) as MathML."""
    return parser.use(dollarmath_plugin, allow_space=False, allow_digits=False, double_inline=True, renderer=_render)
