"""A kbdata Table as a pandas DataFrame: through pyarrow when it is installed, else from the
extension's numpy arrays (Debian 12 has no pyarrow). Both give the same dtypes:

    int64 columns         Int64 (nullable)
    score/factor/double   float64 (NaN for null)
    bool                  boolean (nullable)
    string, json          string (user ids too: they exceed 2**53)
    timestamp             datetime64[ns, UTC]
    list<...>             object (Python lists)
"""

from __future__ import annotations

from typing import Any


def _numpy_route(table: Any) -> Any:
    import numpy as np
    import pandas as pd

    core = table._core
    data = {}
    for index, (name, kind) in enumerate(zip(core.column_names, core.column_types)):
        arrays = core.column_arrays(index)
        if kind.startswith("list<"):
            data[name] = pd.Series(arrays, dtype=object)
        elif kind in ("string", "json"):
            data[name] = pd.Series(pd.array(arrays, dtype="string"))
        else:
            values, mask = arrays
            if kind == "int64":
                data[name] = pd.Series(pd.arrays.IntegerArray(values, mask))
            elif kind == "bool":
                data[name] = pd.Series(pd.arrays.BooleanArray(values, mask))
            elif kind == "timestamp":
                times = values.astype("datetime64[us]").astype("datetime64[ns]")
                times[mask] = np.datetime64("NaT")
                data[name] = pd.Series(times).dt.tz_localize("UTC")
            else:
                values = values.copy()
                values[mask] = np.nan
                data[name] = pd.Series(values, dtype="float64")
    return pd.DataFrame(data, columns=list(core.column_names))


def _pyarrow_route(table: Any, pa: Any) -> Any:
    import pandas as pd

    arrow = pa.RecordBatchReader.from_stream(table).read_all()
    mapping = {
        pa.int64(): pd.Int64Dtype(),
        pa.bool_(): pd.BooleanDtype(),
        pa.large_string(): pd.StringDtype(),
        pa.string(): pd.StringDtype(),
    }
    frame = arrow.to_pandas(types_mapper=mapping.get)
    for name in frame.columns:
        if str(frame[name].dtype).startswith("datetime64[") and "UTC" in str(frame[name].dtype):
            frame[name] = frame[name].astype("datetime64[ns, UTC]")
    return frame


def table_to_pandas(table: Any) -> Any:
    try:
        import pyarrow as pa
    except ImportError:
        frame = _numpy_route(table)
    else:  # pragma: no cover - pyarrow is not in Debian 12
        frame = _pyarrow_route(table, pa)
    frame.attrs["kbdata_notes"] = table.notes
    return frame
