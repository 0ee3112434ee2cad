"""kbdata's answers in Python: Table (a result table) and Submissions (a listing, read when used)."""

from __future__ import annotations

import os
import sys
import warnings
from typing import Any, Dict, Iterator, List, Optional

from . import _kbdata
from ._errors import KbdataWarning

# Rows handed to Python at a time by iter_rows().
_ROWS_PER_CHUNK = 4096


def _progress() -> bool:
    """Whether a long call draws its progress line: on a terminal (sys.stderr a tty) or in a
    notebook (an IPython kernel), not in a pipe, a log or a test; KBDATA_PROGRESS=always or
    never decides otherwise, as for the command line."""
    setting = os.environ.get("KBDATA_PROGRESS")
    if setting in ("always", "never"):
        return setting == "always"
    ipython = sys.modules.get("IPython")
    if ipython is not None:
        shell = getattr(ipython, "get_ipython", lambda: None)()
        if shell is not None and type(shell).__name__ == "ZMQInteractiveShell":
            return True  # a notebook: its stderr is the cell's output, never a tty
    err = sys.stderr
    try:
        return err is not None and err.isatty()
    except (AttributeError, ValueError):
        return False


def _run(words: List[str], stacklevel: int, part: str = "") -> "_kbdata.Table":
    """The answer of kbdata WORDS run embedded (`part`: the table of an answer of several);
    what it said besides, as warnings."""
    core, _out, messages = _kbdata.run(words, True, _progress(), part)
    _warn(messages, stacklevel=stacklevel + 1)
    return core


def _warn(messages: str, stacklevel: int) -> None:
    """Each line the command wrote on stderr, as a KbdataWarning (without "kbdata: ")."""
    for line in messages.splitlines():
        line = line.strip()
        if not line:
            continue
        if line.startswith("kbdata: "):
            line = line[len("kbdata: "):]
        warnings.warn(line, KbdataWarning, stacklevel=stacklevel + 1)


class Table:
    """A kbdata answer: named, typed columns and their rows, the reliability notes of the
    leaderboards it shows, and the summary lines the table format prints under it.

    It is an Arrow stream (``__arrow_c_stream__``: pyarrow, polars and DuckDB read it without a
    copy), converts to pandas (``to_pandas()``) and to Python rows (``to_pylist()``,
    ``iter_rows()``). The rows are those of the kbdata command's ``--format json``.
    """

    def __init__(self, core: "_kbdata.Table"):
        self._core = core

    # --- what it is ---------------------------------------------------------------------------
    @property
    def columns(self) -> List[str]:
        """The columns' names, in order."""
        return list(self._core.column_names)

    @property
    def column_types(self) -> Dict[str, str]:
        """Each column's kbdata type: int64, score (seconds), factor, double, bool, string,
        timestamp (UTC), json, or list<...> of one of them."""
        return dict(zip(self._core.column_names, self._core.column_types))

    @property
    def notes(self) -> Dict[int, str]:
        """The reliability notes of the leaderboards the rows show, by leaderboard id."""
        return dict(self._core.notes)

    @property
    def summary(self) -> List[str]:
        """The lines the table format prints under the rows."""
        return list(self._core.summary)

    @property
    def rule(self) -> str:
        """What the rows are (the rule the answer follows, as Parquet's kbdata.rule says it)."""
        return self._core.rule

    @property
    def messages(self) -> List[str]:
        """What the command said besides its answer (also given as KbdataWarning)."""
        return [line for line in self._core.messages.splitlines() if line.strip()]

    def __len__(self) -> int:
        return self._core.num_rows

    @property
    def num_rows(self) -> int:
        return self._core.num_rows

    # --- the rows -----------------------------------------------------------------------------
    def to_pylist(self) -> List[Dict[str, Any]]:
        """Every row as a dict: ints, floats (scores in seconds), bools, strings (user ids too),
        timezone-aware UTC datetimes, lists; None for null."""
        return self._core.rows(0, self._core.num_rows)

    def iter_rows(self) -> Iterator[Dict[str, Any]]:
        """The rows as dicts, one at a time (made a few thousand at a time)."""
        for start in range(0, self._core.num_rows, _ROWS_PER_CHUNK):
            yield from self._core.rows(start, start + _ROWS_PER_CHUNK)

    def head(self, n: int = 5) -> "Table":
        """The first n rows, as a Table."""
        return Table(self._core.head(n))

    def __arrow_c_stream__(self, requested_schema: Optional[object] = None) -> object:
        """A new Arrow C stream of the rows (the Arrow PyCapsule protocol): an
        "arrow_array_stream" capsule; each call gives a fresh stream over the same buffers."""
        return self._core.__arrow_c_stream__(requested_schema)

    def to_pandas(self) -> "Any":
        """A pandas DataFrame with nullable dtypes: Int64 (ids, counts), float64 (scores in
        seconds, NaN for none), boolean, string (user ids too: they exceed 2**53),
        datetime64[ns, UTC]; list and JSON columns as objects. Through pyarrow when it is
        installed, else kbdata's own numpy path. ``df.attrs["kbdata_notes"]`` holds the notes."""
        from ._pandas import table_to_pandas

        return table_to_pandas(self)

    def to_arrow(self) -> "Any":
        """A pyarrow.Table (needs pyarrow)."""
        try:
            import pyarrow
        except ImportError as e:  # pragma: no cover - pyarrow is not in Debian 12
            raise ImportError("to_arrow() needs pyarrow, which this Python lacks") from e
        return pyarrow.RecordBatchReader.from_stream(self).read_all()

    def __repr__(self) -> str:
        shown = self._core.head(10) if self._core.num_rows > 10 else self._core
        text = shown.render().rstrip("\n")
        more = self._core.num_rows - shown.num_rows
        if more > 0:
            text += f"\n... {more} more row{'s' if more != 1 else ''}"
        return f"<kbdata.Table: {self._core.num_rows} rows x {len(self.columns)} columns>\n{text}"

    def _repr_html_(self) -> str:
        import html

        return "<pre>" + html.escape(repr(self)) + "</pre>"


