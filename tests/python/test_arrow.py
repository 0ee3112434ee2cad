"""A Table's Arrow C stream (the PyCapsule protocol) read by consumers kbdata did not write: a
reader written from the specification (arrow_reader.py) and DuckDB's C API (the npm peers'
libduckdb.so, through ctypes), twice on one object; the capsule's rules."""

import ctypes
import datetime
import gc
import os
import warnings

import pytest

import kbdata
from arrow_reader import EPOCH, ArrowSchema, capsule_name, read_stream
from conftest import SOURCE_DIR

FORMATS = {"int64": "l", "score": "g", "factor": "g", "double": "g", "bool": "b",
           "string": "U", "json": "U", "timestamp": "tsu:UTC"}


def arrow_format(kind):
    return "+L" if kind.startswith("list<") else FORMATS[kind]


def tables(sample):
    ds = kbdata.open(sample)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", kbdata.KbdataWarning)
        yield "top", ds.top("nvfp4_dual_gemm", uncertainty=True)
        yield "submissions", ds.submissions(code=True)
        yield "submissions(features)", ds.submissions(columns=["submission_id", "features", "benchmarks"])
        yield "audit", ds.audit(with_evidence=True)
        yield "techniques", ds.techniques("nvfp4_gemm")
        yield "tasks", ds.tasks()
        yield "empty", ds.top("trimul", runner="NoSuchGpu")


@pytest.mark.parametrize("which", ["top", "submissions", "submissions(features)", "audit", "techniques", "tasks", "empty"])
def test_a_reader_from_the_specification_reads_it_twice(sample, which):
    table = dict(tables(sample))[which]
    expected = table.to_pylist()
    for _ in range(2):  # a fresh stream each call
        capsule = table.__arrow_c_stream__()
        assert capsule_name(capsule) == "arrow_array_stream"
        names, formats, rows = read_stream(capsule)
        assert names == table.columns
        assert formats == [arrow_format(table.column_types[n]) for n in names]
        assert rows == expected
        del capsule


def test_an_unread_capsule_is_released(sample):
    table = kbdata.open(sample).top("nvfp4_dual_gemm")
    for _ in range(100):
        table.__arrow_c_stream__()  # dropped at once: the destructor releases the stream
    gc.collect()
    # The stream holds the batches itself: the table may go first.
    capsule = table.__arrow_c_stream__()
    expected = table.to_pylist()
    del table
    gc.collect()
    assert read_stream(capsule)[2] == expected


def test_requested_schema(sample):
    table = kbdata.open(sample).top("nvfp4_dual_gemm")
    # The table's own schema, as a consumer would send it back: honoured (the default).
    stream_capsule = table.__arrow_c_stream__()
    from arrow_reader import stream_of

    stream = stream_of(stream_capsule)
    schema = ArrowSchema()
    assert stream.get_schema(ctypes.byref(stream), ctypes.byref(schema)) == 0
    make = ctypes.pythonapi.PyCapsule_New
    make.restype = ctypes.py_object
    make.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]
    requested = make(ctypes.addressof(schema), b"arrow_schema", None)
    assert read_stream(table.__arrow_c_stream__(requested))[2] == table.to_pylist()
    # Another number of fields cannot be honoured: ValueError, as the protocol says.
    schema.n_children -= 1
    with pytest.raises(ValueError, match="fields"):
        table.__arrow_c_stream__(requested)
    schema.n_children += 1
    schema.release(ctypes.byref(schema))


def duckdb_library():
    path = os.path.join(SOURCE_DIR, "tools/peers/node_modules/@duckdb/node-bindings-linux-x64/libduckdb.so")
    if not os.path.exists(path):
        pytest.skip("the npm peers' libduckdb.so is not installed (scripts/install-deps)")
    return ctypes.CDLL(path)


class DuckDbResult(ctypes.Structure):
    _fields_ = [("column_count", ctypes.c_uint64), ("row_count", ctypes.c_uint64),
                ("rows_changed", ctypes.c_uint64), ("columns", ctypes.c_void_p),
                ("error_message", ctypes.c_char_p), ("internal_data", ctypes.c_void_p)]


