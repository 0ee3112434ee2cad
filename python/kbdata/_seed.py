"""The data set's own helpers (its card: "call load_submissions to load a config, then
top_contestants and author_progression"), with their names and arguments, pandas in and pandas
out, so that a script written for them runs by changing its import line. Where kbdata's rule
differs from the published script, the docstring says how (docs/python.md, "The data set's
helpers")."""

from __future__ import annotations

import math
import os
from typing import Any, Optional, Sequence


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


def _qualifying(df: Any) -> Any:
    """kbdata's qualifying rows (docs/analyses.md): a finite positive score, passed, not marked
    hacked."""
    import numpy as np

    score = df["score"].astype("float64")
    ok = score.notna() & np.isfinite(score.fillna(0)) & (score > 0)
    if "passed" in df:
        ok &= df["passed"].fillna(False).astype(bool)
    if "status" in df:
        ok &= df["status"].fillna("").astype(str) != "hacked"
    return df[ok]


def top_contestants(df: Any, problem_name: Optional[str] = None, n: int = 10, *,
                    problem: Optional[str] = None) -> Any:
    """The best ``n`` users of a problem by their best score, ascending, one row per user: the
    data set's helper, by kbdata's rule (kbdata top): only qualifying rows count (scored,
    passed, not hacked; the helper counts every scored row), each user's best row (ties: the
    earliest, then the lowest id), one ranking per runner when the rows have several (the helper
    mixes GPUs), ranks as SQL RANK() (ties share a rank; users tied at rank n all stay). Returns
    the user's best rows with a ``rank`` column first.

    >>> df = load_submissions("data/sample/nvidia_nvfp4_submissions.parquet")
    >>> top_contestants(df, "nvfp4_dual_gemm", n=3)["rank"].tolist()
    [1, 2, 3]
    """
    import pandas as pd

    name = problem_name if problem_name is not None else problem
    rows = df if name is None else df[df["problem_name"] == name]
    rows = _qualifying(rows)
    if rows.empty:
        return rows.assign(rank=pd.Series(dtype="Int64"))
    keys = ["score", "submission_time", "submission_id"]
    group = ["runner"] if "runner" in rows and rows["runner"].notna().any() else []
    best = rows.sort_values(keys, kind="mergesort").drop_duplicates(group + ["user_id"])
    parts = []
    for _, part in (best.groupby(group[0], sort=True, dropna=False) if group else [(None, best)]):
        part = part.copy()
        part.insert(0, "rank", part["score"].rank(method="min").astype("Int64"))
        if n > 0:
            part = part[part["rank"] <= n]
        parts.append(part)
    return pd.concat(parts).reset_index(drop=True)


def author_progression(df: Any, user_id: Optional[str] = None, user_name: Optional[str] = None,
                       problem_name: Optional[str] = None) -> Any:
    """One user's rows (by ``user_id`` or ``user_name``), optionally of one problem, sorted by
    submission time (then id): the data set's helper. kbdata adds ``best`` (the running best
    qualifying score, per runner) and ``improved`` (this row set a new best).

    >>> df = load_submissions("data/sample/nvidia_nvfp4_submissions.parquet")
    >>> p = author_progression(df, user_name="tonda", problem_name="nvfp4_dual_gemm")
    >>> bool(p["submission_time"].is_monotonic_increasing)
    True
    """
    import numpy as np
    import pandas as pd

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
    qualifying = rows.index.isin(_qualifying(rows).index)
    score = rows["score"].astype("float64").where(qualifying, np.nan)
    runner = rows["runner"].fillna("") if "runner" in rows else pd.Series("", index=rows.index)
    keys = [rows["problem_name"], runner]
    best = score.groupby(keys).cummin().groupby(keys).ffill()
    previous = best.groupby(keys).shift(1)
    rows["best"] = best
    rows["improved"] = pd.array(qualifying & (previous.isna() | (score < previous)).to_numpy(),
                                dtype="boolean")
    return rows.reset_index(drop=True)
