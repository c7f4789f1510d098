"""``make report``: the companion as a static site you can read without running it.

``build(profile)`` writes ``build/report/<profile>/`` from what a batch left behind, and nothing
else: logged results and their manifests (``results/``), figures and tables with their captions
(``figures/``), and executed notebooks (``build/<profile>/*.ipynb``). It never imports a paper and
never computes. Pages:

- ``index.html``: paper → experiment → figure or table preview, with each experiment's claims count linked to
  its claims page;
- ``notebooks/<nb>.html``: the executed notebook with its outputs (consecutive stream outputs joined as a terminal
  shows them; stderr's progress bars and empty streams left out);
- ``gallery.html``: the contents, one entry per notebook (``gallery.html#<nb>``), linked to
  ``gallery/<nb>.html``: that notebook's figures and tables, each caption, its ``Source:`` files linked (its claims
  table left out: its claims page shows the claims);
- ``sources/<nb>/<file>.html``: a source's run manifest (commit, parameters, seeds, packages, wall time)
  and a preview, beside a copy of the file under ``files/``;
- ``claims.html``: the per-paper scoreboard (:mod:`lib.scoreboard`), then per paper a forest plot of its claims
  (:mod:`lib.forest`) and each notebook's counts, linked to its page;
- ``claims/<nb>.html``: a notebook's forest plot, then its claims by kind (paper, extension, sanity, mechanism),
  failing and unmeasured ones first, one card each: id and statement, the paper's test, the measured value ± s.e.,
  the verdict as a badge coloured by verdict (:data:`VERDICT_STYLES`), the power as p1 / p0 and its likelihood
  ratio; the paper's words and the reason behind disclosures.

The papers' ``$…$`` mathematics (in claims, captions, tables and notebook cells) is rendered as MathML
(:mod:`lib.mathml`), which browsers draw natively. No page scrolls sideways at 1,280 px: wide tables scroll
inside their own box; claims pages read at a phone's 390 px too (their cards stack). No page grows past about
20,000 px at 1,280 px: a long table or notebook output scrolls inside its own box too.

Notebooks are rendered with markdown-it-py (a jupytext dependency) and Pygments rather than
nbconvert, whose page templates load require.js and MathJax from a CDN: offline, those are console
errors on every page. Under the smoke profile every page carries a banner: its numbers test code
paths on tiny random models and are not a reproduction.

The build takes whatever a batch left: an output it cannot read (a corrupt notebook, table, result or claims
file) marks its notebook's entry and page with what went wrong and never stops the build; a table without rows
shows its header and why it is empty. When ``published/`` holds this profile's reference run
(:mod:`lib.published`), the index marks each published notebook current or stale, naming what changed.
:mod:`lib.publish` builds the same site over a publication's own notebooks (``build(site=…, executed=…)``),
carrying the notebooks it keeps from its earlier site as they were (:func:`carry`).
"""

from __future__ import annotations

import base64
import html
import json
import math
import os
import re
import shutil
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

import nbformat
import pandas as pd
from markdown_it import MarkdownIt
from pygments import highlight
from pygments.formatters import HtmlFormatter
from pygments.lexers import PythonLexer

from lib import captions, claims, forest, mathml, papers, paths, plotting, published, results, scoreboard, strict_json

_T = TypeVar("_T")

SMOKE_BANNER = (
    "Smoke profile: tiny random models and toy sizes that exercise every code path in seconds. "
    "The values on this page are a smoke test, not a reproduction of any paper."
)
_ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")
_SOURCE_LINE = re.compile(r"^Source: (\S+)\s*$", flags=re.M)
_MARKDOWN = mathml.use_in_markdown(MarkdownIt("commonmark", {"html": False}).enable("table"))
#: A tqdm progress bar's line: "extract:  45%|████▌     | 10/22 [01:09<01:24,  7.06s/batch]".
_PROGRESS = re.compile(r"^[^|]*\d+%\|.*\|.*$")
_PREVIEW_ROWS = 50
_THUMB_ROWS = 6
_THUMB_CELL = 40
_CSS = """
body { font: 15px/1.5 system-ui, sans-serif; margin: 0 auto; max-width: 70rem; padding: 0 1.5rem 3rem; color: #222; }
nav { padding: .8rem 0; border-bottom: 1px solid #ddd; margin-bottom: 1rem; }
nav a { margin-right: 1.2rem; }
h1 { overflow-wrap: anywhere; }
.banner { background: #fff3cd; border: 1px solid #e0b000; padding: .6rem 1rem; margin: 1rem 0; font-weight: 600; }
figure { margin: 1.5rem 0; padding: 1rem; border: 1px solid #e5e5e5; }
img { max-width: 100%; }
figcaption { white-space: pre-wrap; }
table { border-collapse: collapse; margin: .5rem 0; font-size: 13px; display: block; max-width: 100%;
  overflow-x: auto; }
th, td { border: 1px solid #ccc; padding: .2rem .5rem; text-align: left; vertical-align: top;
  overflow-wrap: break-word; }
math { font-size: 1.15em; }
code { overflow-wrap: anywhere; } .html-output { overflow: auto; max-height: 40rem; }
figure > table { max-height: 40rem; overflow: auto; } figure > table thead th { position: sticky; top: 0;
  background: #fff; }
figure > p { overflow-wrap: anywhere; }
.claim { display: grid; grid-template-columns: minmax(0, 1fr) minmax(0, 12rem) minmax(0, 9.5rem) minmax(0, 10rem)
  minmax(0, 9rem); gap: .2rem .9rem; padding: .5rem .3rem; border-top: 1px solid #e5e5e5; font-size: 14px; }
.claim:target { background: #fffbe6; }
.claim > div { overflow-wrap: anywhere; overflow-x: auto; }
.claim > details { grid-column: 1 / -1; font-size: 13px; }
.claim details p { margin: .2rem 0 .2rem 1.1rem; overflow-wrap: anywhere; overflow-x: auto; }
.claim .cid { font: 600 13px monospace; margin-right: .3rem; }
.label { display: block; color: #666; font-size: 11px; text-transform: uppercase; letter-spacing: .04em; }
summary { cursor: pointer; color: #0b57d0; }
.badge { display: inline-block; padding: .05rem .5rem; border-radius: .4rem; background: var(--verdict);
  color: #fff; font-size: 12px; font-weight: 600; }
.forest { margin: .8rem 0 1.6rem; } .forest .badge { margin: .1rem 0; }
.fgroup { margin: .8rem 0 .2rem; font-weight: 600; font-size: 14px; overflow-wrap: anywhere; }
.frow { display: grid; grid-template-columns: minmax(0, 15rem) minmax(6rem, 1fr) minmax(0, 17rem); gap: 0 .8rem;
  align-items: center; font-size: 13px; padding: 2px 0; border-bottom: 1px solid #f0f0f0; }
.frow > a, .fnum { overflow-wrap: anywhere; }
.strip { display: block; color: var(--verdict); }
.strip .axis { stroke: #ccc; } .strip .accepted { fill: #e3e3e3; stroke: #bbb; stroke-width: 1; }
.strip .paper { fill: #777; stroke: #777; stroke-width: 2; }
.strip .interval { stroke: currentColor; stroke-width: 2; } .strip .measured { fill: currentColor; }
ul.notebooks li, ol.contents li { margin: .3rem 0; }
@media (max-width: 60rem) {
  .claim { grid-template-columns: minmax(0, 1fr) minmax(0, 1fr); }
  .claim > .what { grid-column: 1 / -1; }
}
@media (max-width: 40rem) {
  body { padding: 0 .8rem 2rem; } h1 { font-size: 1.5rem; } h2 { font-size: 1.2rem; }
  .frow { grid-template-columns: minmax(0, 1fr) minmax(0, 1fr); padding: 4px 0; }
  .frow .strip { grid-column: 1 / -1; grid-row: 2; }
}
.holds { color: #176b1c; font-weight: 600; } .fails { color: #b00020; font-weight: 600; }
.cell { margin: 1rem 0; } .prompt { color: #888; font: 12px monospace; }
pre { background: #f6f8fa; padding: .6rem; overflow-x: auto; font-size: 13px; max-width: 100%; box-sizing: border-box; }
pre.stderr { background: #fff5f5; } pre.error { background: #fdd; }
.meta { color: #555; font-size: 13px; }
.experiment { margin: 1rem 0 1.8rem; } .experiment h3 { margin: 0 0 .2rem; font-size: 16px; }
.problem { color: #b00020; margin: .2rem 0; }
.grid { display: grid; grid-template-columns: repeat(auto-fill, minmax(13rem, 1fr)); gap: .8rem; margin-top: .6rem; }
figure.thumb { margin: 0; padding: .4rem; border: 1px solid #e5e5e5; display: flex; flex-direction: column;
  min-width: 0; }
.thumb .box { height: 10rem; display: flex; align-items: center; justify-content: center; background: #fafafa;
  overflow: hidden; color: inherit; text-decoration: none; }
.thumb .box.preview { align-items: flex-start; justify-content: flex-start; }
.thumb .box table { display: table; font-size: 10px; margin: 0; }
.thumb .box th, .thumb .box td { padding: 0 .25rem; white-space: nowrap; }
.thumb .box img { max-width: 100%; max-height: 10rem; object-fit: contain; }
.thumb .box span { color: #555; font-size: 13px; }
.thumb figcaption { white-space: normal; font-size: 12px; margin-top: .3rem; color: #333; }
"""


