"""``make report``: the companion as a static site you can read without running it.

``build(profile)`` writes ``build/report/<profile>/`` from what a batch left behind, and nothing
else: logged results and their manifests (``results/``), figures and tables with their captions
(``figures/``), and executed notebooks (``build/<profile>/*.ipynb``). It never imports a paper and
never computes. Pages:

- ``index.html``: paper → experiment → figure or table preview, with each experiment's claims count linked to
  its claims page;
- ``notebooks/<nb>.html``: the executed notebook with its outputs (consecutive stream outputs joined as a terminal
  shows them; stderr's progress bars and empty streams left out);
- ``gallery.html``: every figure and table, its caption, its ``Source:`` files linked;
- ``sources/<nb>/<file>.html``: a source's run manifest (commit, parameters, seeds, packages, wall time)
  and a preview, beside a copy of the file under ``files/``;
- ``claims.html``: the per-paper scoreboard (:mod:`lib.scoreboard`) and each notebook's counts, linked to its
  page;
- ``claims/<nb>.html``: a notebook's claims by kind (paper, extension, sanity), failing and unmeasured ones first:
  the paper's words beside the measured value, comparison, outcome and reason.

The papers' ``$…$`` mathematics (in claims, captions, tables and notebook cells) is rendered as MathML
(:mod:`lib.mathml`), which browsers draw natively. No page scrolls sideways at 1,280 px: wide tables scroll
inside their own box, and claims tables wrap their cells.

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

from lib import captions, claims, mathml, papers, paths, plotting, published, results, scoreboard

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
table.claims { display: table; table-layout: fixed; width: 100%; }
table.claims td { overflow-x: auto; } math { font-size: 1.15em; }
code { overflow-wrap: anywhere; } .html-output { overflow-x: auto; }
.holds { color: #176b1c; font-weight: 600; } .fails { color: #b00020; font-weight: 600; }
.not-measured { color: #7a5c00; font-weight: 600; }
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
    #: A carried notebook's sections of that build's pages: ``index`` and ``gallery`` HTML.
    carried: dict[str, str] = field(default_factory=dict)


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


def _claims_of(profile: str, notebook: str) -> pd.DataFrame:
    """A notebook's logged claims (none when it logged none); raises when its ``claims.json`` is unreadable."""
    file = paths.results_dir(profile, notebook) / "claims.json"
    if not file.exists() and not results.manifest_path(file).exists():
        return pd.DataFrame(columns=["notebook", *claims.COLUMNS])
    return results.load_claims(file).assign(notebook=notebook)[["notebook", *claims.COLUMNS]]


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
    table = _guarded(problems, "claims.json unreadable", lambda: _claims_of(profile, notebook),
                     pd.DataFrame(columns=["notebook", *claims.COLUMNS]))
    outputs = _guarded(problems, "figure captions unreadable", lambda: _outputs(profile, notebook), [])
    owner = papers.paper_of(notebook)
    paper = owner.id if owner is not None else "other"
    return Experiment(notebook, str(paper), title, run, table.reset_index(drop=True), outputs, problems)


