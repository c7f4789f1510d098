"""One figure style, and figures/tables whose captions name their logged sources.

``save_figure`` and ``save_table`` derive ``figures/<profile>/<notebook>/`` from the
result files they were drawn from (``results/<profile>/<notebook>/…``), so a caption's
``Source:`` lines always point at files that exist and carry a manifest. Every saved figure is laid
out by a layout engine and checked for texts that overlap or leave the canvas (:func:`text_collisions`). Inside a
notebook's kernel each saved figure is also the cell's image output (:func:`show_in_notebook`), whatever matplotlib's
backend: a batch draws with Agg, which shows nothing by itself.
"""

from __future__ import annotations

import base64
import io
import sys
import warnings
from collections.abc import Iterator, Sequence
from pathlib import Path

import matplotlib
import numpy as np
import pandas as pd
from matplotlib.path import Path as Outline
from matplotlib.text import Text

from lib import paths, results

_INLINE = "module://matplotlib_inline.backend_inline"


def use_style() -> None:
    """The companion's style: seaborn whitegrid, paper context, constrained layout; Agg unless shown inline."""
    if matplotlib.get_backend() != _INLINE:
        matplotlib.use("Agg")
    import seaborn as sns

    sns.set_theme(context="paper", style="whitegrid", palette="colorblind")
    matplotlib.rcParams.update({"figure.dpi": 110, "savefig.dpi": 200, "savefig.bbox": "tight",
                                 "figure.constrained_layout.use": True})


def _destination(sources: Sequence[Path]) -> tuple[str, str]:
    """(profile, notebook) shared by every source; each source must be a complete result."""
    if not sources:
        raise ValueError("sources is empty: every figure and table must name the results it shows")
    places = set()
    for source in sources:
        results.read_manifest(source)  # raises if the source is not a complete logged result
        relative = Path(paths.relative_to_root(source))
        if len(relative.parts) != 4 or relative.parts[0] != "results":
            raise ValueError(f"{relative} is not under results/<profile>/<notebook>/")
        places.add(relative.parts[1:3])
    if len(places) != 1:
        raise ValueError(f"sources span several notebooks or profiles: {sorted(places)}")
    return places.pop()


def _caption_text(caption: str, sources: Sequence[Path]) -> str:
    lines = [caption.strip(), ""]
    lines += [f"Source: {paths.relative_to_root(s)}" for s in sources]
    return "\n".join(lines) + "\n"


def _holds_nothing(ax) -> bool:
    """No lines, collections, images, patches, texts, tables, containers or legend in ``ax`` or its twins."""
    siblings = ax._twinned_axes.get_siblings(ax) if hasattr(ax, "_twinned_axes") else [ax]
    return not any(a.lines or a.collections or a.images or a.patches or a.texts or a.tables or a.containers
                   or a.artists or a.get_legend() is not None or a.child_axes for a in siblings)


def hide_empty_panels(fig) -> list:
    """Turn off every panel of ``fig`` that holds no artist (a grid drawn larger than its data); returns them."""
    empty = [ax for ax in fig.axes if ax.axison and _holds_nothing(ax)]
    for ax in empty:
        ax.set_axis_off()
    return empty


#: How far (display pixels at the figure's dpi) two texts may overlap, or a text pass the canvas edge, unreported:
#: glyph boxes include their leading, so texts that merely touch are not a collision.
TOUCH_PX = 1.0


class FigureLayoutWarning(UserWarning):
    """Texts of a saved figure overlap each other or another panel, or leave its canvas (:func:`text_collisions`)."""


def _axis_texts(axis, panel: str, letter: str) -> Iterator[tuple[Text, str]]:
    """The label, offset text and drawn tick labels of one axis (ticks outside the view are not drawn)."""
    yield axis.label, f"{letter} label ({panel})"
    yield axis.offsetText, f"{letter} offset ({panel})"
    low, high = sorted(axis.get_view_interval())
    slack = 1e-9 * (high - low)
    for tick in [*axis.get_major_ticks(), *axis.get_minor_ticks()]:
        if low - slack <= tick.get_loc() <= high + slack:
            yield tick.label1, f"{letter} tick label ({panel})"
            yield tick.label2, f"{letter} tick label ({panel})"


def _texts(fig) -> Iterator[tuple[object, str, object]]:
    """Every text ``fig`` draws that a reader reads, with its role and its panel (None: the figure's own); a legend
    counts as one box."""
    for text in fig.texts:
        yield text, "figure text", None
    for legend in fig.legends:
        yield legend, "figure legend", None
    for number, ax in enumerate(fig.axes, start=1):
        if not ax.get_visible():
            continue
        panel = f"panel {number}"
        for child in ax.get_children():  # the three titles and the panel's own texts
            if isinstance(child, Text):
                yield child, f"text ({panel})" if child in ax.texts else f"title ({panel})", ax
        if ax.get_legend() is not None:
            yield ax.get_legend(), f"legend ({panel})", ax
        if ax.axison:
            for text, role in [*_axis_texts(ax.xaxis, panel, "x"), *_axis_texts(ax.yaxis, panel, "y")]:
                yield text, role, ax