@dataclass
class Output:
    """One figure or table of a notebook, as its caption describes it."""

    notebook: str
    stem: str
    caption: str
    sources: list[str]
    image: Path | None
    table: Path | None


@dataclass
class Experiment:
    """One notebook's logged outputs under a profile."""

    notebook: str
    paper: str
    title: str
    executed: Path | None
    claims: pd.DataFrame
    outputs: list[Output] = field(default_factory=list)
    #: What could not be read (shown on its index entry and pages); empty when everything could.
    problems: list[str] = field(default_factory=list)
    #: The earlier build of a site this notebook is carried from as it was (:func:`carry`), else None.
    carried_from: Path | None = None
    #: A carried notebook's parts of that build's pages: ``index``, its index entry; ``gallery``, its figures and
    #: tables (:func:`_carried_outputs`).
    carried: dict[str, str] = field(default_factory=dict)
    #: Each claim's logged power record by claim id (``claims`` holds it as text); empty where none was read.
    powers: dict[str, Any] = field(default_factory=dict)


# --------------------------------------------------------------------------- gathering


def _guarded(problems: list[str], what: str, read: Callable[[], _T], default: _T) -> _T:
    """``read()``, or ``default`` with ``what`` and the error noted in ``problems`` (an unreadable output)."""
    try:
        return read()
    except Exception as error:  # any unreadable file marks its notebook, never stops the build
        problems.append(f"{what}: {type(error).__name__}: {str(error).splitlines()[0] if str(error) else ''}")
        return default


def title_of(executed: Path | None, notebook: str) -> str:
    """The first Markdown heading of the executed notebook, else the notebook's name."""
    if executed is None:
        return notebook
    for cell in nbformat.read(executed, as_version=4).cells:
        if cell.cell_type == "markdown":
            heading = re.search(r"^#+\s+(.+)$", cell.source, flags=re.M)
            if heading:
                return heading.group(1).strip()
    return notebook


def _outputs(profile: str, notebook: str) -> list[Output]:
    folder = paths.figures_dir(profile, notebook)
    found = []
    for caption_file in sorted(folder.glob("*.caption.md")):
        stem = caption_file.name.removesuffix(".caption.md")
        text = caption_file.read_text()
        image, table = folder / f"{stem}.png", folder / f"{stem}.csv"
        found.append(Output(
            notebook, stem, _SOURCE_LINE.sub("", text).strip(), _SOURCE_LINE.findall(text),
            image if image.is_file() else None, table if table.is_file() else None,
        ))
    return found


def _no_claims() -> pd.DataFrame:
    return pd.DataFrame(columns=["notebook", *claims.COLUMNS])


def _powers(rows: list[Mapping[str, Any]]) -> dict[str, Any]:
    """Each logged claim's power record, as logged, by claim id."""
    return {str(row.get("id")): row.get("power") for row in rows}


def _claims_of(profile: str, notebook: str) -> tuple[pd.DataFrame, dict[str, Any]]:
    """A notebook's logged claims (none when it logged none) and their power records (:func:`_powers`); raises
    when its ``claims.json`` is unreadable."""
    file = paths.results_dir(profile, notebook) / "claims.json"
    if not file.exists() and not results.manifest_path(file).exists():
        return _no_claims(), {}
    rows = results.load_json(file)
    return claims.frame(rows).assign(notebook=notebook)[["notebook", *claims.COLUMNS]], _powers(rows)


def gather(profile: str, *, notebooks: Collection[str] | None = None,
           executed: Mapping[str, Path] | None = None) -> list[Experiment]:
    """Every notebook with logged results, figures or an executed notebook under ``profile`` (only ``notebooks``
    when given); ``executed`` replaces a notebook's executed file (a publication's scrubbed copy)."""
    names = {p.name for root in (paths.RESULTS_DIR, paths.FIGURES_DIR)
             for p in root.joinpath(paths.check_profile(profile)).glob("*") if p.is_dir() and "@" not in p.name}
    names |= {p.stem for p in paths.build_dir(profile).glob("*.ipynb") if "@" not in p.stem}
    names = set(notebooks) if notebooks is not None else names
    return [_experiment(profile, n, Path((executed or {}).get(n, paths.executed_notebook(profile, n))))
            for n in sorted(names)]


