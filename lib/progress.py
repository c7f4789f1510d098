"""What a batch tells the person running it: live lines while notebooks run, a table at the end.

While a notebook runs (:func:`running`), :class:`Reporter` turns papermill's log into lines a person
can follow: one line per code cell (notebook, cell i/N, its first line, elapsed time), what the cell
writes to stderr (warnings, training progress, the kernel's text progress bars: each update one line,
throttled by ``TQDM_MININTERVAL``), and a "still in cell" line when a notebook has been quiet for
:data:`HEARTBEAT_S`. What a cell prints to stdout or displays (tables, figures, the claims summary)
goes only into the executed notebook, unless the reporter is ``verbose``. With more than one notebook
at a time every line starts with the notebook's name. Papermill's bookkeeping (input and output
paths, "Ending Cell") is dropped; its warnings are kept.

The batch bar's postfix names the running notebooks and their cells; on a terminal it ticks every second.

Inside a notebook, every training loop reports through :class:`Steps`, and every long loop of batches that is not
training (extraction, generation) through :func:`tracked`: a plain line at most every :data:`STEP_LINE_S` with its
step, rate and estimated end ("at most" for a run that may stop early on a criterion), and a closing line; in the Lab
(a kernel with ipywidgets, outside a batch) a progress bar instead.
"""

from __future__ import annotations

import contextlib
import functools
import logging
import os
import re
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextvars import ContextVar
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, TypeVar

from lib import claims, paths, results

#: A running notebook that printed nothing for this long gets a "still in cell" line.
HEARTBEAT_S = 60.0
#: Seconds between two updates of a kernel's text progress bar in the log (the ``TQDM_MININTERVAL`` default).
KERNEL_BAR_INTERVAL_S = 10.0
#: Seconds between two progress lines of a training loop (:class:`Steps`).
STEP_LINE_S = 30.0
#: Columns assumed where no terminal says (a log file, a pipe).
FALLBACK_COLUMNS = 100

_CURRENT: ContextVar[str] = ContextVar("notebook", default="")
_LOCK = threading.Lock()
_CELL = re.compile(r"Executing Cell (\d+)")
_CONSOLE_BARS = ("import tqdm.auto, tqdm.std; "
                 "tqdm.auto.tqdm, tqdm.auto.trange = tqdm.std.tqdm, tqdm.std.trange")
#: Frames a notebook displays or prints (its closing claims table among them) show floats for reading.
_READABLE_FRAMES = "import pandas, lib.results; pandas.set_option('display.float_format', lib.results.readable_number)"


def cell_labels(notebook: Any) -> list[str]:
    """First line of each cell as papermill will run them (its injected parameters after ours); "" for Markdown."""
    labels = []
    for cell in notebook.cells:
        first = next((line.strip() for line in cell.source.splitlines() if line.strip()), "")
        labels.append(first if cell.cell_type == "code" else "")
        if "parameters" in cell.metadata.get("tags", []):
            labels.append("# injected parameters")
    return labels


def _clock(seconds: float) -> str:
    minutes, rest = divmod(int(seconds), 60)
    hours, minutes = divmod(minutes, 60)
    if hours:
        return f"{hours}h{minutes:02d}m{rest:02d}s"
    return f"{minutes}m{rest:02d}s" if minutes else f"{seconds:.1f}s"


def terminal_width() -> int:
    """Columns of the terminal this process reports to: ``COLUMNS``, else stderr's or stdout's terminal (a batch
    may pipe one of them into a log), else :data:`FALLBACK_COLUMNS`."""
    if os.environ.get("COLUMNS", "").isdigit() and int(os.environ["COLUMNS"]) > 0:
        return int(os.environ["COLUMNS"])
    for stream in (sys.__stderr__, sys.__stdout__):
        with contextlib.suppress(AttributeError, ValueError, OSError):
            return os.get_terminal_size(stream.fileno()).columns
    return FALLBACK_COLUMNS


def _rate(steps_per_s: float) -> str:
    return f"{1 / steps_per_s:.1f} s/step" if 0 < steps_per_s < 1 else f"{steps_per_s:,.1f} steps/s"