def _box(center, width: float, height: float, degrees: float = 0.0) -> Outline:
    """A closed ``width`` × ``height`` rectangle turned by ``degrees`` about ``center``, shrunk by :data:`TOUCH_PX`."""
    half = np.maximum(np.array([width, height]) / 2 - TOUCH_PX, 0)
    corners = np.array([[-1, -1], [1, -1], [1, 1], [-1, 1], [-1, -1]]) * half
    theta = np.deg2rad(degrees)
    turn = np.array([[np.cos(theta), -np.sin(theta)], [np.sin(theta), np.cos(theta)]])
    return Outline(corners @ turn.T + center, closed=True)


def _outline(artist) -> Outline | None:
    """The drawn outline of a visible, non-empty text (its rotated box) or legend; None when nothing is drawn."""
    if not artist.get_visible() or (isinstance(artist, Text) and not artist.get_text().strip()):
        return None
    if not isinstance(artist, Text):
        box = artist.get_window_extent()
        return _box(box.p0 + box.size / 2, *box.size)
    box = Text.get_window_extent(artist)  # an annotation's text alone, without its arrow
    degrees = artist.get_rotation()
    if degrees % 90 == 0:
        return _box(box.p0 + box.size / 2, *box.size)
    artist.set_rotation(0)  # the rotated box shares its centre with the axis-aligned extent matplotlib reports
    flat = Text.get_window_extent(artist)
    artist.set_rotation(degrees)
    return _box(box.p0 + box.size / 2, *flat.size, degrees)


def _quote(artist, role: str) -> str:
    words = " ".join(artist.get_text().split()) if isinstance(artist, Text) else ""
    return f"{role} {words[:40]!r}" if words else role


def _overlapping_pairs(outlines: Sequence[Outline], others: Sequence[Outline]) -> Iterator[tuple[int, int]]:
    """Index pairs (i, j) whose outlines overlap: bounding boxes first, then the polygons themselves."""
    if not outlines or not others:
        return
    first = np.array([[*o.vertices.min(axis=0), *o.vertices.max(axis=0)] for o in outlines])
    second = np.array([[*o.vertices.min(axis=0), *o.vertices.max(axis=0)] for o in others])
    near = ((first[:, None, 0] < second[None, :, 2]) & (second[None, :, 0] < first[:, None, 2])
            & (first[:, None, 1] < second[None, :, 3]) & (second[None, :, 1] < first[:, None, 3]))
    for i, j in zip(*np.nonzero(near), strict=True):
        if outlines[i].intersects_path(others[j], filled=True):
            yield int(i), int(j)


def text_collisions(fig) -> list[str]:
    """One line per pair of drawn texts of ``fig`` that overlap by more than :data:`TOUCH_PX`, per text that runs
    into another panel's plotting area, and per text that leaves the canvas. Texts: titles, axis and tick labels,
    offset texts, annotations, figure texts and legends (a legend is one box).

    Draws ``fig`` without rendering (its layout engine runs) and measures matplotlib's own extents.
    """
    fig.draw_without_rendering()
    drawn = [(outline, artist, role, ax) for artist, role, ax in _texts(fig)
             if (outline := _outline(artist)) is not None]
    outlines = [outline for outline, *_ in drawn]
    found = []
    canvas = fig.bbox
    for outline, artist, role, _ in drawn:
        (x0, y0), (x1, y1) = outline.vertices.min(axis=0), outline.vertices.max(axis=0)
        if x0 < canvas.x0 or y0 < canvas.y0 or x1 > canvas.x1 or y1 > canvas.y1:
            found.append(f"{_quote(artist, role)} leaves the canvas")
    for i, j in _overlapping_pairs(outlines, outlines):
        if i < j:
            (_, a, role_a, _), (_, b, role_b, _) = drawn[i], drawn[j]
            found.append(f"{_quote(a, role_a)} overlaps {_quote(b, role_b)}")
    panels = [(number, ax) for number, ax in enumerate(fig.axes, start=1) if ax.get_visible() and ax.axison]
    areas = [_box(ax.bbox.p0 + ax.bbox.size / 2, *ax.bbox.size) for _, ax in panels]
    for i, j in _overlapping_pairs(outlines, areas):
        (_, artist, role, owner), (number, ax) = drawn[i], panels[j]
        if owner is None or ax.bbox.bounds != owner.bbox.bounds:  # twins share their host's area
            found.append(f"{_quote(artist, role)} runs into panel {number}")
    return found