def _experiment(profile: str, notebook: str, executed: Path) -> Experiment:
    """One notebook's entry; whatever cannot be read is left out and named in its ``problems``."""
    problems: list[str] = []
    run = executed if executed.is_file() else None
    title = _guarded(problems, "executed notebook unreadable", lambda: title_of(run, notebook), notebook)
    if problems:
        run = None
    table, powers = _guarded(problems, "claims.json unreadable", lambda: _claims_of(profile, notebook),
                             (_no_claims(), {}))
    outputs = _guarded(problems, "figure captions unreadable", lambda: _outputs(profile, notebook), [])
    owner = papers.paper_of(notebook)
    paper = owner.id if owner is not None else "other"
    return Experiment(notebook, str(paper), title, run, table.reset_index(drop=True), outputs, problems,
                      powers=powers)


def _all_claims(experiments: list[Experiment]) -> pd.DataFrame:
    frames = [e.claims for e in experiments if len(e.claims)]
    return pd.concat(frames, ignore_index=True) if frames else _no_claims()


# --------------------------------------------------------------------------- carried from an earlier build


def _cut(text: str, start: str, end: str, *, keep_end: bool) -> str:
    """The part of ``text`` from ``start`` to the first ``end`` after it (``end`` included when ``keep_end``),
    or '' when ``start`` is absent."""
    begin = text.find(start)
    if begin < 0:
        return ""
    stop = text.find(end, begin + len(start))
    stop = len(text) if stop < 0 else stop + (len(end) if keep_end else 0)
    return text[begin:stop]


def carry(site: Path, notebook: str, title: str, table: pd.DataFrame) -> Experiment:
    """``notebook`` as the earlier build ``site`` shows it, for a new build that keeps it as it was (a
    publication's notebook kept while others are published beside it, their runs made on another checkout).

    Its claims are ``table`` (its published ``claims.json``), their power records read from the earlier site's
    copy of that file; its index entry and its figures and tables are cut from the earlier pages, which this module
    wrote, and :func:`build` copies its notebook page, source pages and files. Raises ValueError when ``site`` has
    no index entry for it.
    """
    index = (site / "index.html").read_text()
    entry = _cut(index, f'<section class="experiment" id="{_e(notebook)}">', "</section>", keep_end=True)
    if not entry:
        raise ValueError(f"{notebook}: no entry in the index of {paths.display(site)}")
    owner = papers.paper_of(notebook)
    return Experiment(notebook, str(owner.id if owner is not None else "other"), title, None,
                      table.reset_index(drop=True), carried_from=Path(site),
                      carried={"index": entry, "gallery": _carried_outputs(Path(site), notebook)},
                      powers=_carried_powers(Path(site), notebook))


def _carried_outputs(site: Path, notebook: str) -> str:
    """A notebook's figures and tables as the earlier build ``site`` showed them, its links relative to the
    ``gallery/`` folder: from its own gallery page, or from a build that showed every notebook on one page (its
    claims table left out, it has a page of its own); '' when it showed none."""
    page = site / "gallery" / f"{notebook}.html"
    if page.is_file():
        return _cut(page.read_text(), _OUTPUTS_START, _OUTPUTS_END, keep_end=True)
    whole = site / "gallery.html"
    section = _cut(whole.read_text() if whole.is_file() else "", f'<h2 id="{_e(notebook)}">', '<h2 id="',
                   keep_end=False)
    section = section.removesuffix("</body></html>\n").partition("</h2>")[2]
    section = re.sub(rf'<figure id="{re.escape(_e(notebook))}-{_CLAIMS_STEM}">.*?</figure>', "", section,
                     flags=re.S).strip("\n")
    return f"{_OUTPUTS_START}{_rebased(section)}{_OUTPUTS_END}" if section else ""


def _rebased(fragment: str) -> str:
    """``fragment``'s relative links, written for a page at the site's root, for a page one folder down."""
    return re.sub(r'\b(href|src)="(?![a-zA-Z][a-zA-Z0-9+.-]*:|#|/)', r'\1="../', fragment)


def _carried_powers(site: Path, notebook: str) -> dict[str, Any]:
    """The power records of a carried notebook's claims, from the earlier site's copy of its ``claims.json``
    (:func:`_powers`); empty without one."""
    found = sorted(site.glob(f"files/results/*/{notebook}/claims.json"))
    return _powers(strict_json.loads(found[0].read_text())) if found else {}


def _copy_carried(site: Path, experiment: Experiment) -> None:
    """Copy a carried notebook's page, source pages and files from its earlier build into ``site``."""
    old, notebook = experiment.carried_from, experiment.notebook
    assert old is not None
    page = old / "notebooks" / f"{notebook}.html"
    if page.is_file():
        (site / "notebooks").mkdir(parents=True, exist_ok=True)
        shutil.copy2(page, site / "notebooks" / page.name)
    for folder in [old / "sources" / notebook, *old.glob(f"files/*/*/{notebook}")]:
        if folder.is_dir():
            shutil.copytree(folder, site / folder.relative_to(old), dirs_exist_ok=True)


# --------------------------------------------------------------------------- HTML pieces


def _e(value: Any) -> str:
    return html.escape(str(value))


def _href(target: Path, page: Path) -> str:
    """``target`` relative to the folder of ``page`` (both inside the site), as a URL path."""
    return Path(os.path.relpath(target, page.parent)).as_posix()


def _page(site: Path, page: Path, profile: str, title: str, body: str) -> None:
    links = " ".join(f'<a href="{_href(site / name, page)}">{label}</a>'
                     for name, label in [("index.html", "Index"), ("gallery.html", "Figures and tables"),
                                         ("claims.html", "Claims")])
    banner = f'<div class="banner">{_e(SMOKE_BANNER)}</div>' if profile == "smoke" else ""
    css = _CSS + _VERDICT_CSS + HtmlFormatter().get_style_defs(".highlight")
    document = (
        f'<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8"><title>{_e(title)}</title>'
        f'<link rel="icon" href="data:,"><style>{css}</style></head><body>'
        f"<nav>{links} <span class=\"meta\">profile <code>{_e(profile)}</code></span></nav>{banner}"
        f"<h1>{_e(title)}</h1>{body}</body></html>\n"
    )
    results.atomic_write_text(page, document)


