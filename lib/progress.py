"""What a batch tells the person running it: live lines while notebooks run, a table at the end.

While a notebook runs (:func:`running`), :class:`Reporter` turns papermill's log into lines a person
can follow: one line per code cell (notebook, cell i/N, its first line, elapsed time), the cell's
printed output and the kernel's text progress bars (each update one line, throttled by
``TQDM_MININTERVAL``), and a "still in cell" line when a notebook has been quiet for
:data:`HEARTBEAT_S`. With more than one notebook at a time every line starts with the notebook's
name. Papermill's bookkeeping (input and output paths, "Ending Cell") is dropped; its warnings
are kept.

The batch bar's postfix names the running notebooks and their cells; on a terminal it ticks every second.
"""

from __future__ import annotations

import contextlib
import functools
import logging
import re
import sys
import tempfile
import threading
import time
from collections.abc import Iterator, Sequence
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any

from lib import claims, paths, results

#: A running notebook that printed nothing for this long gets a "still in cell" line.
HEARTBEAT_S = 60.0
#: Seconds between two updates of a kernel's text progress bar in the log (the ``TQDM_MININTERVAL`` default).
KERNEL_BAR_INTERVAL_S = 10.0

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
    return f"{minutes}m{rest:02d}s" if minutes else f"{seconds:.1f}s"


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
    displayed frames' floats for reading (:func:`lib.results.readable_number`) and a shutdown without
    interrupt (:func:`quiet_shutdown_kernel_manager`).
    """
    from traitlets.config import Config

    token = _CURRENT.set(name)
    with _LOCK:
        _RUNNING[name] = _Running(list(labels))
    try:
        with tempfile.TemporaryDirectory(prefix="kernel-") as sockets:
            yield {"config": Config({"KernelManager": {"transport": "ipc", "ip": f"{sockets}/ipc"}}),
                   "extra_arguments": [f"--IPKernelApp.exec_lines={_CONSOLE_BARS}; {_READABLE_FRAMES}"],
                   "kernel_manager_class": quiet_shutdown_kernel_manager()}
    finally:
        with _LOCK:
            _RUNNING.pop(name, None)
        _CURRENT.reset(token)


class Reporter(logging.Handler):
    """Live lines of the notebooks a batch is running, written with ``tqdm.write`` above the batch bar."""

    def __init__(self, *, prefix: bool, enabled: bool = True, bar: Any = None) -> None:
        super().__init__(logging.INFO)
        self.prefix, self.enabled, self.bar = prefix, enabled, bar
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