class DuckDb:
    def __init__(self):
        lib = self.lib = duckdb_library()
        lib.duckdb_open.argtypes = [ctypes.c_char_p, ctypes.POINTER(ctypes.c_void_p)]
        lib.duckdb_connect.argtypes = [ctypes.c_void_p, ctypes.POINTER(ctypes.c_void_p)]
        lib.duckdb_query.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.POINTER(DuckDbResult)]
        lib.duckdb_arrow_scan.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]
        lib.duckdb_value_varchar.argtypes = [ctypes.POINTER(DuckDbResult), ctypes.c_uint64, ctypes.c_uint64]
        lib.duckdb_value_varchar.restype = ctypes.c_void_p
        lib.duckdb_value_is_null.argtypes = [ctypes.POINTER(DuckDbResult), ctypes.c_uint64, ctypes.c_uint64]
        lib.duckdb_value_is_null.restype = ctypes.c_bool
        lib.duckdb_result_error.argtypes = [ctypes.POINTER(DuckDbResult)]
        lib.duckdb_result_error.restype = ctypes.c_char_p
        lib.duckdb_destroy_result.argtypes = [ctypes.POINTER(DuckDbResult)]
        lib.duckdb_free.argtypes = [ctypes.c_void_p]
        lib.duckdb_row_count.argtypes = [ctypes.POINTER(DuckDbResult)]
        lib.duckdb_row_count.restype = ctypes.c_uint64
        lib.duckdb_column_count.argtypes = [ctypes.POINTER(DuckDbResult)]
        lib.duckdb_column_count.restype = ctypes.c_uint64
        self.db = ctypes.c_void_p()
        self.con = ctypes.c_void_p()
        assert lib.duckdb_open(None, ctypes.byref(self.db)) == 0
        assert lib.duckdb_connect(self.db, ctypes.byref(self.con)) == 0

    def query(self, sql):
        result = DuckDbResult()
        state = self.lib.duckdb_query(self.con, sql.encode(), ctypes.byref(result))
        try:
            if state != 0:
                raise AssertionError(self.lib.duckdb_result_error(ctypes.byref(result)).decode())
            rows = []
            for r in range(self.lib.duckdb_row_count(ctypes.byref(result))):
                row = []
                for c in range(self.lib.duckdb_column_count(ctypes.byref(result))):
                    if self.lib.duckdb_value_is_null(ctypes.byref(result), c, r):
                        row.append(None)
                        continue
                    p = self.lib.duckdb_value_varchar(ctypes.byref(result), c, r)
                    row.append(ctypes.string_at(p).decode())
                    self.lib.duckdb_free(p)
                rows.append(row)
            return rows
        finally:
            self.lib.duckdb_destroy_result(ctypes.byref(result))

    def scan(self, name, capsule):
        """Reads the capsule's stream into table `name`: duckdb_arrow_scan registers it as a view
        (read once, by the next query that names it), copied whole into a table at once (this
        deprecated entry point pushes projections into a stream that cannot honour them: a query
        naming some columns would read others), then dropped; the capsule keeps the stream and
        releases it when dropped."""
        from arrow_reader import _get_pointer

        pointer = _get_pointer(capsule, b"arrow_array_stream")
        view = name + "_stream"
        assert self.lib.duckdb_arrow_scan(self.con, view.encode(), ctypes.c_void_p(pointer)) == 0
        self.query(f"create table {name} as select * from {view}")
        self.query(f"drop view {view}")


def test_duckdb_reads_the_stream_twice(sample):
    db = DuckDb()
    rows = kbdata.open(sample).submissions(problem="nvfp4_dual_gemm", code=True)
    frame = rows.to_pylist()
    expected = [
        str(len(frame)),
        str(sum(1 for r in frame if r["score"] is None)),
        str(sum(len(r["code"].encode()) for r in frame if r["code"] is not None)),
        str(sum(1 for r in frame if r["passed"])),
        str(max(int(r["user_id"]) for r in frame)),
        str((max(r["submission_time"] for r in frame) - EPOCH) // datetime.timedelta(microseconds=1)),
    ]
    sql = ("select count(*), count(*) - count(score), sum(strlen(code)), "
           "count(*) filter (where passed), max(user_id::hugeint), "
           "epoch_us(max(submission_time)), "
           "min(typeof(submission_time)), min(typeof(user_id)), min(typeof(score)) from {}")
    expected += ["TIMESTAMP WITH TIME ZONE", "VARCHAR", "DOUBLE"]
    for name in ("first", "second"):  # two streams of one object, each read once
        capsule = rows.__arrow_c_stream__()
        db.scan(name, capsule)
        assert db.query(sql.format(name)) == [expected]
        del capsule


def test_duckdb_reads_every_value_of_top(sample):
    db = DuckDb()
    top = kbdata.open(sample).top("trimul", n=0)
    capsule = top.__arrow_c_stream__()
    db.scan("top", capsule)
    got = db.query("select rank, user_id, score, submission_id, runner from top")
    expected = [[str(r["rank"]), r["user_id"], repr(r["score"]), str(r["submission_id"]), r["runner"]]
                for r in top.to_pylist()]
    assert [[g[0], g[1], repr(float(g[2])), g[3], g[4]] for g in got] == expected
