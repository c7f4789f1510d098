"""lib.plotting: figures and tables land beside captions that name their logged sources."""

import warnings

import matplotlib

matplotlib.use("Agg")
import pandas as pd  # noqa: E402
import pytest  # noqa: E402
from matplotlib import pyplot as plt  # noqa: E402

from lib import config, plotting, results  # noqa: E402


@pytest.fixture
def logged(sandbox):
    run = results.start(config.validate("00_theory_checks", {"profile": "smoke"}))
    return run.save_table("curve", pd.DataFrame({"x": [0, 1], "y": [0.5, 0.9]}))


def test_figure_files_caption_and_index(sandbox, logged):
    plotting.use_style()
    fig, ax = plt.subplots()
    ax.plot([0, 1], [0.5, 0.9])
    plotting.save_figure(fig, "curve", "A curve.", [logged])
    folder = sandbox / "figures" / "smoke" / "00_theory_checks"
    assert (folder / "curve.pdf").stat().st_size > 0 and (folder / "curve.png").stat().st_size > 0
    caption = (folder / "curve.caption.md").read_text()
    assert caption.strip().endswith("Source: results/smoke/00_theory_checks/curve.parquet")
    index = (sandbox / "figures" / "smoke" / "INDEX.md").read_text()
    assert "00_theory_checks · curve" in index and "A curve." in index


def test_table_formats(sandbox, logged):
    frame = pd.DataFrame({"claim": ["a"], "value": [0.123456]})
    plotting.save_table(frame, "summary", "A table.", [logged])
    folder = sandbox / "figures" / "smoke" / "00_theory_checks"
    assert pd.read_csv(folder / "summary.csv").equals(frame)
    assert "| claim" in (folder / "summary.md").read_text()
    assert "\\begin{tabular}" in (folder / "summary.tex").read_text()
    assert "Source: results/smoke/00_theory_checks/curve.parquet" in (folder / "summary.caption.md").read_text()


def test_sources_must_be_complete_logged_results(sandbox, logged):
    fig = plt.figure()
    with pytest.raises(ValueError, match="sources is empty"):
        plotting.save_figure(fig, "f", "c", [])
    results.manifest_path(logged).unlink()
    with pytest.raises(results.IncompleteResultError):
        plotting.save_figure(fig, "f", "c", [logged])


def test_markdown_tables_keep_their_columns_and_the_index_embeds(sandbox, logged):
    from markdown_it import MarkdownIt

    frame = pd.DataFrame({"check": ["max |error|", "|r| > 0.5\nper model"], "value": [0.01, 0.9]})
    plotting.save_table(frame, "pipes", "Cells with pipes.", [logged])
    fig = plt.figure()
    plotting.save_figure(fig, "curve", "A curve.", [logged])
    folder = sandbox / "figures" / "smoke" / "00_theory_checks"
    cells_per_row = []
    for token in MarkdownIt("commonmark").enable("table").parse((folder / "pipes.md").read_text()):
        if token.type == "tr_open":
            cells_per_row.append(0)
        elif token.type in ("th_open", "td_open"):
            cells_per_row[-1] += 1
    assert cells_per_row == [2, 2, 2]
    rendered = MarkdownIt("commonmark").enable("table").render((folder / "pipes.md").read_text())
    assert ">max |error|</td>" in rendered
    index = (sandbox / "figures" / "smoke" / "INDEX.md").read_text()
    assert "![00_theory_checks · curve](00_theory_checks/curve.png)" in index
    assert "max \\|error\\|" in index  # the table itself, embedded


def test_tables_for_reading_are_rounded_and_the_csv_keeps_every_digit(sandbox, logged):
    frame = pd.DataFrame({"claim": ["power"], "measured": [0.07999999999999996], "n": [3200], "tiny": [2.220446e-16]})
    plotting.save_table(frame, "rounded", "Rounded for reading.", [logged])
    folder = sandbox / "figures" / "smoke" / "00_theory_checks"
    assert "0.07999999999999996" in (folder / "rounded.csv").read_text()
    assert pd.read_csv(folder / "rounded.csv").measured.iloc[0] == 0.07999999999999996
    for name in ("rounded.md", "rounded.tex", "INDEX.md"):
        text = (folder / name if name != "INDEX.md" else sandbox / "figures" / "smoke" / name).read_text()
        assert "0.08" in text and "0.0799" not in text and "3200" in text and "2.22e-16" in text, name


def test_readable_rounds_floats_and_long_float_strings_only():
    frame = pd.DataFrame({"value": [0.07999999999999996, float("nan")], "text": ["0.7363920785128822", "0.00"],
                          "count": [12345678, 2], "label": ["2.13.0", "+0.5"]})
    shown = results.readable(frame)
    assert shown.value.iloc[0] == "0.08" and pd.isna(shown.value.iloc[1])
    assert list(shown.text) == ["0.7364", "0.00"] and list(shown["count"]) == [12345678, 2]
    assert list(shown.label) == ["2.13.0", "+0.5"] and frame.value.iloc[0] == 0.07999999999999996  # a copy
    assert [results.readable_number(v) for v in (12345.678, 1.0, -0.5, float("inf"))] == ["12350", "1", "-0.5", "inf"]


def test_empty_panels_of_a_grid_are_hidden(sandbox, logged):
    fig, axes = plt.subplots(2, 2)
    axes[0, 0].plot([0, 1], [0.5, 0.9])
    twin = axes[1, 1].twinx()  # a twin holding the data keeps its host's axis
    twin.plot([0, 1], [1, 0])
    plotting.save_figure(fig, "grid", "One used panel and a twin.", [logged])
    assert [ax.axison for ax in axes.flat] == [True, False, False, True]
    assert twin.axison
    plt.close(fig)


