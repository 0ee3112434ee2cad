"""A listing streamed as kbdata's scan delivers it (Submissions.to_pandas() and its Arrow
streams): more than one batch on a file of several row groups, the scan paused while the
consumer has not taken its batches, a stream abandoned half way stops the scan and leaves no
thread or memory behind, Ctrl-C mid-stream, a fresh scan per stream, the command's errors, and
requested_schema's string types (read by the specification's reader and by DuckDB)."""

import contextlib
import ctypes
import gc
import os
import time
import warnings

import pytest

import kbdata
from kbdata import _kbdata
from arrow_reader import ArrowSchema, read_batches, read_stream, stream_of
from conftest import interrupt_when_reading, rss_bytes, threads
from test_arrow import DuckDb


@contextlib.contextmanager
def quiet():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", kbdata.KbdataWarning)
        yield


def listing_words(data, *args):
    return ["submissions", "--data", data] + list(args) + ["--format", "json"]


def test_a_stream_comes_batch_by_batch_and_waits_for_its_consumer(large):
    # 24 copies of the medium NVFP4 file: many row groups, far more code than a batch holds.
    stream = _kbdata.RowStream(listing_words(large, "--with-code"))
    try:
        stream.wait_columns()
        first = stream.next_arrays()
        assert first is not None
        time.sleep(0.5)
        # The scan waits for the consumer: a couple of batches ahead, not the whole selection.
        assert not stream.finished
        batches = 1
        while stream.next_arrays() is not None:
            batches += 1
        assert batches > 2
        assert stream.finished
    finally:
        stream.close()


def test_a_streamed_frame_equals_the_kept_table(medium):
    ds = kbdata.open(medium)
    with quiet():
        streamed = ds.submissions(problem="nvfp4_gemm", code=True).to_pandas()
        kept = ds.submissions(problem="nvfp4_gemm", code=True)
        assert len(kept) == len(streamed)  # read and kept: to_pandas() below uses the rows kept
        whole = kept.to_pandas()
    assert list(streamed.columns) == list(whole.columns)
    assert [str(t) for t in streamed.dtypes] == [str(t) for t in whole.dtypes]
    assert streamed.equals(whole)
    assert streamed.attrs["kbdata_notes"] == whole.attrs["kbdata_notes"]


def test_an_empty_stream_gives_an_empty_frame_with_the_dtypes(sample):
    with pytest.warns(kbdata.KbdataWarning, match="no submissions"):
        frame = kbdata.open(sample).submissions(runner="NoSuchGpu", code=True).to_pandas()
    assert len(frame) == 0
    assert str(frame["submission_id"].dtype) == "Int64"
    assert str(frame["code"].dtype) == "string"


def test_each_stream_is_a_fresh_scan(medium):
    rows = kbdata.open(medium).submissions(problem="nvfp4_gemm", code=True)
    first = rows.__arrow_c_stream__()
    second = rows.__arrow_c_stream__()
    # Read interleaved: two scans, independent.
    a = read_batches(first, limit=1)[2]
    b = read_batches(second)[2]
    assert a[0] == b[0]
    assert sum(len(batch) for batch in b) == len(rows.to_pylist())
    del first, second


def test_abandoning_streams_half_way_releases_everything(large):
    rows = kbdata.open(large).submissions(code=True)
    baseline = threads()

    def abandon():
        capsule = rows.__arrow_c_stream__()
        names, _, batches = read_batches(capsule, limit=1)
        assert len(batches) == 1 and "code" in names
        del capsule  # released mid-scan: the scan stops and its thread ends

    for _ in range(3):
        abandon()
    gc.collect()
    before = rss_bytes()
    for _ in range(10):
        abandon()
    gc.collect()
    assert threads() == baseline
    grown = rss_bytes() - before
    assert grown < 48 << 20, f"memory grew by {grown / 2**20:.1f} MiB over 10 abandoned streams"
    # A stream taken by pandas and abandoned by an error on the way is closed too.
    stream = _kbdata.RowStream(listing_words(large, "--with-code"))
    stream.wait_columns()
    assert stream.next_arrays() is not None
    stream.close()
    assert stream.finished and threads() == baseline


def test_ctrl_c_stops_a_streamed_to_pandas(large, medium):
    ds = kbdata.open(large)
    source = os.path.realpath(os.path.join(medium, "nvidia_nvfp4_submissions.parquet"))
    baseline = threads()
    for after in (0.0, 0.3):
        watcher = interrupt_when_reading(source, after)
        with pytest.raises(KeyboardInterrupt):
            with quiet():
                ds.submissions(code=True).to_pandas()
        watcher.join()
    gc.collect()
    assert threads() == baseline
    with quiet():
        assert len(ds.submissions(problem="nvfp4_gemm").to_pandas()) > 0