def save_figure(fig, name: str, caption: str, sources: Sequence[Path]) -> None:
    """Write ``<name>.pdf``, ``<name>.png`` and ``<name>.caption.md``, empty panels hidden; refresh the index.

    A figure drawn without :func:`use_style`'s constrained layout gets the tight one (constrained layout cannot
    be switched on once a colorbar exists); texts that still collide (:func:`text_collisions`) are reported as a
    :class:`FigureLayoutWarning`, which the notebooks' smoke tests fail on. Inside a notebook's kernel the figure is
    then the cell's image output, and closed (:func:`show_in_notebook`).
    """
    profile, notebook = _destination(sources)
    hide_empty_panels(fig)
    if fig.get_layout_engine() is None:
        fig.set_layout_engine("tight")
    collisions = text_collisions(fig)
    if collisions:
        warnings.warn(f"figure {name!r}: " + "; ".join(collisions), FigureLayoutWarning, stacklevel=2)
    directory = paths.figures_dir(profile, notebook)
    for fmt in ("pdf", "png"):
        buffer = io.BytesIO()
        fig.savefig(buffer, format=fmt, metadata={"CreationDate": None} if fmt == "pdf" else None)
        results.atomic_write_bytes(directory / f"{name}.{fmt}", buffer.getvalue())
    results.atomic_write_text(directory / f"{name}.caption.md", _caption_text(caption, sources))
    write_index(profile)
    show_in_notebook(fig, f"figure {paths.relative_to_root(directory / f'{name}.png')}")


def in_ipython() -> bool:
    """This process runs IPython (a notebook's kernel): IPython is imported and its shell exists."""
    ipython = sys.modules.get("IPython")
    return ipython is not None and ipython.get_ipython() is not None


def show_in_notebook(fig, label: str) -> None:
    """Inside IPython, display ``fig`` as a PNG at its own dpi (``label`` its text form), then close it, so the cell
    shows it once under any backend (Agg shows nothing; the inline backend would show an open figure again at the
    cell's end); elsewhere nothing."""
    if not in_ipython():
        return
    from IPython.display import display
    from matplotlib import pyplot as plt

    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi="figure")
    display({"image/png": base64.b64encode(buffer.getvalue()).decode("ascii"), "text/plain": label}, raw=True)
    plt.close(fig)


#: The caption line that says why a table has no rows (:func:`save_table`; the report shows it).
NO_ROWS = "No rows: "


def save_table(frame: pd.DataFrame, name: str, caption: str, sources: Sequence[Path], *,
               empty_reason: str = "the run produced none under these parameters") -> None:
    """Write ``<name>.csv`` (every digit), ``.md`` and ``.tex`` (for reading: :func:`lib.results.readable`) and
    ``<name>.caption.md``; refresh the index. A table without rows keeps its header, and its caption says why
    (``empty_reason``)."""
    profile, notebook = _destination(sources)
    directory = paths.figures_dir(profile, notebook)
    if frame.empty:
        caption = f"{caption.strip()}\n\n{NO_ROWS}{empty_reason}"
    text = _caption_text(caption, sources)
    latex = results.readable(frame).to_latex(index=False, caption=text.replace("\n", " ").strip())
    results.atomic_write_text(directory / f"{name}.csv", frame.to_csv(index=False))
    results.atomic_write_text(directory / f"{name}.md", markdown_table(frame) + "\n")
    results.atomic_write_text(directory / f"{name}.tex", latex)
    results.atomic_write_text(directory / f"{name}.caption.md", text)
    write_index(profile)


def markdown_table(frame: pd.DataFrame) -> str:
    """``frame`` as a Markdown table for reading (numbers at :data:`lib.results.READABLE_DIGITS` significant digits)
    that keeps its columns: ``|`` in a cell or header is escaped (``max |error|`` stays one cell) and a line
    break becomes a space."""

    def escape(value):
        return value.replace("|", "\\|").replace("\n", " ") if isinstance(value, str) else value

    return results.readable(frame).rename(columns=lambda c: escape(str(c))).map(escape).to_markdown(index=False)


def prune_outputs(profile: str, notebook: str, since: float) -> list[Path]:
    """Delete the notebook's figures and tables last written before ``since`` (a ``time.time()``).

    Called by the runner after a successful run: every output the notebook still makes was just
    rewritten, so an older file is one it no longer makes (a renamed table, a dropped figure).
    """
    folder = paths.figures_dir(profile, notebook)
    stale = [f for f in folder.glob("*") if f.is_file() and f.stat().st_mtime < since] if folder.is_dir() else []
    for file in stale:
        file.unlink()
    return stale


def write_index(profile: str) -> Path:
    """Rebuild ``figures/<profile>/INDEX.md`` from every caption of the profile, images and tables embedded."""
    root = paths.figures_index(profile).parent
    lines = [f"# Figures and tables — profile `{profile}`", ""]
    for caption in sorted(root.glob("*/*.caption.md")):
        notebook, stem = caption.parent.name, caption.name.removesuffix(".caption.md")
        image, table = caption.parent / f"{stem}.png", caption.parent / f"{stem}.md"
        lines += [f"## {notebook} · {stem}", ""]
        if image.exists():
            lines += [f"![{notebook} · {stem}]({notebook}/{stem}.png)", ""]
        elif table.exists():
            lines += [table.read_text().strip(), "", f"[table as Markdown]({notebook}/{stem}.md) · "
                      f"[CSV]({notebook}/{stem}.csv)", ""]
        lines += [caption.read_text().strip(), ""]
    return results.atomic_write_text(paths.figures_index(profile), "\n".join(lines))
