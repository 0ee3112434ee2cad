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

import itertools
from typing import Any, List


def _empty(kind: str) -> Any:
    """A column's arrays for no rows, as the extension gives them."""
    import numpy as np

    if kind.startswith("list<") or kind in ("string", "json"):
        return []
    dtype = {"bool": np.bool_, "int64": np.int64, "timestamp": np.int64}.get(kind, np.float64)
    return (np.empty(0, dtype=dtype), np.empty(0, dtype=np.bool_))


def _series(kind: str, chunks: List[Any]) -> Any:
    """One column from its arrays batch by batch (the extension's column_arrays: lists of Python
    objects, or (values, mask) numpy arrays). Python strings are made once, by the extension."""
    import numpy as np
    import pandas as pd

    if not chunks:
        chunks = [_empty(kind)]
    if kind.startswith("list<") or kind in ("string", "json"):
        objects = chunks[0] if len(chunks) == 1 else list(itertools.chain.from_iterable(chunks))
        if kind.startswith("list<"):
            return pd.Series(objects, dtype=object)
        return pd.Series(pd.array(objects, dtype="string"))
    if len(chunks) == 1:
        values, mask = chunks[0]
    else:
        values = np.concatenate([c[0] for c in chunks])
        mask = np.concatenate([c[1] for c in chunks])
    if kind == "int64":
        return pd.Series(pd.arrays.IntegerArray(values, mask))
    if kind == "bool":
        return pd.Series(pd.arrays.BooleanArray(values, mask))
    if kind == "timestamp":
        times = values.astype("datetime64[us]").astype("datetime64[ns]")
        times[mask] = np.datetime64("NaT")
        return pd.Series(times).dt.tz_localize("UTC")
    values = values.copy() if len(chunks) == 1 else values
    values[mask] = np.nan
    return pd.Series(values, dtype="float64")


def _frame(names: List[str], kinds: List[str], columns: List[List[Any]]) -> Any:
    """A DataFrame of columns given batch by batch; each column's batches are let go as soon as
    its Series is made."""
    import pandas as pd

    data = {}
    for index, (name, kind) in enumerate(zip(names, kinds)):
        data[name] = _series(kind, columns[index])
        columns[index] = []
    return pd.DataFrame(data, columns=list(names), copy=False)


def _numpy_route(table: Any) -> Any:
    core = table._core
    names, kinds = list(core.column_names), list(core.column_types)
    return _frame(names, kinds, [[core.column_arrays(i)] for i in range(len(names))])


def stream_to_pandas(stream: Any) -> Any:
    """A DataFrame of a RowStream's rows without pyarrow, converted batch by batch as kbdata's
    scan delivers them (each batch's Python strings made once, the batch then freed), so that
    kbdata never holds the whole selection beside the DataFrame."""
    names, kinds = list(stream.column_names), list(stream.column_types)
    columns: List[List[Any]] = [[] for _ in names]
    while True:
        arrays = stream.next_arrays()
        if arrays is None:
            break
        for index, array in enumerate(arrays):
            columns[index].append(array)
        del arrays
    return _frame(names, kinds, columns)


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


def pyarrow_available() -> bool:
    try:
        import pyarrow  # noqa: F401
    except ImportError:
        return False
    return True  # pragma: no cover - pyarrow is not in Debian 12