def test_the_commands_errors_raise(sample):
    # A field the listing lacks: checked before the scan, when the stream starts.
    with pytest.raises(kbdata.UsageError, match="no field 'scor'"):
        kbdata.open(sample).submissions(columns=["scor"]).to_pandas()
    with pytest.raises(kbdata.UsageError, match="no field 'scor'"):
        kbdata.open(sample).submissions(columns=["scor"]).__arrow_c_stream__()
    # A problem the folder lacks: the scan finds no row (nothing read: no row group can match),
    # then the command says why, with its "did you mean".
    rows = kbdata.open(sample).submissions(problem="nvfp4_gem")
    with pytest.raises(kbdata.UsageError, match="did you mean 'nvfp4_gemm'"):
        rows.to_pandas()
    with pytest.raises(OSError, match="did you mean 'nvfp4_gemm'"):
        read_batches(rows.__arrow_c_stream__())


# --- requested_schema -----------------------------------------------------------------------

def schema_capsule(table_or_rows, change):
    """The schema a consumer would send: the stream's own, each field's format passed through
    `change(name, format) -> format`; (capsule, keep-alive objects)."""
    capsule = table_or_rows.__arrow_c_stream__()
    stream = stream_of(capsule)
    schema = ArrowSchema()
    assert stream.get_schema(ctypes.byref(stream), ctypes.byref(schema)) == 0
    keep = [capsule, schema]
    for i in range(schema.n_children):
        field = schema.children[i].contents
        if field.n_children:  # a list: its item
            field = field.children[0].contents
        wanted = change(field.name.decode(), field.format.decode())
        if wanted != field.format.decode():
            text = ctypes.c_char_p(wanted.encode())
            keep.append(text)
            field.format = text.value
    make = ctypes.pythonapi.PyCapsule_New
    make.restype = ctypes.py_object
    make.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]
    return make(ctypes.addressof(schema), b"arrow_schema", None), keep


def release_schema(keep):
    # The formats swapped in belong to Python: put back what kbdata allocated is not needed, the
    # release frees kbdata's own private data, not the format pointers.
    keep[1].release(ctypes.byref(keep[1]))


@pytest.mark.parametrize("kept", [True, False])
def test_requested_string_gives_int32_offsets(sample, kept):
    def listing():
        return kbdata.open(sample).submissions(problem="nvfp4_dual_gemm", code=True,
                                               columns=["submission_id", "user_id", "code",
                                                        "benchmarks"])

    rows = listing()
    expected = rows.to_pylist() if kept else listing().to_pylist()
    requested, keep = schema_capsule(rows, lambda name, fmt: "u" if fmt == "U" else fmt)
    names, formats, got = read_stream(rows.__arrow_c_stream__(requested))
    assert formats == ["l", "u", "u", "u"]  # benchmarks: JSON text
    assert got == expected
    release_schema(keep)
    # The table's own schema asked back is its own (large_string).
    requested, keep = schema_capsule(rows, lambda name, fmt: fmt)
    assert read_stream(rows.__arrow_c_stream__(requested))[1] == ["l", "U", "U", "U"]
    release_schema(keep)


def test_requested_string_leaves_lists_of_numbers_alone(sample):
    tasks = kbdata.open(sample).tasks()
    requested, keep = schema_capsule(tasks, lambda name, fmt: "u" if fmt == "U" else fmt)
    _, formats, got = read_stream(tasks.__arrow_c_stream__(requested))
    kinds = list(tasks.column_types.values())
    assert formats == ["u" if k in ("string", "json") else "+L" if k.startswith("list<")
                       else formats[i] for i, k in enumerate(kinds)]
    assert "+L" in formats and "u" in formats
    assert got == tasks.to_pylist()
    release_schema(keep)


def test_other_requested_types_are_clear_errors(sample):
    top = kbdata.open(sample).top("nvfp4_dual_gemm")
    cases = [
        (lambda name, fmt: "vu" if fmt == "U" else fmt, "string_view \\(vu\\) is not offered"),
        (lambda name, fmt: "i" if fmt == "l" else fmt, "offered as 'l', not 'i'"),
        (lambda name, fmt: "u" if name == "user_id" else fmt, "some columns"),
    ]
    for change, message in cases:
        requested, keep = schema_capsule(top, change)
        with pytest.raises(ValueError, match=message):
            top.__arrow_c_stream__(requested)
        release_schema(keep)


def test_duckdb_reads_a_requested_string_stream(sample):
    db = DuckDb()
    rows = kbdata.open(sample).submissions(problem="nvfp4_dual_gemm", code=True)
    requested, keep = schema_capsule(rows, lambda name, fmt: "u" if fmt == "U" else fmt)
    capsule = rows.__arrow_c_stream__(requested)
    db.scan("small", capsule)
    got = db.query("select count(*), sum(strlen(code)), min(typeof(code)), max(user_id::hugeint) "
                   "from small")
    expected_rows = kbdata.open(sample).submissions(problem="nvfp4_dual_gemm", code=True)
    frame = expected_rows.to_pylist()
    assert got == [[str(len(frame)),
                    str(sum(len(r["code"].encode()) for r in frame if r["code"] is not None)),
                    "VARCHAR", str(max(int(r["user_id"]) for r in frame))]]
    del capsule
    release_schema(keep)