def _utc(seconds: float, now: float) -> str:
    """A wall-clock time as "10:42 UTC", with its date when that is not ``now``'s."""
    when, today = datetime.fromtimestamp(seconds, UTC), datetime.fromtimestamp(now, UTC)
    return when.strftime("%H:%M UTC" if when.date() == today.date() else "%Y-%m-%d %H:%M UTC")


def _notebook_bar(label: str, total: int, stops_early: bool) -> Any:
    """tqdm's widget bar where ``tqdm.auto`` picks it (a kernel with ipywidgets, as in the Lab; a batch's kernels
    get console bars, :func:`running`), its time left "at most" when the run may stop early; else None."""
    from tqdm import auto, notebook

    if not issubclass(auto.tqdm, notebook.tqdm):
        return None
    left = "at most {remaining}" if stops_early else "{remaining}"
    return auto.tqdm(total=total, desc=label, unit="step",
                     bar_format="{l_bar}{bar}| {n_fmt}/{total_fmt} [{elapsed}<" + left + ", {rate_fmt}{postfix}]")


class Steps:
    """A long loop's progress as plain lines on stderr, one at most every ``every_s`` seconds, then a closing
    line: ``train GRU (…): step 4,000/30,000 · 52.1 steps/s · ETA 10:42 UTC (in 8m21s) · loss 2.31``.

    Rate and ETA are the run's average so far; ``stops_early`` (``total`` is a cap, and a criterion usually ends the
    run before it) makes the ETA ``ETA at most …``. A loop that ends within ``every_s`` writes nothing, so a short
    run stays quiet. Plain lines rather than a carriage-return bar: a notebook's output keeps every line, where
    a bar's updates would run together into one. In the Lab a widget bar shows the same instead
    (:func:`_notebook_bar`). ``update`` also takes the values to show (the last batch loss).
    """

    def __init__(self, label: str, total: int, *, stops_early: bool = False, every_s: float = STEP_LINE_S,
                 clock: Callable[[], float] = time.time, write: Callable[[str], None] | None = None) -> None:
        self.label, self.total, self.stops_early = label, int(total), stops_early
        self.every_s, self.clock = every_s, clock
        self.write = write or functools.partial(print, file=sys.stderr, flush=True)
        self.step, self.values, self.written = 0, {}, 0
        self.started = self.spoke = clock()
        self.bar = _notebook_bar(label, self.total, stops_early)

    def update(self, n: int = 1, **values: float) -> None:
        """Count ``n`` steps done; write a line when ``every_s`` has passed since the last one (not at the last
        step: the closing line says it), or move the Lab's bar."""
        self.step += n
        self.values = values or self.values
        if self.bar is not None:
            self.bar.set_postfix({k: f"{v:.4g}" for k, v in self.values.items()}, refresh=False)
            self.bar.update(n)
            return
        now = self.clock()
        if now - self.spoke >= self.every_s and self.step < self.total:
            self.write(self.line(now))
            self.spoke, self.written = now, self.written + 1

    def line(self, now: float) -> str:
        """Where the loop stands at ``now``: step, rate, estimated end and the values last given."""
        elapsed = now - self.started
        rate = self.step / elapsed if elapsed > 0 else 0.0
        parts = [f"{self.label}: step {self.step:,}/{self.total:,}", _rate(rate)]
        if rate > 0 and self.step < self.total:
            left = (self.total - self.step) / rate
            bound = "at most " if self.stops_early else ""
            parts.append(f"ETA {bound}{_utc(now + left, now)} (in {bound}{_clock(left)})")
        parts += [f"{name} {value:.4g}" for name, value in self.values.items()]
        return " · ".join(parts)

    def close(self) -> None:
        """The closing line (steps, wall time, rate), when the loop wrote any; the Lab's bar ends full (a run that
        stopped early on its criterion ended, it did not fail)."""
        if self.bar is not None:
            self.bar.total = self.step
            self.bar.close()
        elif self.written:
            elapsed = self.clock() - self.started
            parts = [f"{self.label}: done, {self.step:,} steps in {_clock(elapsed)}"]
            self.write(" · ".join(parts + [_rate(self.step / elapsed)] if elapsed > 0 else parts))

    def __enter__(self) -> Steps:
        return self

    def __exit__(self, error: type[BaseException] | None, *_: object) -> None:
        if error is None:
            self.close()
        elif self.bar is not None:
            self.bar.close()  # short of its total: shown as failed