def _all_claims(experiments: list[Experiment]) -> pd.DataFrame:
    frames = [e.claims for e in experiments if len(e.claims)]
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(columns=["notebook", *claims.COLUMNS])


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

    Its claims are ``table`` (its published ``claims.json``); its index and gallery sections are cut from the
    earlier pages, which this module wrote, and :func:`build` copies its notebook page, source pages and files.
    Raises ValueError when ``site`` has no index entry for it.
    """
    index = (site / "index.html").read_text()
    entry = _cut(index, f'<section class="experiment" id="{_e(notebook)}">', "</section>", keep_end=True)
    if not entry:
        raise ValueError(f"{notebook}: no entry in the index of {paths.display(site)}")
    gallery_page = site / "gallery.html"
    gallery = gallery_page.read_text() if gallery_page.is_file() else ""
    section = _cut(gallery, f'<h2 id="{_e(notebook)}">', '<h2 id="', keep_end=False)
    section = section.removesuffix("</body></html>\n").rstrip("\n")
    owner = papers.paper_of(notebook)
    return Experiment(notebook, str(owner.id if owner is not None else "other"), title, None,
                      table.reset_index(drop=True), carried_from=Path(site),
                      carried={"index": entry, "gallery": section})


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
    css = _CSS + HtmlFormatter().get_style_defs(".highlight")
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


_OUTCOME_CLASS = {claims.HOLDS: "holds", claims.FAILS: "fails", claims.NOT_MEASURED: "not-measured"}
#: A notebook's claims page lists what to look at first: unexplained failures, explained ones, unmeasured, holding.
_VERDICT_ORDER = {v: i for i, v in enumerate((claims.FAILS_UNEXPLAINED, claims.FAILS_EXPLAINED, claims.NO_POWER,
                                              claims.NEEDS_PAPER, claims.HOLDS))}
#: The columns of a notebook's claims table and their share of the page's width (it wraps, never scrolls).
_CLAIM_COLUMNS = {"id": 10, "section": 8, "statement": 19, "paper_value": 13, "measured": 8, "comparison": 10,
                  "verdict": 9, "power": 10, "reason": 13}


def claims_page(site: Path, notebook: str) -> Path:
    """The page of one notebook's claims."""
    return site / "claims" / f"{notebook}.html"


def _claims_table(table: pd.DataFrame) -> str:
    """One kind's claims of one notebook, failing and unmeasured ones first, each with its reason; the paper's
    words with their ``$…$`` as MathML."""
    table = table.iloc[table.verdict.map(_VERDICT_ORDER).fillna(0).to_numpy().argsort(kind="stable")]
    widths = "".join(f'<col style="width: {w}%">' for w in _CLAIM_COLUMNS.values())
    head = "".join(f"<th>{_e(c.replace('_', ' '))}</th>" for c in _CLAIM_COLUMNS)
    reasons = claims.readable_table(table)["reason"].tolist()
    rows = []
    for claim, reason in zip(table.itertuples(index=False), reasons, strict=True):
        cells = "".join(f"<td>{mathml.text_html(getattr(claim, c))}</td>"
                        for c in ("id", "section", "statement", "paper_value"))
        cells += f"<td>{_e(results.readable_number(claim.measured))}</td><td>{mathml.text_html(claim.comparison)}</td>"
        verdict = f'<td class="{_OUTCOME_CLASS.get(claim.outcome, "fails")}">{_e(claim.verdict)}</td>'
        rows.append(f'<tr id="{_e(claim.id)}">{cells}{verdict}<td>{_e(claim.power)}</td>'
                    f"<td>{mathml.text_html(reason)}</td></tr>")
    return (f'<table class="claims"><colgroup>{widths}</colgroup><thead><tr>{head}</tr></thead>'
            f"<tbody>{''.join(rows)}</tbody></table>")


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
                                                   (count.no_power, "no power"), (count.needs_paper, "paper profile"),
                                                   (count.cited, "cited")) if n]
            cells.append(f"{kind}: {count.held}/{count.measured} hold" + (f" ({', '.join(extra)})" if extra else ""))
    return " · ".join(cells) or "no claims logged"


_KIND_HEADINGS = {
    "paper": "Paper claims: the paper's value beside the measured one (reproduction)",
    "extension": "Extension claims: beyond the paper, reported, not counted as reproduction",
    "sanity": "Sanity claims: true by construction or arithmetic on the paper's numbers, not counted as reproduction",
}


