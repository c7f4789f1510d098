"""One figure style, and figures/tables whose captions name their logged sources.

``save_figure`` and ``save_table`` derive ``figures/<profile>/<notebook>/`` from the
result files they were drawn from (``results/<profile>/<notebook>/…``), so a caption's
``Source:`` lines always point at files that exist and carry a manifest.
"""

from __future__ import annotations

import io
from collections.abc import Sequence
from pathlib import Path

import matplotlib
import pandas as pd

from lib import paths, results

_INLINE = "module://matplotlib_inline.backend_inline"


def use_style() -> None:
    """The companion's style: seaborn whitegrid, paper context; Agg unless shown inline."""
    if matplotlib.get_backend() != _INLINE:
        matplotlib.use("Agg")
    import seaborn as sns

    sns.set_theme(context="paper", style="whitegrid", palette="colorblind")
    matplotlib.rcParams.update({"figure.dpi": 110, "savefig.dpi": 200, "savefig.bbox": "tight"})


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


def save_figure(fig, name: str, caption: str, sources: Sequence[Path]) -> None:
    """Write ``<name>.pdf``, ``<name>.png`` and ``<name>.caption.md``, empty panels hidden; refresh the index."""
    profile, notebook = _destination(sources)
    hide_empty_panels(fig)
    directory = paths.figures_dir(profile, notebook)
    for fmt in ("pdf", "png"):
        buffer = io.BytesIO()
        fig.savefig(buffer, format=fmt, metadata={"CreationDate": None} if fmt == "pdf" else None)
        results.atomic_write_bytes(directory / f"{name}.{fmt}", buffer.getvalue())
    results.atomic_write_text(directory / f"{name}.caption.md", _caption_text(caption, sources))
    write_index(profile)


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