class Submissions(Table):
    """A listing of submissions, read when used, with the filters pushed down into the scan.

    ``to_pandas()`` and each Arrow stream (``__arrow_c_stream__``) run the scan anew and take its
    rows batch by batch as it delivers them, so the selection is never held whole beside what
    they make (``submissions(code=True).to_pandas()`` holds the code once, in the DataFrame).
    ``len()``, ``to_pylist()``, ``iter_rows()``, ``head()`` and ``repr`` read it once and keep
    it; after them, ``to_pandas()`` and the streams use the rows kept.
    """

    def __init__(self, words: List[str]):
        self._words = words
        self._loaded: Optional["_kbdata.Table"] = None

    @property
    def _core(self) -> "_kbdata.Table":  # type: ignore[override]
        if self._loaded is None:
            self._loaded = _run(self._words, stacklevel=3)
        return self._loaded

    def _stream(self) -> "_kbdata.RowStream":
        """A new scan on kbdata's thread, its columns known (the command's checks passed)."""
        stream = _kbdata.RowStream(self._words, _progress())
        try:
            stream.wait_columns()
        except BaseException:
            stream.close()
            raise
        return stream

    def __arrow_c_stream__(self, requested_schema: Optional[object] = None) -> object:
        """A new Arrow C stream of the rows: a new scan whose batches the consumer pulls as it
        goes (the Arrow PyCapsule protocol; each call a fresh stream)."""
        if self._loaded is not None:
            return self._loaded.__arrow_c_stream__(requested_schema)
        stream = self._stream()
        try:
            return stream.__arrow_c_stream__(requested_schema)
        except BaseException:
            stream.close()
            raise

    def to_pandas(self) -> "Any":
        """The rows as a pandas DataFrame (Table.to_pandas: the same dtypes), converted batch by
        batch as the scan delivers them."""
        from ._pandas import pyarrow_available, stream_to_pandas

        if self._loaded is not None or pyarrow_available():
            return super().to_pandas()  # pyarrow reads __arrow_c_stream__: streamed too
        stream = self._stream()
        try:
            frame = stream_to_pandas(stream)
            notes = stream.notes()
            messages = stream.messages()
        finally:
            stream.close()
        _warn(messages, stacklevel=2)
        frame.attrs["kbdata_notes"] = dict(notes)
        return frame

    def __repr__(self) -> str:
        return super().__repr__().replace("<kbdata.Table", "<kbdata.Submissions", 1)
