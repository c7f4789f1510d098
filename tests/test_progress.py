"""lib.progress: live lines of running notebooks and the end-of-batch table.

The unit tests feed the reporter the log records papermill writes; the last test runs two real
notebooks at once through ``python -m lib run --jobs 2`` and reads what a person would see.
"""

from __future__ import annotations

import logging
import os
from datetime import UTC, datetime

import jupytext
import pandas as pd
import pytest
import tqdm.auto
import tqdm.notebook
import tqdm.std
from conftest import TINY_NOTEBOOK, TINY_SCHEMA, add_toy_schema, run_cli, tiny_repository, use_catalogue

from lib import claims, config, plotting, progress, results, runner


def _record(func: str, message: str, level: int = logging.INFO) -> logging.LogRecord:
    return logging.LogRecord("papermill", level, __file__, 1, message, None, None, func=func)


def _notebook():
    return jupytext.reads(TINY_NOTEBOOK, fmt="py:percent")


def test_cell_labels_skip_markdown_and_count_the_injected_parameters():
    labels = progress.cell_labels(_notebook())
    assert labels == ["", 'profile = "smoke"  # profile', "# injected parameters", "import time",
                      'second, _ = run.json("second", lambda: time.sleep(params.pause_s) or {"done": True})',
                      "if params.fail:"]


def test_reporter_lines(capsys):
    reporter = progress.Reporter(prefix=True, verbose=True)
    with progress.running("ZZ_tiny", progress.cell_labels(_notebook())) as options:
        assert options["config"].KernelManager.transport == "ipc"
        reporter.emit(_record("execute_notebook", "Input Notebook:  NotebookNode object"))  # bookkeeping
        reporter.emit(_record("cell_start", "Executing Cell 1-----"))  # Markdown: no line
        reporter.emit(_record("cell_start", "Executing Cell 4-----"))
        reporter.emit(_record("log_output_message", "\rsteps:  50%|#  | 1/2\rsteps: 100%|##| 2/2\n", logging.WARNING))
        reporter.emit(_record("log_output_message", "a\nb\n"))
        reporter.emit(_record("execute_notebook", "Passed unknown parameter: x", logging.WARNING))
    lines = capsys.readouterr().err.splitlines()
    assert lines[0].startswith("[ZZ_tiny] cell 3/5 `import time` · ")
    assert lines[1:] == ["[ZZ_tiny] steps: 100%|##| 2/2", "[ZZ_tiny] a", "[ZZ_tiny] b",
                         "[ZZ_tiny] Passed unknown parameter: x"]


def _cell_with_outputs(reporter: progress.Reporter) -> None:
    """What papermill logs for a cell that prints "printed", displays a table and warns, as it logs them."""
    with progress.running("ZZ_tiny", ["x = 1"]):
        reporter.emit(_record("cell_start", "Executing Cell 1-----"))
        reporter.emit(_record("log_output_message", "printed\n"))  # stdout, at INFO
        reporter.emit(_record("log_output_message", "   a  b\n0  1  2"))  # a display's text/plain, at INFO too
        reporter.emit(_record("log_output_message", "a warning\n", logging.WARNING))  # stderr


@pytest.mark.parametrize(("verbose", "shown"), [(False, ["a warning"]),
                                                (True, ["printed", "   a  b", "0  1  2", "a warning"])])
def test_printed_and_displayed_text_reach_the_terminal_only_when_verbose(capsys, verbose, shown):
    _cell_with_outputs(progress.Reporter(prefix=False, verbose=verbose))
    cell, *rest = capsys.readouterr().err.splitlines()
    assert cell.startswith("cell 1/1 `x = 1` · ") and rest == shown


def test_one_notebook_at_a_time_needs_no_prefix(capsys):
    reporter = progress.Reporter(prefix=False)
    with progress.running("ZZ_tiny", ["x = 1"]):
        reporter.emit(_record("log_output_message", "hello\n", logging.WARNING))
    assert capsys.readouterr().err == "hello\n"