def _frame_html(frame: pd.DataFrame, *, rounded: bool = True) -> str:
    """``frame`` as an HTML table, NaN empty; ``rounded``: its numbers for reading (:func:`lib.results.readable`),
    else as they are (a manifest's parameters, versions and timings: provenance, every digit)."""
    return (results.readable(frame) if rounded else frame).to_html(index=False, border=0, na_rep="")


def _no_rows_reason(caption: str) -> str:
    found = [line.removeprefix(plotting.NO_ROWS) for line in caption.splitlines() if line.startswith(plotting.NO_ROWS)]
    return found[0] if found else "no reason recorded"


def _table_file_html(table: Path, caption: str = "", rows: int | None = None) -> str:
    """A figure table's CSV as written (read as text), its numbers rounded for reading and its ``$…$`` as
    MathML; an empty one says so. With ``rows``, a preview: the first rows, each cell cut at a word."""
    try:
        frame = pd.read_csv(table, dtype=str, keep_default_na=False, nrows=rows)
    except pd.errors.EmptyDataError:
        return "<p>(an empty table: no rows or columns)</p>"
    if frame.empty:
        return f'{_frame_html(frame)}<p class="meta">no rows: {_e(_no_rows_reason(caption))}</p>'
    if rows is not None:
        frame = frame.map(lambda cell: captions.shorten(cell, _THUMB_CELL))
    return mathml.in_html(_frame_html(frame))


def _source_page(site: Path, source: str) -> Path:
    return site / "sources" / Path(source).parent.name / f"{Path(source).name}.html"


def _source_links(site: Path, page: Path, sources: list[str]) -> str:
    return "<br>".join(f'Source: <a href="{_href(_source_page(site, s), page)}">{_e(s)}</a>' for s in sources)


def _manifest_line(source: str) -> str:
    """Commit, seeds and wall time of a source's run, or why they are unknown."""
    try:
        manifest = results.read_manifest(paths.from_root(source))
    except results.IncompleteResultError as error:
        return f'<span class="fails">incomplete result: {_e(error)}</span>'
    git = manifest.get("git") or {}
    commit = (git.get("commit") or "unknown")[:12] + (" (dirty)" if git.get("dirty") else "")
    return (f'<span class="meta">commit {_e(commit)} · seeds {_e(json.dumps(manifest.get("seeds")))} · '
            f'wall time {_e(manifest.get("wall_time_s"))} s · finished {_e(manifest.get("finished"))}</span>')


# --------------------------------------------------------------------------- notebooks


def _stream_text(text: str) -> str:
    """What a terminal would show: ANSI codes removed, each line cut to what follows its last carriage return."""
    return "\n".join(line.rsplit("\r", 1)[-1] for line in _ANSI.sub("", text).split("\n"))


def _joined_streams(outputs: list[nbformat.NotebookNode]) -> list[nbformat.NotebookNode]:
    """``outputs`` with each run of one stream's consecutive outputs joined into one, as a terminal shows them (a
    progress bar's every update is an output of its own)."""
    joined: list[nbformat.NotebookNode] = []
    for output in outputs:
        previous = joined[-1] if joined else None
        if (output.output_type == "stream" and previous is not None and previous.output_type == "stream"
                and previous.name == output.name):
            joined[-1] = nbformat.NotebookNode({**previous, "text": previous.text + output.text})
        else:
            joined.append(output)
    return joined


def _output_html(output: nbformat.NotebookNode) -> str:
    """One output as HTML; a stream without text, once stderr's progress bars are dropped, as nothing."""
    kind = output.output_type
    if kind == "stream":
        lines = _stream_text(output.text).split("\n")
        if output.name == "stderr":
            lines = [line for line in lines if not _PROGRESS.match(line)]
        text = "\n".join(lines).strip("\n")
        return f'<pre class="{_e(output.name)}">{_e(text)}</pre>' if text.strip() else ""
    if kind == "error":
        return f'<pre class="error">{_e(_ANSI.sub("", chr(10).join(output.traceback)))}</pre>'
    data = output.get("data", {})
    if "image/png" in data:
        return f'<img alt="figure output" src="data:image/png;base64,{data["image/png"].strip()}">'
    if "image/svg+xml" in data:
        encoded = base64.b64encode(data["image/svg+xml"].encode()).decode()
        return f'<img alt="figure output" src="data:image/svg+xml;base64,{encoded}">'
    if "text/html" in data and "<script" not in data["text/html"]:
        return f'<div class="html-output">{mathml.in_html(data["text/html"])}</div>'
    if "text/markdown" in data:
        return _MARKDOWN.render(data["text/markdown"])
    if "text/plain" in data:
        return f"<pre>{_e(_stream_text(data['text/plain']))}</pre>"
    return ""


def render_notebook(executed: Path) -> str:
    """An executed notebook's cells and outputs as an HTML fragment."""
    parts = []
    for cell in nbformat.read(executed, as_version=4).cells:
        if cell.cell_type == "markdown":
            parts.append(f'<div class="cell markdown">{_MARKDOWN.render(cell.source)}</div>')
        elif cell.cell_type == "code":
            count = cell.get("execution_count") or " "
            code = highlight(cell.source, PythonLexer(), HtmlFormatter())
            outputs = "".join(_output_html(o) for o in _joined_streams(cell.get("outputs", [])))
            parts.append(f'<div class="cell code"><div class="prompt">In [{count}]:</div>{code}{outputs}</div>')
    return "\n".join(parts)


# --------------------------------------------------------------------------- pages


def _claims_source(profile: str, notebook: str) -> str:
    return paths.relative_to_root(paths.results_dir(profile, notebook) / "claims.json")


def cited_names(table: pd.DataFrame) -> list[str]:
    """The logged files a claims table's reasons and candidate causes name (:func:`lib.claims.cited_files`), each
    once, in order: what a reader opens to check a verdict."""
    texts = [str(text) for column in ("reason", "mechanism") if column in table for text in table[column].fillna("")]
    return list(dict.fromkeys(name for text in texts for name in claims.cited_files(text)))


def _cited_sources(profile: str, experiment: Experiment) -> set[str]:
    """The notebook's logged results that its claims cite (:func:`cited_names`), whether or not a figure or table
    draws from them."""
    folder = paths.results_dir(profile, experiment.notebook)
    return {paths.relative_to_root(folder / name) for name in cited_names(experiment.claims)
            if (folder / name).is_file() and not name.endswith(".manifest.json")}