def test_an_empty_table_keeps_its_header_and_says_why(sandbox, logged):
    plotting.save_table(pd.DataFrame({"model": [], "auc": []}), "none", "Nothing.", [logged],
                        empty_reason="no model reached the threshold")
    folder = sandbox / "figures" / "smoke" / "00_theory_checks"
    assert (folder / "none.csv").read_text().strip() == "model,auc"
    assert "No rows: no model reached the threshold" in (folder / "none.caption.md").read_text()
    assert "model" in (folder / "none.md").read_text()


def test_text_collisions_name_overlapping_texts_and_texts_off_the_canvas():
    fig, axes = plt.subplots(1, 2, figsize=(4, 2), layout="constrained")
    for ax in axes:
        ax.plot([0, 1], [0, 1])
        ax.set_title("a rather long panel title that runs on")
    found = plotting.text_collisions(fig)
    assert ("title (panel 1) 'a rather long panel title that runs on' overlaps title (panel 2) 'a rather long panel "
            "title that runs on'") in found
    assert "title (panel 1) 'a rather long panel title that runs on' leaves the canvas" in found
    fig, ax = plt.subplots(figsize=(3, 2), layout="constrained")
    ax.bar(range(6), range(6))
    ax.set_xticks(range(6), ["smollm2-135m"] * 6)
    assert "x tick label (panel 1) 'smollm2-135m' overlaps x tick label (panel 1) 'smollm2-135m'" in \
        plotting.text_collisions(fig)
    fig, axes = plt.subplots(1, 2, figsize=(5, 3), layout="none", gridspec_kw={"wspace": 0.05})
    for ax in axes:
        ax.plot([0, 1], [0.5, 0.9])
        ax.set_ylabel("test AUROC")
    assert "y label (panel 2) 'test AUROC' runs into panel 1" in plotting.text_collisions(fig)
    plt.close("all")


def test_a_clean_grid_has_no_collisions_and_a_legend_is_one_box():
    fig, axes = plt.subplots(2, 3, figsize=(7, 4), layout="constrained")
    for ax in axes.flat:
        ax.plot([1, 100], [0.5, 0.9], label="ranked prefixes")
        ax.plot([1, 100], [0.9, 0.5], label="ℓ1 supports")
        ax.set(xscale="log", title="short title", xlabel="features", ylabel="test AUROC")
    axes[0, 0].legend(fontsize=7)
    fig.suptitle("the rest of the title in one line above the grid")
    assert plotting.text_collisions(fig) == []
    axes[0, 0].text(0.5, 0.5, "note", transform=axes[0, 0].transAxes, ha="center", va="center")
    axes[0, 0].legend(loc="center")
    assert plotting.text_collisions(fig) == ["text (panel 1) 'note' overlaps legend (panel 1)"]
    plt.close(fig)


def test_rotated_tick_labels_are_measured_as_rotated_boxes():
    fig, ax = plt.subplots(figsize=(4, 3), layout="constrained")
    ax.bar(range(8), range(8))
    ax.set_xticks(range(8), ["a long tick label"] * 8, rotation=45, ha="right")
    assert plotting.text_collisions(fig) == []  # their axis-aligned extents overlap, the labels do not
    ax.set_xticks(range(8), ["a long tick label"] * 8, rotation=5, ha="right")
    assert any("x tick label" in line for line in plotting.text_collisions(fig))
    plt.close(fig)


def test_save_figure_lays_out_and_warns_of_collisions(sandbox, logged):
    plotting.use_style()
    assert plt.figure().get_layout_engine() is not None  # the style's constrained layout
    fig, axes = plt.subplots(1, 2, figsize=(6, 2.5), layout="none")
    fig.subplots_adjust(wspace=0.05)
    for ax in axes:
        ax.plot([0, 1], [0.5, 0.9])
        ax.set(xlabel="x", ylabel="AUC", title="panel")
    assert plotting.text_collisions(fig)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        plotting.save_figure(fig, "clean", "Two panels.", [logged])  # a figure without a layout engine gets one
    assert plotting.text_collisions(fig) == []
    axes[1].set_title("a title long enough to run into the panel beside it " * 2)
    with pytest.warns(plotting.FigureLayoutWarning, match="figure 'clean': title .panel 2. .* leaves the canvas"):
        plotting.save_figure(fig, "clean", "Two panels.", [logged])
    plt.close("all")


def test_inside_ipython_a_saved_figure_is_the_cells_image_output_once(sandbox, logged, monkeypatch):
    import base64

    import IPython
    import IPython.display

    shown = []
    monkeypatch.setattr(IPython.display, "display", lambda data, raw: shown.append(data))
    fig, ax = plt.subplots(figsize=(2, 1.5), dpi=50)
    ax.plot([0, 1], [0.5, 0.9])
    plotting.save_figure(fig, "outside", "Outside IPython.", [logged])
    assert shown == [] and plt.fignum_exists(fig.number)  # a plain script: files only, the figure stays open
    monkeypatch.setattr(IPython, "get_ipython", lambda: object())
    with matplotlib.rc_context({"savefig.dpi": 200, "savefig.bbox": "standard"}):
        plotting.save_figure(fig, "inside", "Inside a kernel.", [logged])
    (data,) = shown
    assert data["text/plain"] == "figure figures/smoke/00_theory_checks/inside.png"
    png = base64.b64decode(data["image/png"])
    saved = (sandbox / "figures" / "smoke" / "00_theory_checks" / "inside.png").read_bytes()
    assert png.startswith(b"\x89PNG") and int.from_bytes(png[16:20], "big") == 2 * 50  # the figure's own dpi
    assert int.from_bytes(saved[16:20], "big") == 2 * 200  # the file keeps savefig's
    assert not plt.fignum_exists(fig.number)  # closed: an inline backend does not show it a second time