def test_batch_table_columns_align(sandbox, monkeypatch):
    run = results.start(config.validate("00_theory_checks", {"profile": "smoke"}))
    logged = run.save_table("t", pd.DataFrame({"x": [1]}))
    plotting.save_table(pd.DataFrame({"x": [1]}), "t", "T.", [logged])
    use_catalogue(monkeypatch, "".join(
        f"- {{id: {i}, kind: {kind}, section: s, paper_says: '<= 1', measures: x, test: {{bound: '<=', value: 1}}, "
        "null_hypothesis: 'a value of 2', power: {exact: 'fixed'}}\n" for i, kind in
        (("a", "paper"), ("b", "paper"), ("n", "paper"), ("c", "sanity"))))
    run.record_claims({"a": claims.Evidence(1.0), "b": claims.Evidence(2.0), "n": claims.Evidence(float("nan")),
                       "c": claims.Evidence(1.0)})
    table = progress.batch_table([runner.Outcome("00_theory_checks", "ran", 83.2),
                                  runner.Outcome("E05_orthogonality", "failed", 1.5, "E05: cell 3 raised")], "smoke")
    header, first, second = table.splitlines()
    assert header.split() == ["status", "notebook", "wall", "time", "figures", "paper", "claims", "extension",
                              "claims", "sanity", "claims", "mechanism", "claims"]
    assert first.split() == ["ran", "00_theory_checks", "1m23s", "1", "1/2", "+1", "n.m.", "-", "1/1", "-"]
    assert second.split()[:8] == ["failed", "E05_orthogonality", "1.5s", "0", "-", "-", "-", "-"]
    assert header.index("notebook") == first.index("00_theory_checks") == second.index("E05_orthogonality")
    for column, cells in [("wall time", ("1m23s", "1.5s")), ("figures", ("1", "0")), ("sanity claims", ("1/1", "-")),
                          ("paper claims", ("1/2 +1 n.m.", "-"))]:
        end = header.index(column) + len(column)  # right-aligned under its header
        assert first[:end].endswith(cells[0]) and second[:end].endswith(cells[1]), column


def test_a_batch_streams_cells_and_kernel_bars_without_noise(tmp_path, monkeypatch):
    monkeypatch.setenv("TQDM_MININTERVAL", "0")
    root = tiny_repository(tmp_path, only_tiny=True)
    noisy = TINY_NOTEBOOK.replace("ZZ_tiny", "ZZ_bars") + (
        "\n# %%\nfrom tqdm.auto import tqdm\nfor _ in tqdm(range(3), desc='steps'):\n    time.sleep(0.3)\n")
    (root / "notebooks" / "ZZ_bars.py").write_text(noisy)
    (root / "params" / "smoke" / "ZZ_bars.yaml").write_text("pause_s: 0.0\n")
    add_toy_schema(root, TINY_SCHEMA.replace("ZZ_tiny", "ZZ_bars").replace("Tiny(", "Bars("))
    result = run_cli(root, "run", "--profile", "smoke", "--jobs", "2")
    assert result.returncode == 0, result.stderr
    err = result.stderr
    assert "[ZZ_bars] cell 3/6 `import time`" in err and "[ZZ_tiny] cell 3/5 `import time`" in err
    assert err.count("[ZZ_bars] steps:") >= 2 and "[ZZ_bars] steps: 100%" in err  # the kernel's bar keeps updating
    for noise in ("without encryption", "Passed unknown parameter", "Unable to parse", "Input Notebook"):
        assert noise not in err, noise
    assert "ZZ_tiny: profile smoke" not in err  # config.load's printed line: in the notebook only, unless --verbose
    ends = [line for line in err.splitlines() if line.startswith("batch: ")]  # one line as each notebook ends
    assert len(ends) == 2 and ends[0].startswith("batch: 1 of 2 ended (ZZ_") and " · ends about " in ends[0]
    assert ends[1].startswith("batch: 2 of 2 ended (ZZ_") and ends[1].endswith(" min")
    assert result.stdout.splitlines()[0].split()[:2] == ["status", "notebook"]