#: Per verdict (:data:`lib.claims.VERDICTS`): its CSS class and colour, one colour each (badges, forest plots).
VERDICT_STYLES: Mapping[str, tuple[str, str]] = {
    claims.HOLDS: ("v-holds", "#1a7f37"), claims.FAILS_EXPLAINED: ("v-explained", "#bc4c00"),
    claims.FAILS_UNEXPLAINED: ("v-unexplained", "#cf222e"), claims.NO_POWER: ("v-no-power", "#9a6700"),
    claims.NEEDS_PAPER: ("v-needs-paper", "#8250df"), claims.UNDEFINED: ("v-undefined", "#57606a"),
}
#: A verdict no version of :mod:`lib.claims` wrote.
_OTHER_VERDICT = ("v-other", "#24292f")
_VERDICT_CSS = "".join(f".{name} {{ --verdict: {colour}; }}\n" for name, colour in
                       (*VERDICT_STYLES.values(), _OTHER_VERDICT))
#: A notebook's claims page lists what to look at first: unexplained failures, explained ones, unmeasured, holding.
_VERDICT_ORDER = {v: i for i, v in enumerate((claims.FAILS_UNEXPLAINED, claims.FAILS_EXPLAINED, claims.NO_POWER,
                                              claims.UNDEFINED, claims.NEEDS_PAPER, claims.HOLDS))}
#: A claim's statement on its card's first line is cut at a word near this many characters (in full below it).
_STATEMENT_CHARS = 160
_CODE_SPAN = re.compile(r"`([^`\n]+)`")
#: The claims table a notebook's closing cell saves among its figures: its claims page shows it, not the gallery.
_CLAIMS_STEM = "claims"
_OUTPUTS_START, _OUTPUTS_END = '<section class="outputs">', "</section>"


def claims_page(site: Path, notebook: str) -> Path:
    """The page of one notebook's claims."""
    return site / "claims" / f"{notebook}.html"


def gallery_page(site: Path, notebook: str) -> Path:
    """The page of one notebook's figures and tables."""
    return site / "gallery" / f"{notebook}.html"


def _verdict_class(verdict: str) -> str:
    return VERDICT_STYLES.get(verdict, _OTHER_VERDICT)[0]


def _inline_html(text: Any) -> str:
    """``text`` for HTML: its Markdown code spans as ``<code>``, its ``$…$`` as MathML
    (:func:`lib.mathml.text_html`)."""
    parts = _CODE_SPAN.split(str(text))
    return "".join(f"<code>{_e(part)}</code>" if odd else mathml.text_html(part)
                   for odd, part in ((i % 2 == 1, p) for i, p in enumerate(parts)))


def _float(value: Any) -> float:
    """``value`` as a float; NaN for none."""
    try:
        return float(value)
    except (TypeError, ValueError):
        return math.nan


def _measured_text(measured: Any, se: Any) -> str:
    """"0.6105 ± 0.1001" (± its s.e. when finite), "—" when nothing was measured."""
    value, error = _float(measured), _float(se)
    if not math.isfinite(value):
        return "—"
    return results.readable_number(value) + (f" ± {results.readable_number(error)}" if math.isfinite(error) else "")


def _share(p: Any) -> str:
    """A logged share in two decimals (one significant digit below 0.01), "n/a" for none."""
    value = _float(p)
    if not math.isfinite(value):
        return "n/a"
    return f"{value:.2f}" if value >= 0.01 else f"{value:.1g}"


def _power_cell(record: Any, text: str) -> str:
    """A claim's power in two numbers and a ratio, "p1 0.97 / p0 0.02 · LR 48" (a p0 per null; the ratio when
    logged, ∞ for an infinite one), "exact" for a test with no random element, its logged words when no record was
    read, "—" for none."""
    if not isinstance(record, Mapping):
        return _e(text) if text else "—"
    if "exact" in record:
        return "exact"
    nulls = record.get("nulls") or {record.get("null", ""): record.get("if_null")}
    shown = f"p1 {_share(record.get('if_paper'))} / p0 {', '.join(_share(p) for p in nulls.values())}"
    if "lr" in record:
        shown += " · LR " + ("∞" if record["lr"] is None else results.readable_number(record["lr"], 3))
    return _e(shown)


def _power_words(record: Any, text: str) -> str:
    """The power in words (``text``, :func:`lib.claims.power_text`), with its draws and Monte Carlo s.e. when
    logged."""
    logged = record if isinstance(record, Mapping) else {}
    extra = [f"{logged['draws']} draws"] if "draws" in logged else []
    extra += [f"Monte Carlo s.e. {_share(logged['mc_se'])}"] if "mc_se" in logged else []
    return "; ".join([text, *extra]) if text else ""


def _disclosure(summary: str, paragraphs: list[str]) -> str:
    """A ``<details>`` element of ``paragraphs`` (HTML), '' without any."""
    shown = "".join(f"<p>{p}</p>" for p in paragraphs if p)
    return f"<details><summary>{summary}</summary>{shown}</details>" if shown else ""


def _card(claim: Any, reason: str, record: Any) -> str:
    """One claim as a compact row: its id and statement on a line, the paper's test, the measured value ± s.e.,
    the verdict as a badge, the power (:func:`_power_cell`); the paper's words with its section, and the reason
    and power in words, each behind a disclosure."""
    statement = " ".join(str(claim.statement).split())
    short = captions.shorten(statement, _STATEMENT_CHARS)
    section = f" · {_inline_html(claim.section)}" if claim.section else ""
    words = _disclosure(f"the paper's words{section}", [
        _inline_html(claim.paper_value), f"Measured: {_inline_html(statement)}" if short != statement else "",
        f"Why this test: {_inline_html(claim.comparison_reason)}" if claim.comparison_reason else ""])
    power = _power_words(record, str(claim.power))
    why = _disclosure("reason" if reason else "power", [
        _inline_html(reason), f"Power: {_e(power)}" if power else ""])
    return (f'<article class="claim" id="{_e(claim.id)}">'
            f'<div class="what"><a class="cid" href="#{_e(claim.id)}">{_e(claim.id)}</a> {_inline_html(short)}</div>'
            f'<div><span class="label">paper</span>{_inline_html(claim.comparison)}</div>'
            f'<div><span class="label">measured</span>{_e(_measured_text(claim.measured, claim.se))}</div>'
            f'<div><span class="badge {_verdict_class(claim.verdict)}">{_e(claim.verdict)}</span></div>'
            f'<div><span class="label">power</span>{_power_cell(record, str(claim.power))}</div>'
            f"{words}{why}</article>")


def _in_order(table: pd.DataFrame) -> pd.DataFrame:
    """``table`` by kind (:data:`lib.claims.KINDS`), then what to look at first (:data:`_VERDICT_ORDER`)."""
    kinds = {kind: i for i, kind in enumerate(claims.KINDS)}
    key = table.kind.map(kinds).fillna(len(kinds)) * len(_VERDICT_ORDER) + table.verdict.map(_VERDICT_ORDER).fillna(0)
    return table.iloc[key.to_numpy().argsort(kind="stable")]


