"""lib.report: the static site built from logged results, figures, manifests and executed notebooks.

The site is built from a small sandboxed companion (one logged result, a figure, a table whose
cells hold ``|`` and TeX, a table too wide for the page, paper, extension and sanity claims quoting TeX, an
executed notebook with progress bars on stderr); the end-to-end tests open every page in headless Chromium at
1,280 px: nothing scrolls sideways, the TeX is laid out as MathML.
"""

from __future__ import annotations

import base64
import io
import re
import shutil
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlparse

import matplotlib

matplotlib.use("Agg")
import nbformat  # noqa: E402
import pandas as pd  # noqa: E402
import pytest  # noqa: E402
from conftest import headless_chromium, judged, use_catalogue  # noqa: E402
from matplotlib import pyplot as plt  # noqa: E402

from lib import claims, config, paths, plotting, report, results  # noqa: E402

REPO = Path(__file__).resolve().parents[1]


#: The paper's words as the claims quote them.
_TEX = "$\\alpha^{2}\\Phi(\\frac{s}{\\sqrt{2}})$"
#: A notebook's table output wider than the page, quoting TeX.
_WIDE_OUTPUT = pd.DataFrame({"a": ["$\\beta_{B}$"], **{f"c{i}": ["a_long_unbroken_value"] for i in range(30)}})
#: A power record as the claims engine logs it (two nulls, its draws, the outcome's likelihood ratio), and one as
#: earlier runs logged it (one null, no ratio).
_POWER = {"if_paper": 0.97, "if_null": 0.1, "null": "chance", "nulls": {"chance": 0.02, "a shared drift": 0.1},
          "draws": 400, "mc_se": 0.008, "lr": 9.7, "decisive": True}
_OLDER_POWER = {"if_paper": 0.9, "if_null": 0.3, "null": "chance"}


def _png() -> str:
    fig, ax = plt.subplots(figsize=(2, 1))
    ax.plot([0, 1], [1, 0])
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png")
    plt.close(fig)
    return base64.b64encode(buffer.getvalue()).decode()


def _companion(profile: str) -> None:
    """Log what a finished notebook leaves behind, under ``profile``, in the sandbox."""
    run = results.start(config.validate("00_theory_checks", {"profile": profile}))
    curve = run.save_table("curve", pd.DataFrame({"x": [0, 1], "y": [0.5, 0.9]}))
    fig, ax = plt.subplots()
    ax.plot([0, 1], [0.5, 0.9])
    plotting.save_figure(fig, "curve", "A rising curve (paper 000, Sec. 4.2). It rises.", [curve])
    plt.close(fig)
    plotting.save_table(pd.DataFrame({"check": ["max |error| of $\\alpha^{*}$"], "paper": ["000"]}), "errors",
                        "Errors.", [curve])
    wide = pd.DataFrame({f"column_{i}": [f"a_rather_long_value_{i}"] for i in range(40)})
    plotting.save_table(wide, "wide", "A table wider than the page.", [curve])
    logged = claims.records([  # the logged form record_claims writes, without a catalogue
        judged("C1", "Thm 1", "the gap closes in `gap.parquet`", "0.00", 0.01,
               claims.Point(0, tol=0.05, reason="a chosen 0.05"), se=0.02),
        judged("C3", "Eq. 8", "the ceiling " + "is never reached " * 20, _TEX, 0.5,
                     claims.Point(0.9, tol=0.05, reason="a chosen 0.05")),
        judged("C2", "Eq. 2", "AUC is a probability", "[0, 1]", 1.5, claims.Range(0, 1), kind="sanity"),
        judged("C4", "Sec. 5", "a setting the profile lacks", "> 0", float("nan"), claims.Bound(">", 0),
                     kind="extension", undefined="no such model offline"),
    ], "000")
    logged[0]["power"], logged[1]["power"] = _POWER, _OLDER_POWER
    run.save_table("draws", pd.DataFrame({"draw": [0.4, 0.6]}))  # no figure reads it; C3's reason names it
    logged[1]["reason"] += "; its draws: draws.parquet"
    run.save_json("claims", logged)
    plotting.save_table(claims.readable_table(claims.frame(logged)), "claims", "The claims.", [curve])
    notebook = nbformat.v4.new_notebook(cells=[
        nbformat.v4.new_markdown_cell("# 00 — Theory checks\n\nThe purity law, $\\alpha$ and all."),
        nbformat.v4.new_code_cell("load()", execution_count=1, outputs=[  # a progress bar alone: no output
            nbformat.v4.new_output("stream", name="stderr", text="\rLoading weights:   0%|          | 0/272"),
            nbformat.v4.new_output("stream", name="stderr", text="\rLoading weights: 100%|##########| 272/272"),
            nbformat.v4.new_output("stream", name="stderr", text="\n"),
        ]),
        nbformat.v4.new_code_cell("print('hi')", execution_count=1, outputs=[
            nbformat.v4.new_output("stream", name="stderr", text="UserWarning: careful\nextract:  10%|#"),
            nbformat.v4.new_output("stream", name="stderr", text="\rextract: 100%|##########|\n"),
            nbformat.v4.new_output("display_data", data={"image/png": _png(), "text/plain": "<Figure>"}),
            nbformat.v4.new_output("execute_result", execution_count=1,
                                   data={"text/html": _WIDE_OUTPUT.to_html(), "text/plain": "a"}),
        ]),
    ])
    executed = paths.executed_notebook(profile, "00_theory_checks")
    executed.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(notebook, executed)