_Item = TypeVar("_Item")


def tracked(items: Sequence[_Item], label: str, *, shown: bool = True) -> Iterator[_Item]:
    """``items`` one at a time, each a step of :class:`Steps` when ``shown``: a long loop that is not training
    (batches of an extraction or a generation) reports as a training loop does."""
    if not shown:
        yield from items
        return
    with Steps(label, len(items)) as bar:
        for item in items:
            yield item
            bar.update()


@dataclass
class _Running:
    labels: list[str]
    started: float = field(default_factory=time.monotonic)
    cell: int = 0
    spoke: float = field(default_factory=time.monotonic)

    def position(self) -> str:
        code = [i for i, label in enumerate(self.labels) if label]
        return f"{sum(1 for i in code if i < self.cell) + 1}/{len(code)}"

    def where(self) -> str:
        label = self.labels[self.cell] if self.cell < len(self.labels) else ""
        shown = label if len(label) <= 60 else label[:59] + "…"
        return f"cell {self.position()} `{shown}` · {_clock(time.monotonic() - self.started)}"


#: The notebooks executing now in this process, by name.
_RUNNING: dict[str, _Running] = {}


@functools.cache
def quiet_shutdown_kernel_manager() -> type:
    """jupyter_client's ``AsyncKernelManager`` minus the SIGINT it sends a kernel before asking it to shut down.

    That interrupt is for a busy kernel; a finished notebook's is idle or still leaving the handler of
    papermill's closing ``kernel_info`` request, where the signal lands as ``[IPKernelApp] ERROR |
    KeyboardInterrupt caught in kernel.`` on the terminal. A kernel that ignores the shutdown request is
    still terminated, then killed (``shutdown_wait_time``); interrupts outside a shutdown (a cell timeout) pass.
    """
    from jupyter_client import AsyncKernelManager

    class QuietShutdownKernelManager(AsyncKernelManager):
        async def _async_interrupt_kernel(self) -> None:
            if not self.shutting_down:
                await super()._async_interrupt_kernel()

        interrupt_kernel = _async_interrupt_kernel

    return QuietShutdownKernelManager


@contextlib.contextmanager
def running(name: str, labels: Sequence[str]) -> Iterator[dict[str, Any]]:
    """Mark the calling thread's papermill messages as notebook ``name``'s while it executes.

    Yields the extra options of ``papermill.execute_notebook`` that keep the kernel's noise out of the
    terminal: IPC transport in a folder of its own (no "running over TCP without encryption" warning; two
    kernels never share a socket), console progress bars (a widget bar is logged once, never updated),
    displayed frames' floats for reading (:func:`lib.results.readable_number`), the terminal's width less the
    lines' name prefix as the kernel's ``COLUMNS`` (:func:`terminal_width`: text the kernel wraps, a claims
    table, fits the terminal) and a shutdown without interrupt (:func:`quiet_shutdown_kernel_manager`).
    """
    from traitlets.config import Config

    width = terminal_width() - len(f"[{name}] ")  # a batch's log lines may start with the notebook's name
    columns = f"import os; os.environ.setdefault('COLUMNS', '{width}')"
    token = _CURRENT.set(name)
    with _LOCK:
        _RUNNING[name] = _Running(list(labels))
    try:
        with tempfile.TemporaryDirectory(prefix="kernel-") as sockets:
            yield {"config": Config({"KernelManager": {"transport": "ipc", "ip": f"{sockets}/ipc"}}),
                   "extra_arguments": [f"--IPKernelApp.exec_lines={_CONSOLE_BARS}; {_READABLE_FRAMES}; {columns}"],
                   "kernel_manager_class": quiet_shutdown_kernel_manager()}
    finally:
        with _LOCK:
            _RUNNING.pop(name, None)
        _CURRENT.reset(token)