def _claim_cards(table: pd.DataFrame, powers: Mapping[str, Any]) -> str:
    """One kind's claims of one notebook as cards (:func:`_card`), failing and unmeasured ones first."""
    table = _in_order(table)
    reasons = claims.readable_table(table)["reason"].tolist()
    return "".join(_card(claim, reason, powers.get(str(claim.id)))
                   for claim, reason in zip(table.itertuples(index=False), reasons, strict=True))


def _forest_rows(table: pd.DataFrame, link: Callable[[str], str]) -> str:
    """A forest plot's rows: per claim with a finite measured value, its id linked (``link(id)``), its strip
    (:func:`lib.forest.strip`) and its value beside its test, in :func:`_in_order`'s order."""
    rows = []
    for claim in _in_order(table).itertuples(index=False):
        measured, se = _float(claim.measured), _float(claim.se)
        if not math.isfinite(measured):
            continue
        text = _measured_text(measured, se)
        strip = forest.strip(measured, se, forest.target(claim.comparison),
                             f"{claim.id}: {text}; {claim.verdict}; the test: {claim.comparison}")
        rows.append(f'<div class="frow {_verdict_class(claim.verdict)}"><a href="{_e(link(str(claim.id)))}">'
                    f'{_e(claim.id)}</a>{strip}<span class="fnum">{_e(text)} <span class="meta">· paper: '
                    f"{_inline_html(claim.comparison)}</span></span></div>")
    return "".join(rows)


def _forest(groups: list[tuple[str, str]]) -> str:
    """A forest plot: its legend, then each group's heading (HTML) over its rows (:func:`_forest_rows`); '' when
    no group has a row."""
    body = "".join(f'<p class="fgroup">{heading}</p>{rows}' for heading, rows in groups if rows)
    if not body:
        return ""
    swatches = " ".join(f'<span class="badge {name}">{_e(verdict)}</span>' for verdict, (name, _) in
                        VERDICT_STYLES.items())
    return ('<section class="forest"><p class="meta">Each claim with a measured value, on a scale of its own: the dot '
            "is the measured value and its line ± 2 s.e.; dark grey the paper's value or range, light grey what the "
            f"test accepts (its tolerance, widening or one-sided bound). Colour: the verdict. {swatches}</p>"
            f"{body}</section>")


def _summary(table: pd.DataFrame) -> str:
    """The claims summary, one line per kind (:func:`lib.claims.summary`), or a note that none were logged."""
    lines = claims.summary(table).splitlines()
    return "<ul>" + "".join(f"<li>{_e(line)}</li>" for line in lines) + "</ul>" if lines else (
        "<p>No claims logged under this profile.</p>")


def _claims_count(table: pd.DataFrame) -> str:
    """One experiment's claims per kind (:func:`lib.claims.counts`): "paper: 3/5 hold (1 unexplained, 1 no
    power)"."""
    cells = []
    for kind, count in claims.counts(table).items():
        if count.measured or count.not_measured or count.cited:
            extra = [f"{n} {what}" for n, what in ((count.failed_unexplained, "unexplained"),
                                                   (count.no_power, "no power"), (count.undefined, "undefined"),
                                                   (count.needs_paper, "paper's data"),
                                                   (count.cited, "cited")) if n]
            cells.append(f"{kind}: {count.held}/{count.measured} hold" + (f" ({', '.join(extra)})" if extra else ""))
    return " · ".join(cells) or "no claims logged"


_KIND_HEADINGS = {
    "paper": "Paper claims: the paper's value beside the measured one (reproduction)",
    "extension": "Extension claims: beyond the paper, reported, not counted as reproduction",
    "sanity": "Sanity claims: true by construction or arithmetic on the paper's numbers, not counted as reproduction",
    "mechanism": "Mechanism claims: measured predictions that explain a failure, not counted as reproduction",
}


def _notebook_link(site: Path, page: Path, notebook: str) -> list[str]:
    """A link from ``page`` to the notebook's executed page, or none when it has none."""
    target = site / "notebooks" / f"{notebook}.html"
    return [f'<a href="{_href(target, page)}">notebook</a>'] if target.is_file() else []


def _write_notebook_claims(site: Path, profile: str, experiment: Experiment) -> None:
    """``claims/<nb>.html``: one notebook's claims, a forest plot of them on top, then a card each by kind, what
    fails or went unmeasured first."""
    page = claims_page(site, experiment.notebook)
    links = _notebook_link(site, page, experiment.notebook)
    source = _source_page(site, _claims_source(profile, experiment.notebook))
    if source.is_file():
        links.append(f'<a href="{_href(source, page)}">claims.json</a>')
    links.append(f'<a href="{_href(site / "claims.html", page)}">every notebook\'s claims</a>')
    table = experiment.claims
    by_kind = [(kind, table[table.kind == kind]) for kind in claims.KINDS]
    body = [f'<p class="meta">{" · ".join(links)}</p>', _summary(table),
            _forest([(f"{kind} claims", _forest_rows(cell, lambda i: f"#{i}")) for kind, cell in by_kind])]
    body += [f'<h2 id="{kind}">{_e(_KIND_HEADINGS[kind])}</h2>{_claim_cards(cell, experiment.powers)}'
             for kind, cell in by_kind if len(cell)]
    _page(site, page, profile, f"Claims of {experiment.notebook} — {experiment.title}", "\n".join(body))


def _paper_claims(site: Path, page: Path, members: list[Experiment]) -> str:
    """One paper's claims on ``claims.html``: a forest plot of its notebooks' claims (each row linked to its card),
    then each notebook's counts linked to its claims page."""
    groups, items = [], []
    for experiment in members:
        target = _href(claims_page(site, experiment.notebook), page)
        name = f'<a href="{target}">{_e(experiment.notebook)}</a>'
        groups.append((f"{name} — {mathml.text_html(experiment.title)}",
                       _forest_rows(experiment.claims, lambda i, t=target: f"{t}#{i}")))
        items.append(f"<li>{name} — {mathml.text_html(experiment.title)} "
                     f'<span class="meta">· {_e(_claims_count(experiment.claims))}</span></li>')
    return f'{_forest(groups)}<ul class="notebooks">{"".join(items)}</ul>'