#: Keeps the kernel 1 s inside its handler of papermill's closing kernel_info request, where a shutdown's SIGINT lands
#: (on a busy machine that happens by chance; jupyter_client's own manager then logs "KeyboardInterrupt caught").
_LINGER = ("import time; _k = get_ipython().kernel; _info = _k.shell_handlers['kernel_info_request']\n"
           "async def _lingering(*args):\n    await _info(*args); time.sleep(1)\n"
           "_k.shell_handlers['kernel_info_request'] = _lingering")


def test_a_kernel_is_shut_down_without_an_interrupt(tmp_path, capfd):
    import nbformat
    import papermill

    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("x = 1")])
    notebook.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    with progress.running("ZZ_quiet", ["x = 1"]) as options:
        options["extra_arguments"].append(f"--IPKernelApp.exec_lines={_LINGER}")
        papermill.execute_notebook(notebook, str(tmp_path / "out.ipynb"), kernel_name="python3", log_output=False,
                                   progress_bar=False, **options)
    assert "KeyboardInterrupt" not in capfd.readouterr().err  # the kernel's stderr is this process's


def test_a_quiet_notebook_gets_a_heartbeat(monkeypatch, capsys):
    import time

    monkeypatch.setattr(progress, "HEARTBEAT_S", 0.5)
    with progress.Reporter(prefix=False).watching(), progress.running("ZZ_tiny", ["x = 1"]):
        time.sleep(1.6)
    assert "still in cell 1/1 `x = 1` · " in capsys.readouterr().err


class _Clock:
    """A fake wall clock: seconds since the epoch, moved by hand."""

    def __init__(self, start: float) -> None:
        self.now = start

    def __call__(self) -> float:
        return self.now


_TEN_UTC = datetime(2026, 12, 4, 10, 0, tzinfo=UTC).timestamp()


def test_a_training_loop_reports_rate_and_estimated_end_at_most_every_interval():
    clock, lines = _Clock(_TEN_UTC), []
    with progress.Steps("train gru", 100, every_s=30, clock=clock, write=lines.append) as bar:
        clock.now += 10
        bar.update(20, loss=0.912345)
        assert lines == []
        clock.now += 30
        bar.update(20, loss=0.5)
        clock.now += 10
        bar.update(10)  # 10 s after the last line: none
        clock.now += 50
        bar.update(50)  # the last step: the closing line says it
    assert lines == ["train gru: step 40/100 · 1.0 steps/s · ETA 10:01 UTC (in 1m00s) · loss 0.5",
                     "train gru: done, 100 steps in 1m40s · 1.0 steps/s"]


def test_a_slow_loop_reads_in_seconds_per_step_and_dates_an_end_past_midnight():
    clock, lines = _Clock(_TEN_UTC), []
    bar = progress.Steps("finetune", 30_000, every_s=30, clock=clock, write=lines.append)
    clock.now += 9000
    bar.update(1_000)
    assert lines == ["finetune: step 1,000/30,000 · 9.0 s/step · ETA 2026-12-07 13:00 UTC (in 72h30m00s)"]


def test_a_short_loop_or_a_failing_one_writes_no_closing_line():
    clock, lines = _Clock(_TEN_UTC), []
    with progress.Steps("sae", 10, every_s=30, clock=clock, write=lines.append) as bar:
        clock.now += 29
        bar.update(10)
    assert lines == []
    with pytest.raises(RuntimeError), progress.Steps("sae", 10, every_s=30, clock=clock, write=lines.append) as bar:
        clock.now += 31
        bar.update(1)
        raise RuntimeError("diverged")
    assert len(lines) == 1 and lines[0].startswith("sae: step 1/10 · ")