def _write_notebook_claims(site: Path, profile: str, experiment: Experiment) -> None:
    """``claims/<nb>.html``: one notebook's claims by kind, what fails or went unmeasured first."""
    page = claims_page(site, experiment.notebook)
    links = []
    if (site / "notebooks" / f"{experiment.notebook}.html").is_file():
        links.append(f'<a href="{_href(site / "notebooks" / f"{experiment.notebook}.html", page)}">notebook</a>')
    source = _source_page(site, _claims_source(profile, experiment.notebook))
    if source.is_file():
        links.append(f'<a href="{_href(source, page)}">claims.json</a>')
    links.append(f'<a href="{_href(site / "claims.html", page)}">every notebook\'s claims</a>')
    body = [f'<p class="meta">{" · ".join(links)}</p>', _summary(experiment.claims)]
    for kind in claims.KINDS:
        cell = experiment.claims[experiment.claims.kind == kind]
        if len(cell):
            body.append(f'<h2 id="{kind}">{_e(_KIND_HEADINGS[kind])}</h2>{_claims_table(cell)}')
    _page(site, page, profile, f"Claims of {experiment.notebook} — {experiment.title}", "\n".join(body))


def _write_claims(site: Path, profile: str, experiments: list[Experiment]) -> None:
    """``claims.html`` (the summary, the scoreboard, each notebook's counts linked to its claims page) and the
    notebooks' claims pages."""
    page = site / "claims.html"
    table = _all_claims(experiments)
    body = [_summary(table)]
    if len(table):
        body.append(f"<h2>Scoreboard</h2>{_frame_html(scoreboard.scoreboard(table))}")
    for paper in sorted({e.paper for e in experiments}):
        rows = "".join(
            f'<tr><td><a href="{_href(claims_page(site, e.notebook), page)}">{_e(e.notebook)}</a></td>'
            f"<td>{mathml.text_html(e.title)}</td><td>{_e(_claims_count(e.claims))}</td></tr>"
            for e in experiments if e.paper == paper)
        body.append(f'<h2 id="paper-{_e(paper)}">Paper {_e(paper)}: claims by notebook</h2><table class="claims">'
                    '<colgroup><col style="width: 22%"><col style="width: 48%"><col style="width: 30%"></colgroup>'
                    f"<thead><tr><th>notebook</th><th>what it reproduces</th><th>claims</th></tr></thead>"
                    f"<tbody>{rows}</tbody></table>")
    _page(site, page, profile, f"Claims — profile {profile}", "\n".join(body))
    for experiment in experiments:
        _write_notebook_claims(site, profile, experiment)


def _write_gallery(site: Path, profile: str, experiments: list[Experiment]) -> None:
    page = site / "gallery.html"
    body = []
    for experiment in experiments:
        if experiment.carried_from is not None:
            body.append(experiment.carried["gallery"])
            continue
        if not experiment.outputs:
            continue
        body.append(f'<h2 id="{_e(experiment.notebook)}">{_e(experiment.notebook)} — {_e(experiment.title)}</h2>')
        for output in experiment.outputs:
            shown = _guarded(experiment.problems, f"{output.stem} unreadable", lambda o=output: _shown(site, page, o),
                             f'<p class="problem">{_e(output.stem)}: unreadable (see the index)</p>')
            manifests = "<br>".join(_manifest_line(s) for s in output.sources[:1])
            body.append(
                f'<figure id="{_e(output.notebook)}-{_e(output.stem)}">{shown}'
                f"<figcaption><strong>{_e(output.stem)}</strong>. {mathml.text_html(output.caption)}</figcaption>"
                f"<p>{_source_links(site, page, output.sources)}<br>{manifests}</p></figure>"
            )
    _page(site, page, profile, f"Figures and tables — profile {profile}",
          "\n".join(b for b in body if b) or "<p>No figures or tables under this profile.</p>")


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


def _thumb(site: Path, page: Path, output: Output) -> str:
    """One captioned box of an experiment's grid: the image or the table's first rows, the caption's first
    sentence (:func:`lib.captions.first_sentence`)."""
    anchor = f"gallery.html#{_e(output.notebook)}-{_e(output.stem)}"
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
                body.append(experiment.carried["index"].replace('href="claims.html"', f'href="{counts}"'))
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
    for source in sorted(sources):
        _write_source_guarded(site, profile, source, experiments)
    _write_claims(site, profile, experiments)
    _write_index(site, profile, experiments, marks)
    return site / "index.html"