def _write_claims(site: Path, profile: str, experiments: list[Experiment]) -> None:
    """``claims.html`` (the summary, the scoreboard, per paper a forest plot and each notebook's counts linked to
    its claims page) and the notebooks' claims pages."""
    page = site / "claims.html"
    table = _all_claims(experiments)
    body = [_summary(table)]
    if len(table):
        body.append(f"<h2>Scoreboard</h2>{_frame_html(scoreboard.scoreboard(table))}")
    for paper in sorted({e.paper for e in experiments}):
        body.append(f'<h2 id="paper-{_e(paper)}">Paper {_e(paper)}: claims by notebook</h2>'
                    f"{_paper_claims(site, page, [e for e in experiments if e.paper == paper])}")
    _page(site, page, profile, f"Claims — profile {profile}", "\n".join(body))
    for experiment in experiments:
        _write_notebook_claims(site, profile, experiment)


def _figure(site: Path, page: Path, experiment: Experiment, output: Output) -> str:
    """One figure or table of a gallery page: the image or table, its caption, its sources and its run."""
    shown = _guarded(experiment.problems, f"{output.stem} unreadable", lambda: _shown(site, page, output),
                     f'<p class="problem">{_e(output.stem)}: unreadable (see the index)</p>')
    manifests = "<br>".join(_manifest_line(s) for s in output.sources[:1])
    return (f'<figure id="{_e(output.notebook)}-{_e(output.stem)}">{shown}'
            f"<figcaption><strong>{_e(output.stem)}</strong>. {_inline_html(output.caption)}</figcaption>"
            f"<p>{_source_links(site, page, output.sources)}<br>{manifests}</p></figure>")


def _outputs_html(site: Path, experiment: Experiment) -> str:
    """A notebook's figures and tables as its gallery page shows them (its claims table left out: its claims page
    shows the claims), a carried notebook's as its earlier build did; '' with none."""
    if experiment.carried_from is not None:
        return experiment.carried["gallery"]
    page = gallery_page(site, experiment.notebook)
    figures = [_figure(site, page, experiment, o) for o in experiment.outputs if o.stem != _CLAIMS_STEM]
    return f"{_OUTPUTS_START}{''.join(figures)}{_OUTPUTS_END}" if figures else ""


def _write_gallery_page(site: Path, profile: str, experiment: Experiment, outputs: str) -> None:
    """``gallery/<nb>.html``: one notebook's figures and tables, linked to the contents and its claims."""
    page, notebook = gallery_page(site, experiment.notebook), experiment.notebook
    links = [f'<a href="{_href(site / "gallery.html", page)}#{_e(notebook)}">every notebook\'s figures</a>',
             *_notebook_link(site, page, notebook), f'<a href="{_href(claims_page(site, notebook), page)}">claims</a>']
    _page(site, page, profile, f"Figures and tables of {notebook} — {experiment.title}",
          f'<p class="meta">{" · ".join(links)}</p>{outputs}')


def _write_gallery(site: Path, profile: str, experiments: list[Experiment]) -> None:
    """``gallery.html``, the contents: one entry per notebook, anchored by its name, linked to its gallery page
    (:func:`_write_gallery_page`) and its claims page."""
    page = site / "gallery.html"
    entries = []
    for experiment in experiments:
        notebook, outputs = experiment.notebook, _outputs_html(site, experiment)
        name = f"{_e(notebook)} — {_e(experiment.title)}"
        count = outputs.count("<figure id=")
        if count:
            _write_gallery_page(site, profile, experiment, outputs)
            name = f'<a href="{_href(gallery_page(site, notebook), page)}">{name}</a>'
        shown = {0: "no figures or tables", 1: "1 figure or table"}.get(count, f"{count} figures and tables")
        entries.append(f'<li id="{_e(notebook)}">{name} <span class="meta">· {shown} · '
                       f'<a href="{_href(claims_page(site, notebook), page)}">claims</a></span></li>')
    body = ("<p>Each notebook's figures and tables, with their captions and sources, on a page of its own.</p>"
            f'<ol class="contents">{"".join(entries)}</ol>')
    _page(site, page, profile, f"Figures and tables — profile {profile}",
          body if entries else "<p>No figures or tables under this profile.</p>")


def _shown(site: Path, page: Path, output: Output) -> str:
    """A gallery entry's image or table."""
    if output.image is not None:
        return f'<img alt="{_e(output.stem)}" src="{_href(_copy(site, output.image), page)}">'
    if output.table is not None:
        return _table_file_html(output.table, output.caption)
    return "<p>(no image or table file beside this caption)</p>"


def _copy(site: Path, file: Path) -> Path:
    """Copy a repository file into ``site/files/`` at its repository-relative path."""
    target = site / "files" / paths.relative_to_root(file)
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copy2(file, target)
    return target


def _preview(file: Path) -> str:
    if file.suffix == ".parquet":
        frame = pd.read_parquet(file)
        note = f"<p class=\"meta\">{len(frame)} rows; the first {_PREVIEW_ROWS} shown.</p>"
        return note + _frame_html(frame.head(_PREVIEW_ROWS))
    text = file.read_text(errors="replace")
    return f"<pre>{_e(text[:20_000])}{'…' if len(text) > 20_000 else ''}</pre>"


def _write_source(site: Path, profile: str, source: str) -> None:
    page = _source_page(site, source)
    file = paths.from_root(source)
    try:
        manifest = results.read_manifest(file)
    except results.IncompleteResultError as error:
        _page(site, page, profile, source, f'<p class="fails">Incomplete result: {_e(error)}</p>')
        return
    raw = _copy(site, file)
    rows = pd.DataFrame(
        [(key, json.dumps(manifest.get(key), sort_keys=True))
         for key in ("git", "seeds", "params_hash", "cpu_count", "started", "finished", "wall_time_s", "sha256")],
        columns=["manifest", "value"],
    )
    params = pd.DataFrame([(k, json.dumps(v)) for k, v in sorted(manifest.get("params", {}).items())],
                          columns=["parameter", "value"])
    packages = pd.DataFrame(sorted((manifest.get("packages") or {}).items()), columns=["package", "version"])
    body = (f'<p><a href="{_href(raw, page)}">{_e(Path(source).name)}</a> (a copy of <code>{_e(source)}</code>)</p>'
            f"<h2>Run manifest</h2>{_frame_html(rows, rounded=False)}"
            f"<h2>Parameters</h2>{_frame_html(params, rounded=False)}"
            f"<h2>Package versions</h2>{_frame_html(packages, rounded=False)}<h2>Preview</h2>{_preview(file)}")
    _page(site, page, profile, source, body)


def _output_href(site: Path, page: Path, output: Output) -> str:
    """Where an index thumbnail leads: the output on its notebook's gallery page; the claims table to the claims
    page."""
    if output.stem == _CLAIMS_STEM:
        return _href(claims_page(site, output.notebook), page)
    return f"{_href(gallery_page(site, output.notebook), page)}#{output.notebook}-{output.stem}"