def test_a_run_that_stops_on_a_criterion_gives_its_end_as_at_most():
    clock, lines = _Clock(_TEN_UTC), []
    bar = progress.Steps("train gru", 1_000, stops_early=True, every_s=30, clock=clock, write=lines.append)
    clock.now += 60
    bar.update(100)
    assert lines == ["train gru: step 100/1,000 · 1.7 steps/s · ETA at most 10:10 UTC (in at most 9m00s)"]


class _WidgetBar(tqdm.notebook.tqdm):
    """tqdm's notebook bar as ``tqdm.auto`` hands it out in the Lab, recording what it is told instead of drawing."""

    def __init__(self, **options) -> None:  # no widget: nothing to display outside a kernel
        self.options, self.n, self.total, self.postfixes, self.closed = options, 0, options["total"], [], False

    def update(self, n: int = 1) -> None:
        self.n += n

    def set_postfix(self, values: dict, refresh: bool = True) -> None:
        self.postfixes.append(values)

    def close(self) -> None:
        self.closed = True


def test_in_the_lab_a_loop_is_a_widget_bar_and_writes_no_lines(monkeypatch):
    monkeypatch.setattr(tqdm.auto, "tqdm", _WidgetBar)  # what tqdm.auto picks in a kernel with ipywidgets
    clock, lines = _Clock(_TEN_UTC), []
    with progress.Steps("train gru", 1_000, stops_early=True, every_s=30, clock=clock, write=lines.append) as steps:
        for _ in range(3):
            clock.now += 60
            steps.update(100, loss=0.5)
    bar = steps.bar
    assert lines == [] and bar.n == 300 and bar.postfixes[-1] == {"loss": "0.5"}
    assert bar.options["desc"] == "train gru" and "<at most {remaining}" in bar.options["bar_format"]
    assert bar.closed and bar.total == 300  # stopped early on its criterion: the bar ends full, not failed


def test_a_batch_kernel_gets_lines_not_a_widget(monkeypatch):
    monkeypatch.setattr(tqdm.auto, "tqdm", tqdm.std.tqdm)  # what lib.progress.running gives a batch's kernels
    clock, lines = _Clock(_TEN_UTC), []
    steps = progress.Steps("train gru", 10, every_s=30, clock=clock, write=lines.append)
    clock.now += 30
    steps.update()
    assert steps.bar is None and lines[0].startswith("train gru: step 1/10 · ")


def test_a_long_loop_that_is_not_training_reports_its_items_as_steps(monkeypatch):
    made = []

    class Recorded(progress.Steps):
        def __init__(self, label: str, total: int) -> None:
            super().__init__(label, total, write=lambda line: None)
            made.append(self)

    monkeypatch.setattr(progress, "Steps", Recorded)
    assert list(progress.tracked(range(0, 10, 4), "extract tiny-bert")) == [0, 4, 8]
    (steps,) = made
    assert (steps.label, steps.total, steps.step) == ("extract tiny-bert", 3, 3)
    assert list(progress.tracked(["a", "b"], "quiet", shown=False)) == ["a", "b"] and len(made) == 1


def test_the_kernel_wraps_to_the_terminal_width(monkeypatch):
    monkeypatch.setenv("COLUMNS", "123")
    assert progress.terminal_width() == 123
    with progress.running("ZZ_tiny", ["x = 1"]) as options:
        assert "os.environ.setdefault('COLUMNS', '113')" in options["extra_arguments"][0]  # less "[ZZ_tiny] "
    monkeypatch.delenv("COLUMNS")

    def no_terminal(fd: int) -> os.terminal_size:
        raise OSError(25, "Inappropriate ioctl for device")

    monkeypatch.setattr(os, "get_terminal_size", no_terminal)
    assert progress.terminal_width() == progress.FALLBACK_COLUMNS