class _References(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.found: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        for name, value in attrs:
            if name in ("href", "src") and value:
                self.found.append(value)


def _local_references(page: Path) -> list[Path]:
    parser = _References()
    parser.feed(page.read_text())
    targets = []
    for reference in parser.found:
        if reference.startswith(("data:", "#")):
            continue
        assert "://" not in reference, f"{page.name} reaches outside the site: {reference}"
        targets.append((page.parent / unquote(reference.split("#")[0])).resolve())
    return targets


@pytest.fixture
def smoke_site(sandbox) -> Path:
    _companion("smoke")
    return report.build("smoke")


def test_pages_links_and_banner(smoke_site):
    site = smoke_site.parent
    pages = sorted(site.rglob("*.html"))
    names = {p.relative_to(site).as_posix() for p in pages}
    assert {"index.html", "gallery.html", "gallery/00_theory_checks.html", "claims.html",
            "claims/00_theory_checks.html", "notebooks/00_theory_checks.html",
            "sources/00_theory_checks/curve.parquet.html",
            "sources/00_theory_checks/claims.json.html"} <= names
    for page in pages:
        assert report.SMOKE_BANNER in page.read_text(), page
        for target in _local_references(page):
            assert target.is_file(), f"{page.relative_to(site)} links to a missing {target}"
    index = (site / "index.html").read_text()
    assert "00 — Theory checks" in index  # the experiment's title, from the notebook's first heading
    assert "Paper 000" in index and "paper: 1/2 hold" in index and "sanity: 0/1 hold" in index
    assert "extension: 0/0 hold (1 undefined)" in index


def test_notebook_gallery_and_source_content(smoke_site):
    site = smoke_site.parent
    notebook = (site / "notebooks" / "00_theory_checks.html").read_text()
    assert "<h1>00 — Theory checks</h1>" in notebook and "<em>and all</em>" not in notebook  # Markdown rendered
    assert notebook.count("data:image/png;base64,") == 1 and "<table" in notebook
    gallery = (site / "gallery" / "00_theory_checks.html").read_text()
    assert "A rising curve (paper 000, Sec. 4.2). It rises." in gallery and "<td>000</td>" in gallery
    assert "<td>max |error| of <math" in gallery and "$" not in gallery.split("<h1>")[1]  # the table's TeX as MathML
    assert 'href="../sources/00_theory_checks/curve.parquet.html"' in gallery
    source = (site / "sources" / "00_theory_checks" / "curve.parquet.html").read_text()
    assert "wall_time_s" in source and "numpy" in source and "n_jobs" in source  # manifest, packages, params


def test_a_notebook_page_drops_progress_bars_and_joins_its_streams(smoke_site):
    notebook = (smoke_site.parent / "notebooks" / "00_theory_checks.html").read_text()
    assert "Loading weights" not in notebook and "extract:" not in notebook
    assert notebook.count('<pre class="stderr">') == 1 and '<pre class="stderr">UserWarning: careful</pre>' in notebook


def _card(page: str, claim: str) -> str:
    """The card of ``claim`` on a claims page."""
    start = page.index(f'<article class="claim" id="{claim}">')
    return page[start:page.index("</article>", start)]


def test_a_result_a_claims_reason_names_is_in_the_site_with_its_manifest(smoke_site):
    site = smoke_site.parent
    assert (site / "files/results/smoke/00_theory_checks/draws.parquet").is_file()
    assert (site / "sources/00_theory_checks/draws.parquet.html").is_file()


def test_each_notebook_has_a_claims_page_failures_first(smoke_site):
    site = smoke_site.parent
    page = (site / "claims" / "00_theory_checks.html").read_text()
    paper, extension, sanity = (page.index(f'<h2 id="{kind}">') for kind in ("paper", "extension", "sanity"))
    assert paper < page.index('id="C3">') < page.index('id="C1">') < extension  # the failing claim first
    assert extension < page.index("the profile lacks") < sanity < page.index("AUC is a probability")
    failing = _card(page, "C2")
    assert '<span class="badge v-unexplained">fails, unexplained</span>' in failing
    assert '<span class="label">power</span>exact</div>' in failing
    assert "<summary>reason</summary><p>fails — unexplained: 1.5 is above 1</p>" in failing
    assert '<span class="badge v-undefined">not measured, undefined here</span>' in _card(page, "C4")
    assert "<p>no such model offline</p>" in _card(page, "C4")
    assert "<mfrac>" in page[paper:extension] and "\\Phi" not in page  # the paper's TeX as MathML
    assert 'href="../notebooks/00_theory_checks.html"' in page
    assert 'href="../sources/00_theory_checks/claims.json.html"' in page
    overview = (site / "claims.html").read_text()
    assert "Scoreboard" in overview and "the gap closes" not in overview  # counts only, the claims on their page
    assert '<a href="claims/00_theory_checks.html">00_theory_checks</a>' in overview
    counts = 'href="claims/00_theory_checks.html">paper: 1/2 hold'
    assert counts in (site / "index.html").read_text()
    assert f"../{counts[6:]}" in (site / "notebooks" / "00_theory_checks.html").read_text()


def test_a_claim_card_shows_its_power_its_code_and_its_words_behind_disclosures(smoke_site):
    page = (smoke_site.parent / "claims" / "00_theory_checks.html").read_text()
    held, failed = _card(page, "C1"), _card(page, "C3")
    assert "the gap closes in <code>gap.parquet</code>" in held and "`" not in page  # a code span, not backticks
    assert '<span class="label">measured</span>0.01 ± 0.02</div>' in held
    power = re.search(r'<span class="label">power</span>([^<]*)</div>', held)[1]
    assert power.startswith("p1 0.97 / p0 ") and {"0.02", "0.10"} <= set(re.findall(r"\d\.\d+", power))
    assert power.endswith(" · LR 9.7")
    assert "<summary>power</summary>" in held and "400 draws; Monte Carlo s.e. 0.008" in held
    assert '<span class="label">power</span>p1 0.90 / p0 0.30</div>' in failed  # an older record: no ratio
    words = failed.index("<details><summary>the paper's words · Eq. 8</summary>")
    assert failed.index("<mfrac>") > words  # the paper's words behind the disclosure
    assert re.search(r"C3</a> the ceiling is never reached[^<]*…</div>", failed[:words])  # cut at a word
    assert "<p>Measured: the ceiling is" in failed[words:]  # in full behind the disclosure


def test_one_colour_per_verdict(smoke_site):
    assert set(report.VERDICT_STYLES) == set(claims.VERDICTS)
    names, colours = zip(*report.VERDICT_STYLES.values(), strict=True)
    assert len(set(names)) == len(set(colours)) == len(claims.VERDICTS)
    page = (smoke_site.parent / "claims" / "00_theory_checks.html").read_text()
    for name, colour in report.VERDICT_STYLES.values():
        assert f".{name} {{ --verdict: {colour}; }}" in page and f'class="badge {name}"' in page  # in the legend


def test_a_forest_plot_tops_each_claims_page_and_each_paper(smoke_site):
    site = smoke_site.parent
    page = (site / "claims" / "00_theory_checks.html").read_text()
    assert page.index('<section class="forest">') < page.index("<article")
    rows = re.findall(r'<div class="frow (v-[a-z-]+)"><a href="#(\w+)">.*?</div>', page)
    assert rows == [("v-unexplained", "C3"), ("v-holds", "C1"), ("v-unexplained", "C2")]  # C4 measured nothing
    held = page[page.index('<a href="#C1">'):page.index("</svg>", page.index('<a href="#C1">'))]
    assert 'class="interval"' in held and "0.01 ± 0.02" in page  # ± 2 s.e. where the s.e. is finite
    overview = (site / "claims.html").read_text()
    paper = overview.index('<h2 id="paper-000">')
    assert paper < overview.index('<section class="forest">') < overview.index('<ul class="notebooks">')
    assert overview.count('<div class="frow') == 3 and 'href="claims/00_theory_checks.html#C3"' in overview


def test_the_gallery_is_a_contents_with_a_page_per_notebook(smoke_site):
    site = smoke_site.parent
    contents = (site / "gallery.html").read_text()
    assert '<ol class="contents"><li id="00_theory_checks"><a href="gallery/00_theory_checks.html">' in contents
    assert "3 figures and tables" in contents and "<figure" not in contents
    page = (site / "gallery" / "00_theory_checks.html").read_text()
    assert page.count("<figure id=") == 3 and "00_theory_checks-claims" not in page  # the claims: on their page
    assert 'href="../claims/00_theory_checks.html"' in page and 'href="../gallery.html#00_theory_checks"' in page


def test_a_carried_notebook_keeps_its_figures_from_a_single_page_gallery(smoke_site):
    """An earlier build showed every notebook on one gallery page, its claims table among the figures: the
    notebook's page of its own shows its figures, its links moved one folder down, its claims table left out."""
    earlier = smoke_site.parent
    section = (earlier / "gallery" / "00_theory_checks.html").read_text().split('<section class="outputs">')[1]
    section = section.split("</section>")[0].replace('="../', '="')
    claims_figure = '<figure id="00_theory_checks-claims"><table><tr><td>C1</td></tr></table></figure>'
    (earlier / "gallery.html").write_text(f'<h2 id="00_theory_checks">00</h2>{section}{claims_figure}</body></html>\n')
    shutil.rmtree(earlier / "gallery")
    kept = report.carry(earlier, "00_theory_checks", "00 — Theory checks", report.gather("smoke")[0].claims)
    site = report.build("smoke", earlier.parent / "later", notebooks=[], carried=[kept]).parent
    page = site / "gallery" / "00_theory_checks.html"
    assert page.read_text().count("<figure id=") == 3 and "00_theory_checks-claims" not in page.read_text()
    assert all(target.is_file() for target in _local_references(page))
    assert "p1 0.97 / p0" in (site / "claims" / "00_theory_checks.html").read_text()  # the power records carried


def test_index_captions_end_at_a_sentence_and_tables_show_their_rows(smoke_site):
    index = smoke_site.read_text()
    assert "<figcaption><strong>curve</strong> · A rising curve (paper 000, Sec. 4.2).</figcaption>" in index
    assert "table: " not in index and "<td>max |error| of <math" in index  # the table's first rows, its TeX drawn
    assert index.count('class="box preview"') == 3  # the errors, wide and claims tables
    assert 'href="gallery/00_theory_checks.html#00_theory_checks-curve"' in index
    assert '<a class="box preview" href="claims/00_theory_checks.html">' in index  # the claims table: its page


def test_gallery_and_claims_pages_round_for_reading(sandbox, monkeypatch):
    run = results.start(config.validate("00_theory_checks", {"profile": "smoke"}))
    curve = run.save_table("curve", pd.DataFrame({"x": [0, 1], "y": [0.5, 0.07999999999999996]}))
    plotting.save_table(pd.DataFrame({"claim": ["C3"], "measured": [0.07999999999999996]}), "raw", "Raw.", [curve])
    plotting.save_table(pd.DataFrame(), "nothing", "An empty table.", [curve])
    use_catalogue(monkeypatch, """
    - {id: C3, kind: paper, section: Thm 4, paper_says: "<= 0.05", measures: power, test: {bound: "<=", value: 0.05},
       null_hypothesis: "a size of 0.1", power: {exact: "a closed form"}}
    """)
    run.record_claims({"C3": claims.Evidence(0.07999999999999996)})
    site = report.build("smoke").parent
    assert "(an empty table: no rows or columns)" in (site / "gallery" / "00_theory_checks.html").read_text()
    pages = {name: (site / name).read_text() for name in ("gallery/00_theory_checks.html",
                                                           "claims/00_theory_checks.html",
                                                           "sources/00_theory_checks/curve.parquet.html")}
    for name, page in pages.items():
        assert "0.08</" in page and "0.0799" not in page, name
    assert '<span class="label">measured</span>0.08</div>' in pages["claims/00_theory_checks.html"]
    assert "0.07999999999999996" in (paths.figures_dir("smoke", "00_theory_checks") / "raw.csv").read_text()


def test_default_profile_has_no_banner_and_the_site_is_rebuilt(sandbox):
    _companion("default")
    stale = paths.report_dir("default") / "notebooks" / "gone.html"
    stale.parent.mkdir(parents=True)
    stale.write_text("old")
    index = report.build("default")
    assert report.SMOKE_BANNER not in index.read_text()
    assert not stale.exists()


def test_an_incomplete_source_is_reported_not_hidden(sandbox):
    _companion("smoke")
    results.manifest_path(paths.results_dir("smoke", "00_theory_checks") / "curve.parquet").unlink()
    site = report.build("smoke").parent
    assert "incomplete result" in (site / "gallery" / "00_theory_checks.html").read_text()
    assert "Incomplete result" in (site / "sources" / "00_theory_checks" / "curve.parquet.html").read_text()


def _browser():
    """Headless Chromium at the 1,280 px the site is read at, keeping the console log."""
    return headless_chromium("--window-size=1280,1600", browser_log=True)


#: Text a reader sees, less code (a notebook's source quotes TeX as written) and style sheets.
_VISIBLE_TEXT = """const body = document.body.cloneNode(true);
body.querySelectorAll('pre, code, .highlight, style').forEach(e => e.remove());
return body.textContent;"""
#: Per ``<math>`` element: its CSS display, and whether each fraction's numerator sits above its denominator.
_MATH_LAYOUT = """return Array.from(document.querySelectorAll('math')).map(m => [getComputedStyle(m).display,
  Array.from(m.querySelectorAll('mfrac')).every(f => f.children[0].getBoundingClientRect().bottom
                                                    <= f.children[1].getBoundingClientRect().top)]);"""


#: One round trip per page: the lazy thumbnails are asked for, and once every image has loaded or failed the script
#: answers with the page's and the window's widths, the text a reader sees (:data:`_VISIBLE_TEXT`), each image's
#: source and decoded width, and every link.
_PAGE_FACTS = """const done = arguments[arguments.length - 1];
document.querySelectorAll('img[loading=lazy]').forEach(i => { i.loading = 'eager'; });
const settled = Array.from(document.images).filter(i => !i.complete).map(
  i => new Promise(r => { i.addEventListener('load', r); i.addEventListener('error', r); }));
Promise.all(settled).then(() => {
  const text = (() => {""" + _VISIBLE_TEXT.replace("\n", "\n    ") + """})();
  done([document.documentElement.scrollWidth, document.documentElement.clientWidth, text,
        Array.from(document.images).map(i => [i.getAttribute('src').slice(0, 60), i.naturalWidth]),
        Array.from(document.links).map(a => a.href)]);
});"""


def _check_every_page(driver, site: Path) -> None:
    """Every page of ``site`` loads without a console error, every image decodes, every link is a file in it; at
    1,280 px no page is wider than the window, and no page but a source page (which shows its file and parameters
    as written) shows TeX source."""
    driver.set_script_timeout(10)  # an image that neither loads nor fails within it fails the page
    for page in sorted(site.rglob("*.html")):
        driver.get(page.as_uri())
        page_width, viewport, text, widths, links = driver.execute_async_script(_PAGE_FACTS)
        assert page_width <= viewport, f"{page.relative_to(site)} is {page_width} px wide in a {viewport} px viewport"
        if "sources" not in page.relative_to(site).parts:
            assert "$\\" not in text and not re.search(r"\\[A-Za-z]+", text), page.relative_to(site)
        errors = [entry for entry in driver.get_log("browser") if entry["level"] == "SEVERE"]
        assert not errors, f"{page.relative_to(site)}: {errors}"
        assert all(width > 0 for _, width in widths), f"{page.relative_to(site)}: {widths}"
        for link in links:
            target = Path(unquote(urlparse(link).path))
            assert urlparse(link).scheme == "file" and target.is_file(), f"{page.relative_to(site)}: {link}"


def test_the_published_report_loads_in_headless_chromium():
    """The published site passes every check the smoke site does: pages, images and links; no page scrolls
    sideways; its TeX is drawn as math. Over 20 s: Chromium loads each of the site's pages (about 200, one per
    notebook, figure, table and source) and waits for its images; a sample would miss the page that breaks."""
    site = REPO / "published" / "report"
    if not (site / "index.html").is_file():
        pytest.skip("published/ holds no report (make publish writes it)")
    driver = _browser()
    try:
        _check_every_page(driver, site)
        _check_math_layout(driver, site)
    finally:
        driver.quit()


#: The tallest a page may be at 1,280 px, and the width of a phone's window.
_TALLEST, _PHONE = 20_000, 390
#: A page's height and width, the window's width, the tops of its forest plot and first claim card (None without
#: one), and the width of its narrowest claim statement (None without one).
_LAYOUT = """const top = s => { const e = document.querySelector(s); return e ? e.getBoundingClientRect().top : null; };
const widths = Array.from(document.querySelectorAll('article.claim .what'), e => e.getBoundingClientRect().width);
return [document.documentElement.scrollHeight, document.documentElement.scrollWidth, window.innerWidth,
        top('section.forest'), top('article.claim'), widths.length ? Math.min(...widths) : null];"""


def _check_layout(driver, site: Path, pages: list[Path]) -> None:
    """At 1,280 px no page of ``pages`` is taller than :data:`_TALLEST`; at a phone's 390 px none scrolls sideways,
    a claim's statement takes most of the window's width, and a forest plot comes before the first claim card."""
    driver.set_window_size(1280, 1600)
    for page in pages:
        driver.get(page.as_uri())
        height = driver.execute_script(_LAYOUT)[0]
        assert height <= _TALLEST, f"{page.relative_to(site)} is {height} px tall at 1,280 px"
    driver.set_window_size(_PHONE, 900)
    for page in pages:
        driver.get(page.as_uri())
        _, width, window, forest, card, statement = driver.execute_script(_LAYOUT)
        assert window == _PHONE and width <= window, f"{page.relative_to(site)} is {width} px wide at {window} px"
        assert statement is None or statement > 0.75 * window, f"{page.relative_to(site)}: {statement} px"
        assert card is None or (forest is not None and forest < card), page.relative_to(site)


def _screenshot(driver, page: Path, to: Path, tries: int = 3) -> bool:
    """Load ``page`` and save what the window shows to ``to``. On a loaded shared host Chromium now and then drops
    the capture ("aborted by navigation: Not attached to an active page", a driver timeout, not a page fault: every
    page has already loaded cleanly in :func:`_check_every_page`), so the page is loaded again, up to ``tries``
    times."""
    from selenium.common.exceptions import TimeoutException

    for _ in range(tries - 1):
        driver.get(page.as_uri())
        try:
            return driver.save_screenshot(str(to))
        except TimeoutException:
            continue
    driver.get(page.as_uri())
    return driver.save_screenshot(str(to))


def test_every_page_loads_in_headless_chromium(smoke_site):
    driver = _browser()
    site = smoke_site.parent
    try:
        _check_every_page(driver, site)
        kinds = {"index": site / "index.html", "gallery": site / "gallery.html",
                 "gallery-notebook": site / "gallery" / "00_theory_checks.html", "claims": site / "claims.html",
                 "claims-notebook": site / "claims" / "00_theory_checks.html",
                 "notebook": next(site.glob("notebooks/*.html")), "source": next(site.glob("sources/*/*.html"))}
        screens = REPO / "build" / "report-screens"
        screens.mkdir(parents=True, exist_ok=True)
        for width in (1280, _PHONE):  # one screenshot per kind of page and width, to look at
            driver.set_window_size(width, 1600)
            for kind, page in kinds.items():
                screenshot = screens / f"{kind}-{width}.png"
                assert _screenshot(driver, page, screenshot) and screenshot.stat().st_size > 0
    finally:
        driver.quit()


def test_claims_pages_read_on_a_phone_and_no_page_is_too_tall(smoke_site):
    site = smoke_site.parent
    driver = _browser()
    try:
        _check_layout(driver, site, sorted(site.rglob("*.html")))
        driver.get((site / "claims" / "00_theory_checks.html").as_uri())
        assert None not in driver.execute_script(_LAYOUT)[3:]  # its forest plot, at the top, and its cards
        driver.get((site / "gallery.html").as_uri())
        entries = driver.execute_script("return Array.from(document.querySelectorAll('ol.contents > li'), e => e.id)")
        assert entries == ["00_theory_checks"]
    finally:
        driver.quit()


def test_the_published_run_rebuilt_reads_on_a_phone_and_no_page_is_too_tall(tmp_path):
    """The published run's claims and gallery pages, built by this code the way a publication keeps its notebooks
    (:func:`lib.report.carry`): none taller than 20,000 px at 1,280 px, none wider than a phone's 390 px."""
    from lib import publish, published

    folder = published.default_folder()
    record = published.record(folder)
    if record is None or not (folder / "report" / "index.html").is_file():
        pytest.skip("published/ holds no report (make publish writes it)")
    carried = [report.carry(folder / "report", n, str(published.manifest(folder, n).get("title", n)),
                            publish.published_claims(folder, n)) for n in record["notebooks"]]
    site = report.build(record["profile"], tmp_path / "site", notebooks=[], carried=carried).parent
    pages = [site / "claims.html", site / "gallery.html", *sorted(site.glob("claims/*.html")),
             *sorted(site.glob("gallery/*.html"))]
    assert len(pages) > 2 * len(record["notebooks"])
    driver = _browser()
    try:
        _check_layout(driver, site, pages)
        driver.get((site / "gallery.html").as_uri())
        entries = driver.execute_script("return Array.from(document.querySelectorAll('ol.contents > li'), e => e.id)")
        assert entries == sorted(record["notebooks"])
    finally:
        driver.quit()


def _check_math_layout(driver, site: Path) -> None:
    """The math of four kinds of page of ``site`` is drawn as MathML with its fractions stacked: a claims page, an
    executed notebook, the index and the first gallery page holding TeX (a gallery page leaves the claims table, the
    usual home of TeX, to the claims page; a site built before each notebook had a gallery page has one)."""
    galleries = sorted(site.glob("gallery/*.html")) or [site / "gallery.html"]
    with_math = [page for page in galleries if "<math" in page.read_text()]
    for page in (site / "claims" / "00_theory_checks.html", site / "notebooks" / "00_theory_checks.html",
                 *with_math[:1], site / "index.html"):
        driver.get(page.as_uri())
        layout = driver.execute_script(_MATH_LAYOUT)
        assert layout and all(display in ("math", "block math") and stacked for display, stacked in layout), page


def test_tex_is_drawn_as_math_in_chromium(smoke_site):
    assert "<math" in (smoke_site.parent / "gallery" / "00_theory_checks.html").read_text()  # its errors table
    driver = _browser()
    try:
        _check_math_layout(driver, smoke_site.parent)
    finally:
        driver.quit()


def test_report_command_writes_the_site(sandbox, capsys):
    from lib.__main__ import main

    _companion("smoke")
    assert main(["report", "--profile", "smoke"]) == 0
    assert "build/report/smoke/index.html" in capsys.readouterr().out
    assert (paths.report_dir("smoke") / "claims.html").is_file()


def test_index_is_a_captioned_grid_with_one_claims_line_per_notebook(smoke_site):
    index = smoke_site.read_text()
    assert index.count('<section class="experiment"') == 1 and '<div class=grid>' in index
    assert index.count('<figure class="thumb">') == 4  # the curve, the errors, wide and claims tables
    assert "paper: 1/2 hold" in index


def test_a_corrupted_output_marks_its_notebook_and_the_build_goes_on(sandbox):
    _companion("smoke")
    broken = paths.executed_notebook("smoke", "E01_regimes")
    broken.write_text("{ not a notebook")
    (paths.figures_dir("smoke", "00_theory_checks") / "errors.csv").write_bytes(b"\xff\xfe\x00\x81 broken")
    plotting.save_table(pd.DataFrame({"model": [], "auc": []}), "empty", "Nothing passed.",
                        [paths.results_dir("smoke", "00_theory_checks") / "curve.parquet"],
                        empty_reason="no model reached the threshold")
    site = report.build("smoke").parent
    index = (site / "index.html").read_text()
    assert "E01_regimes" in index and "unreadable output — executed notebook unreadable" in index
    assert "unreadable output — errors unreadable" in index
    assert not (site / "notebooks" / "E01_regimes.html").exists()
    assert (site / "notebooks" / "00_theory_checks.html").is_file()
    gallery = (site / "gallery" / "00_theory_checks.html").read_text()
    assert "errors: unreadable" in gallery and "A rising curve" in gallery
    assert "<th>model</th>" in gallery and "no rows: no model reached the threshold" in gallery


def test_the_index_marks_a_stale_publication(sandbox):
    _companion("smoke")
    folder = sandbox / "published"
    (folder / "notebooks").mkdir(parents=True)
    (folder / "PUBLICATION.json").write_text('{"profile": "smoke", "notebooks": ["00_theory_checks"]}')
    (folder / "notebooks" / "00_theory_checks.manifest.json").write_text(
        '{"notebook": "00_theory_checks", "profile": "smoke", "script_sha256": "0", "sources": {}, "params": {}}')
    index = report.build("smoke").read_text()
    assert "published run stale: notebooks/00_theory_checks.py removed" in index


def test_a_carried_notebook_links_its_counts_to_its_claims_page(smoke_site):
    earlier = smoke_site.parent
    index = earlier / "index.html"  # as a build before claims pages wrote it: the counts link the one claims page
    index.write_text(index.read_text().replace('href="claims/00_theory_checks.html"', 'href="claims.html"'))
    table = report.gather("smoke")[0].claims
    kept = report.carry(earlier, "00_theory_checks", "00 — Theory checks", table)
    site = report.build("smoke", earlier.parent / "later", notebooks=[], carried=[kept]).parent
    assert 'href="claims/00_theory_checks.html">paper: 1/2 hold' in (site / "index.html").read_text()
    assert '<article class="claim" id="C3">' in (site / "claims" / "00_theory_checks.html").read_text()
    later = (site / "gallery" / "00_theory_checks.html").read_text()
    assert later.count("<figure id=") == 3 and "00_theory_checks-claims" not in later  # as the earlier page showed