def _carried_entry(site: Path, page: Path, experiment: Experiment) -> str:
    """A carried notebook's index entry with its links where this build puts their targets: its claims count and
    claims table to its claims page, its thumbnails to its gallery page (an earlier build linked one claims page
    and one gallery page)."""
    notebook = _e(experiment.notebook)
    claims_href = _href(claims_page(site, experiment.notebook), page)
    gallery_href = _href(gallery_page(site, experiment.notebook), page)
    return (experiment.carried["index"].replace('href="claims.html"', f'href="{claims_href}"')
            .replace(f'href="gallery.html#{notebook}-{_CLAIMS_STEM}"', f'href="{claims_href}"')
            .replace(f'href="gallery.html#{notebook}-', f'href="{gallery_href}#{notebook}-'))


def _thumb(site: Path, page: Path, output: Output) -> str:
    """One captioned box of an experiment's grid: the image or the table's first rows, the caption's first
    sentence (:func:`lib.captions.first_sentence`)."""
    anchor = _e(_output_href(site, page, output))
    image = site / "files" / paths.relative_to_root(output.image) if output.image is not None else None
    box = "box"
    if image is not None and image.is_file():
        inner = f'<img alt="{_e(output.stem)}" loading="lazy" src="{_href(image, page)}">'
    elif output.table is not None:
        # an unreadable table is already named among its notebook's problems by the gallery
        inner = _guarded([], "", lambda: _table_file_html(output.table, output.caption, rows=_THUMB_ROWS),
                         f"<span>{_e(output.stem)}: unreadable</span>")
        box = "box preview"
    else:
        inner = f"<span>{_e(output.stem)}: no image or table</span>"
    sentence = captions.first_sentence(output.caption)
    return (f'<figure class="thumb"><a class="{box}" href="{anchor}">{inner}</a>'
            f"<figcaption><strong>{_e(output.stem)}</strong> · {mathml.text_html(sentence)}</figcaption></figure>")


def _published_mark(line: str | None) -> str:
    if line is None:
        return ""
    kind = "holds" if line == "current" else "fails"
    return f' · <span class="{kind}">published run {_e(line)}</span>'


def _write_index(site: Path, profile: str, experiments: list[Experiment], marks: Mapping[str, str]) -> None:
    page = site / "index.html"
    body = [_summary(_all_claims(experiments))]
    for paper in sorted({e.paper for e in experiments}):
        record = papers.by_id(paper)
        title = f" · <i>{_e(record.title)}</i>" if record is not None else ""
        body.append(f"<h2>Paper {_e(paper)}{title}</h2>")
        for experiment in (e for e in experiments if e.paper == paper):
            counts = _href(claims_page(site, experiment.notebook), page)
            if experiment.carried_from is not None:
                body.append(_carried_entry(site, page, experiment))
                continue
            link = (f'<a href="{_href(site / "notebooks" / f"{experiment.notebook}.html", page)}">notebook</a>'
                    if experiment.executed else "not executed")
            problems = "".join(f'<p class="problem">unreadable output — {_e(p)}</p>' for p in experiment.problems)
            grid = "".join(_thumb(site, page, o) for o in experiment.outputs)
            body.append(
                f'<section class="experiment" id="{_e(experiment.notebook)}"><h3>{_e(experiment.notebook)} — '
                f'{_e(experiment.title)}</h3><p class="meta">{link} · <a href="{counts}">'
                f"{_e(_claims_count(experiment.claims))}</a>{_published_mark(marks.get(experiment.notebook))}</p>"
                f'{problems}{f"<div class=grid>{grid}</div>" if grid else ""}</section>'
            )
    _page(site, page, profile, f"Probe companion — profile {profile}", "\n".join(body))


def _write_notebook(site: Path, profile: str, experiment: Experiment) -> None:
    page = site / "notebooks" / f"{experiment.notebook}.html"
    body = _guarded(experiment.problems, "executed notebook unreadable",
                    lambda: render_notebook(experiment.executed), None)
    if body is None:
        experiment.executed = None
        return
    counts = _href(claims_page(site, experiment.notebook), page)
    counts = f'<a href="{counts}">{_e(_claims_count(experiment.claims))}</a>'
    _page(site, page, profile, f"Notebook {experiment.notebook} (executed)",
          f'<p class="meta">Claims of this notebook: {counts}</p>{body}')


def _write_source_guarded(site: Path, profile: str, source: str, experiments: list[Experiment]) -> None:
    """:func:`_write_source`, or a page saying the source is unreadable (its notebook's entry says so too)."""
    owner = next((e for e in experiments if e.notebook == Path(source).parent.name), None)
    problems: list[str] = owner.problems if owner is not None else []
    failed = len(problems)
    _guarded(problems, f"{Path(source).name} unreadable", lambda: _write_source(site, profile, source), None)
    if len(problems) > failed:
        _page(site, _source_page(site, source), profile, source, f'<p class="problem">{_e(problems[-1])}</p>')


def build(profile: str, site: Path | None = None, *, executed: Mapping[str, Path] | None = None,
          notebooks: Collection[str] | None = None, carried: Collection[Experiment] = ()) -> Path:
    """Write the site for ``profile`` afresh into ``site`` (default ``build/report/<profile>/``); return its
    ``index.html``. ``notebooks`` and ``executed``: see :func:`gather`; ``carried``: notebooks kept as an earlier
    build showed them (:func:`carry`), whose pages and files are copied and never rewritten. The default site marks
    each notebook of this profile's publication in ``published/`` current or stale."""
    marks = published.statuses(published.default_folder(), profile) if site is None else {}
    site = paths.report_dir(profile) if site is None else Path(site)
    kept = {e.notebook for e in carried}
    fresh = [e for e in gather(profile, notebooks=notebooks, executed=executed) if e.notebook not in kept]
    experiments = sorted([*fresh, *carried], key=lambda e: e.notebook)
    if site.exists():
        shutil.rmtree(site)
    site.mkdir(parents=True)
    for experiment in carried:
        _copy_carried(site, experiment)
    for experiment in fresh:
        if experiment.executed is not None:
            _write_notebook(site, profile, experiment)
    _write_gallery(site, profile, experiments)
    sources = {s for e in fresh for o in e.outputs for s in o.sources if Path(s).parent.name not in kept}
    sources |= {_claims_source(profile, e.notebook) for e in fresh if len(e.claims)}
    sources |= {s for e in fresh for s in _cited_sources(profile, e)}
    for source in sorted(sources):
        _write_source_guarded(site, profile, source, experiments)
    _write_claims(site, profile, experiments)
    _write_index(site, profile, experiments, marks)
    return site / "index.html"
