"""A notebook as the command line names it: its full name or its short id, in any case.

The short id is a name's part before its first ``_``: ``E08`` for ``E08_leakage``, ``E01b`` for
``E01b_paraphrases``, ``00`` for ``00_theory_checks``. A name resolves, in this order, to the notebook it spells
exactly, the one it spells in another case (``e08_leakage``), or the one whose short id it is in any case (``e08``,
``E01`` is ``E01_regimes`` and never ``E01b_paraphrases``). Two notebooks that answer at one step are refused,
naming both; so is a name that answers to none, with the closest one and every available name.
"""

from __future__ import annotations

from collections.abc import Sequence

from lib import config


def short_id(notebook: str) -> str:
    """The part of ``notebook`` before its first ``_`` (the whole name when it has none)."""
    return notebook.split("_", 1)[0]


def _unknown(name: str, profile: str, available: Sequence[str]) -> str:
    """One line for a name no notebook under ``profile`` answers to: the closest name, then what is allowed."""
    choices = [*available, *(short_id(n) for n in available)]
    example = f", e.g. {short_id(available[0])} for {available[0]}" if available else ""
    return (f"no notebook {name!r} under profile {profile!r}{config.did_you_mean(name, choices)} (allowed: a name or "
            f"its short id, the part before '_', in any case{example}; available: {', '.join(available) or 'none'})")


def resolve(name: str, profile: str, available: Sequence[str]) -> str:
    """The notebook of ``available`` (those under ``profile``) that ``name`` names; a
    :class:`lib.config.ConfigError` in one line when none or two do."""
    if name in available:
        return name
    wanted = name.casefold()
    for found in ([n for n in available if n.casefold() == wanted],
                  [n for n in available if short_id(n).casefold() == wanted]):
        if len(found) == 1:
            return found[0]
        if found:
            raise config.ConfigError(f"notebook {name!r} is ambiguous under profile {profile!r}: it names "
                                     f"{', '.join(found)}; allowed: one of their full names")
    raise config.ConfigError(_unknown(name, profile, available))


def resolve_all(names: Sequence[str], profile: str, available: Sequence[str]) -> list[str]:
    """Each of ``names`` resolved (:func:`resolve`), in order, each notebook once; every bad name at once, a
    :class:`lib.config.ConfigError` of one line each."""
    found, problems = [], []
    for name in names:
        try:
            found.append(resolve(name, profile, available))
        except config.ConfigError as error:
            problems.append(str(error))
    if problems:
        raise config.ConfigError("\n".join(problems))
    return list(dict.fromkeys(found))
