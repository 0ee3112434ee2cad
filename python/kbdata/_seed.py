"""The data set's own helpers (its card: "call load_submissions to load a config, then
top_contestants and author_progression"), with their names and arguments, pandas in and pandas
out, so that a script written for them runs by changing its import line. Where kbdata's rule
differs from the published script, the docstring says how (docs/python.md, "The data set's
helpers")."""

from __future__ import annotations

import math
import os
from typing import Any, Dict, List, Optional, Sequence


def format_score(score: Optional[float], unit: str = "us") -> str:
    """A score (seconds) for people, as the data set's helper shows it: µs with 2 decimals below
    1 ms, ms with 3 decimals below 1 s, else seconds with 3 decimals. ``unit`` is accepted for the
    helper's signature; kbdata always picks the unit from the size.

    >>> format_score(1.2913403524642259e-05)
    '12.91 µs'
    >>> format_score(0.0021)
    '2.100 ms'
    >>> format_score(None)
    'null'
    """
    del unit
    if score is None or (isinstance(score, float) and math.isnan(score)):
        return "null"
    if score < 1e-3:
        return f"{score * 1e6:.2f} µs"
    if score < 1:
        return f"{score * 1e3:.3f} ms"
    return f"{score:.3f} s"


def load_submissions(parquet_path: Optional[str] = None, *,
                     columns: Optional[Sequence[str]] = None) -> Any:
    """A config (or a whole data set) as a pandas DataFrame, every column and the code, read by
    kbdata (legacy per-run files come out in the flat schema, one row per submission and runner;
    code decoded to text). ``parquet_path``: a ``.parquet`` file, a folder, an ``hf://`` address,
    or None for $KBDATA_DATA, else the bundled sample (the helper's default is the NVFP4 file:
    every config here).

    >>> df = load_submissions("data/sample/nvidia_nvfp4_submissions.parquet")
    >>> sorted(df["problem_name"].unique())[:2]
    ['modal_nvfp4_dual_gemm', 'nvfp4_dual_gemm']
    """
    from . import Dataset, _remove_folder, _temporary_folder_of

    folder = None
    data = parquet_path
    if parquet_path is not None and str(parquet_path).endswith(".parquet") and \
            os.path.isfile(parquet_path):
        folder = _temporary_folder_of(str(parquet_path))
        data = folder
    try:
        rows = Dataset(data).submissions(columns=columns, code=columns is None)
        return rows.to_pandas()
    finally:
        if folder is not None:
            _remove_folder(folder)


_RANKED = ["submission_id", "leaderboard_id", "problem_name", "user_id", "user_name",
           "submission_time", "status", "score", "passed", "runner"]


def _rows_for_kbdata(df: Any) -> dict:
    """The columns kbdata's rankings read, as lists (None for null; times in µs since the
    epoch): the rows handed to kbdata's own top and progression queries, so that the platform's
    rule lives in one place. A column the DataFrame lacks is null."""
    import pandas as pd

    n = len(df)
    columns = {}
    for name in _RANKED:
        if name not in df:
            columns[name] = [None] * n
            continue
        series = df[name]
        if name == "submission_time":
            times = pd.to_datetime(series, utc=True)
            micros = (times - pd.Timestamp(0, tz="UTC")) // pd.Timedelta(microseconds=1)
            columns[name] = [None if pd.isna(v) else int(v) for v in micros]
        elif name in ("submission_id", "leaderboard_id"):
            columns[name] = [None if pd.isna(v) else int(v) for v in series]
        elif name == "score":
            columns[name] = [None if pd.isna(v) else float(v) for v in series]
        elif name == "passed":
            columns[name] = [None if pd.isna(v) else bool(v) for v in series]
        else:
            columns[name] = [None if v is None or v is pd.NA or (isinstance(v, float) and
                                                                 math.isnan(v)) else str(v)
                             for v in series]
    return columns


