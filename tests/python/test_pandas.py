"""to_pandas(): the nullable dtypes, nulls, ids beyond 2**53 kept as strings, UTC times, lists;
the values equal the rows'."""

import math
import warnings

import pandas as pd

import kbdata


def test_dtypes_and_values_of_submissions(sample):
    rows = kbdata.open(sample).submissions(code=True)
    df = rows.to_pandas()
    assert list(df.columns) == rows.columns
    dtypes = {name: str(dtype) for name, dtype in df.dtypes.items()}
    assert dtypes["submission_id"] == "Int64"
    assert dtypes["leaderboard_id"] == "Int64"
    assert dtypes["code_id"] == "Int64"
    assert dtypes["user_id"] == "string"
    assert dtypes["code"] == "string"
    assert dtypes["passed"] == "boolean"
    assert dtypes["score"] == "float64"
    assert dtypes["submission_time"] == "datetime64[ns, UTC]"
    pylist = rows.to_pylist()
    assert len(df) == len(pylist)
    # Nulls where the rows have None, values where they have one.
    for name in df.columns:
        for i, row in enumerate(pylist):
            value, theirs = df[name].iloc[i], row[name]
            if theirs is None:
                assert value is pd.NA or value is pd.NaT or (isinstance(value, float) and math.isnan(value)), (name, i)
            elif name == "submission_time":
                assert value.to_pydatetime() == theirs
            else:
                assert value == theirs, (name, i, value, theirs)
    assert df["score"].isna().any() and df["passed"].isna().any()
    # User ids beyond 2**53 (a float64 would change them) stay exact.
    big = [u for u in df["user_id"].dropna() if int(u) > 2**53]
    assert big and all(str(int(u)) == u for u in big)
    assert df.attrs["kbdata_notes"] == rows.notes


def test_lists_timestamps_and_an_empty_table(sample):
    ds = kbdata.open(sample)
    tasks = ds.tasks()
    frame = tasks.to_pandas()
    listed = [name for name, kind in tasks.column_types.items() if kind.startswith("list<")]
    assert "epoch_starts" in listed and all(frame[name].dtype == object for name in listed)
    assert frame["epoch_starts"].tolist() == [r["epoch_starts"] for r in tasks.to_pylist()]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", kbdata.KbdataWarning)
        empty = ds.top("trimul", runner="NoSuchGpu").to_pandas()
    assert len(empty) == 0
    assert str(empty["submission_time"].dtype) == "datetime64[ns, UTC]"
    assert str(empty["rank"].dtype) == "Int64"


def test_a_frame_is_writable_and_its_own(sample):
    df = kbdata.open(sample).top("nvfp4_dual_gemm").to_pandas()
    df.loc[0, "score"] = 1.0  # an ordinary DataFrame: the numbers were copied
    assert df.loc[0, "score"] == 1.0
