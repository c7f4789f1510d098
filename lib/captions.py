"""A caption's opening, cut where a reader would cut it: at the end of its first sentence, else at a word.

Captions cite the papers ("Family F1 (paper 000, Sec. 4.2). Each row …"): a full stop after an abbreviation
("Sec.", "Eq.", "e.g.") or inside parentheses or ``$…$`` mathematics ends no sentence.
"""

from __future__ import annotations

import re

#: Words whose full stop ends no sentence.
ABBREVIATIONS = frozenset({"sec", "secs", "eq", "eqs", "fig", "figs", "tab", "thm", "app", "e.g", "i.e", "cf",
                           "vs", "al", "approx", "resp", "no", "ref", "def", "prop", "lem", "cor", "ch"})
_END = re.compile(r"[.;!?](?=\s+[A-Z])")


def _depths(text: str) -> list[tuple[int, bool]]:
    """Per character of ``text``: how many parentheses or brackets are open before it, and whether a ``$…$``
    span is."""
    depth, math, found = 0, False, []
    for char in text:
        found.append((depth, math))
        if char == "$":
            math = not math
        elif char in "([{":
            depth += 1
        elif char in ")]}":
            depth = max(depth - 1, 0)
    return found


def first_sentence(caption: str, limit: int = 160) -> str:
    """The first sentence of ``caption``, :func:`shorten` to ``limit`` characters."""
    text = " ".join(caption.split())
    depths = _depths(text)
    for end in _END.finditer(text):
        word = re.search(r"([\w.]+)$", text[:end.start()])
        abbreviation = end.group() == "." and word is not None and word.group(1).lower() in ABBREVIATIONS
        if depths[end.start()] == (0, False) and not abbreviation:
            text = text[:end.end()]
            break
    return shorten(text, limit)


def shorten(text: str, limit: int) -> str:
    """``text``, or when longer than ``limit`` characters its start cut at the last word boundary (outside
    parentheses where one fits, never inside ``$…$`` mathematics), ending with "…"."""
    if len(text) <= limit:
        return text
    depths = _depths(text)
    spaces = [i for i in range(1, limit) if text[i] == " " and not depths[i][1]]
    outside = [i for i in spaces if depths[i][0] == 0]
    cut = (outside or spaces or [limit])[-1]
    while cut < len(text) and depths[cut][1]:  # never inside mathematics: a formula is kept whole
        cut += 1
    return text[:cut].rstrip(" ,;:(") + "…"