def _row_keys(df: Any) -> List[tuple]:
    """(submission_id, runner) of each row: how kbdata's answer names the rows it came from."""
    import pandas as pd

    runners = df["runner"] if "runner" in df else [None] * len(df)
    return [(int(i), None if r is None or r is pd.NA or (isinstance(r, float) and math.isnan(r))
             else str(r)) for i, r in zip(df["submission_id"], runners)]


def top_contestants(df: Any, problem_name: Optional[str] = None, n: int = 10, *,
                    problem: Optional[str] = None) -> Any:
    """The best ``n`` users of a problem by their best score, ascending, one row per user: the
    data set's helper, ranked by kbdata itself (the rows are handed to ``kbdata top``'s query):
    only qualifying rows count (scored, passed, not hacked; the helper counts every scored row),
    each user's best row (ties: the earliest, then the lowest id), one ranking per leaderboard
    and runner (the helper mixes GPUs), ranks as SQL RANK() (ties share a rank; users tied at
    rank n all stay). Returns the users' best rows of ``df``, every column, with a ``rank``
    column first, ranking by ranking.

    >>> df = load_submissions("data/sample/nvidia_nvfp4_submissions.parquet")
    >>> top_contestants(df, "nvfp4_dual_gemm", n=3)["rank"].tolist()
    [1, 2, 3]
    """
    import pandas as pd

    from . import _kbdata
    from ._table import Table

    name = problem_name if problem_name is not None else problem
    rows = df if name is None else df[df["problem_name"] == name]
    ranked = Table(_kbdata.top_of_rows(_rows_for_kbdata(rows), int(n))).to_pylist()
    position = {key: i for i, key in enumerate(_row_keys(rows))}
    picked = [position[(r["submission_id"], r["runner"])] for r in ranked]
    out = rows.iloc[picked].copy()
    out.insert(0, "rank", pd.array([r["rank"] for r in ranked], dtype="Int64"))
    return out.reset_index(drop=True)


def author_progression(df: Any, user_id: Optional[str] = None, user_name: Optional[str] = None,
                       problem_name: Optional[str] = None) -> Any:
    """One user's rows (by ``user_id`` or ``user_name``), optionally of one problem, sorted by
    submission time (then id): the data set's helper. kbdata adds ``best`` (the running best
    qualifying score, per leaderboard and runner) and ``improved`` (this row set a new best),
    worked out by kbdata itself (the rows are handed to ``kbdata progression``'s query).

    >>> df = load_submissions("data/sample/nvidia_nvfp4_submissions.parquet")
    >>> p = author_progression(df, user_name="tonda", problem_name="nvfp4_dual_gemm")
    >>> bool(p["submission_time"].is_monotonic_increasing)
    True
    """
    import pandas as pd

    from . import _kbdata
    from ._table import Table

    if user_id is None and user_name is None:
        raise ValueError("author_progression needs user_id or user_name")
    rows = df
    if user_id is not None:
        rows = rows[rows["user_id"] == str(user_id)]
    if user_name is not None:
        rows = rows[rows["user_name"] == user_name]
    if problem_name is not None:
        rows = rows[rows["problem_name"] == problem_name]
    rows = rows.sort_values(["submission_time", "submission_id"], kind="mergesort").copy()
    user = str(user_id) if user_id is not None else str(user_name)
    steps: Dict[tuple, Dict[str, Any]] = {}
    if len(rows) > 0:
        answer = Table(_kbdata.progression_of_rows(_rows_for_kbdata(rows), user))
        steps = {(r["submission_id"], r["runner"]): r for r in answer.iter_rows()}
    keys = _row_keys(rows)
    rows["best"] = pd.array([steps[k]["best"] if k in steps else None for k in keys],
                            dtype="Float64").astype("float64")
    rows["improved"] = pd.array([bool(steps[k]["improved"]) if k in steps else False
                                 for k in keys], dtype="boolean")
    return rows.reset_index(drop=True)