class Reporter(logging.Handler):
    """Live lines of the notebooks a batch is running, written with ``tqdm.write`` above the batch bar: each cell's
    start and stderr, and its stdout and displays (tables, figures) only when ``verbose``."""

    def __init__(self, *, prefix: bool, enabled: bool = True, verbose: bool = False, bar: Any = None) -> None:
        super().__init__(logging.INFO)
        self.prefix, self.enabled, self.verbose, self.bar = prefix, enabled, verbose, bar
        self.terminal = sys.stderr.isatty()
        self._stop = threading.Event()

    # -- the batch's side
    @contextlib.contextmanager
    def watching(self) -> Iterator[Reporter]:
        """Route papermill's log here (and nowhere else) and tick the heartbeat while the batch runs."""
        logger = logging.getLogger("papermill")
        saved = (logger.handlers[:], logger.propagate, logger.level)
        logger.handlers, logger.propagate = [self], False
        logger.setLevel(logging.INFO)
        ticker = threading.Thread(target=self._tick, name="progress-heartbeat", daemon=True)
        ticker.start()
        try:
            yield self
        finally:
            self._stop.set()
            ticker.join()
            logger.handlers, logger.propagate, logger.level = saved[0], saved[1], saved[2]

    # -- papermill's side
    def emit(self, record: logging.LogRecord) -> None:
        name = _CURRENT.get()
        running = _RUNNING.get(name)
        if record.funcName == "cell_start" and running is not None:
            match = _CELL.search(record.getMessage())
            running.cell = int(match.group(1)) - 1 if match else running.cell
            if running.cell < len(running.labels) and running.labels[running.cell]:
                self._say(name, running.where())
            self._show_running()
        elif record.funcName == "log_output_message":
            if self.verbose or record.levelno >= logging.WARNING:  # stdout and displays are INFO, stderr WARNING
                for line in record.getMessage().split("\n"):
                    shown = line.rsplit("\r", 1)[-1].rstrip()
                    if shown:
                        self._say(name, shown)
        elif record.levelno >= logging.WARNING:
            self._say(name, record.getMessage())

    # -- output
    def _say(self, name: str, text: str) -> None:
        from tqdm.auto import tqdm

        running = _RUNNING.get(name)
        if running is not None:
            running.spoke = time.monotonic()
        if self.enabled:
            tqdm.write(f"[{name}] {text}" if self.prefix and name else text, file=sys.stderr)

    def _show_running(self) -> None:
        if self.bar is not None and self.terminal:  # a log file would get a new bar line each time
            with _LOCK:
                shown = ", ".join(f"{n} cell {r.position()}" for n, r in _RUNNING.items())
            self.bar.set_postfix_str(shown, refresh=True)

    def _tick(self) -> None:
        while not self._stop.wait(1.0):
            self._show_running()
            now = time.monotonic()
            with _LOCK:
                quiet = [(n, r) for n, r in _RUNNING.items() if now - r.spoke >= HEARTBEAT_S]
            for name, running in quiet:
                self._say(name, f"still in {running.where()}")


def batch_table(outcomes: Sequence[Any], profile: str) -> str:
    """The end-of-batch table: notebook, status, wall time, figures written, claims held/measured per kind (with
    the unmeasured ones; :func:`lib.claims.counts`)."""
    rows = [("status", "notebook", "wall time", "figures", *(f"{kind} claims" for kind in claims.KINDS), "")]
    for outcome in outcomes:
        figures = len(list(paths.figures_dir(profile, outcome.notebook).glob("*.caption.md")))
        counts = _claim_counts(profile, outcome.notebook)
        wall = _clock(outcome.seconds) if outcome.status != "skipped" else "-"
        rows.append((outcome.status, outcome.notebook, wall, str(figures), *(counts[k] for k in claims.KINDS),
                     outcome.message))
    shown = len(rows[0]) - 1
    widths = [max(len(row[i]) for row in rows) for i in range(shown)]
    aligned = (">", "<", ">", ">", *(">" for _ in claims.KINDS))
    lines = ["  ".join(f"{cell:{a}{w}}" for cell, a, w in zip(row[:shown], aligned, widths, strict=True))
             + (f"  {row[shown]}" if row[shown] else "") for row in rows]
    return "\n".join(line.rstrip() for line in lines)


def _claim_counts(profile: str, notebook: str) -> dict[str, str]:
    """"held/measured" per claim kind from the notebook's logged claims ("-" where none)."""
    try:
        table = results.load_claims(paths.results_dir(profile, notebook) / "claims.json")
    except results.IncompleteResultError:
        return dict.fromkeys(claims.KINDS, "-")
    return {kind: count.cell() for kind, count in claims.counts(table).items()}
