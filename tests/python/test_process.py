"""A good citizen of a long-lived process: 1,000 calls in one process with flat memory; Ctrl-C
during a scan stops it with KeyboardInterrupt and leaves no thread, temporary or memory behind;
other Python threads run while kbdata reads."""

import gc
import os
import threading
import warnings

import pytest

import kbdata
from conftest import interrupt_when_reading, rss_bytes, threads


def test_a_thousand_calls_keep_memory_flat(sample):
    ds = kbdata.open(sample)

    def calls(n):
        for i in range(n):
            top = ds.top("nvfp4_dual_gemm", n=0)
            assert len(top) > 0
            top.__arrow_c_stream__()
            if i % 10 == 0:
                top.to_pandas()
            del top

    calls(200)  # warm-up: allocator pools, pandas' caches
    gc.collect()
    before = rss_bytes()
    calls(800)
    gc.collect()
    grown = rss_bytes() - before
    assert grown < 16 << 20, f"memory grew by {grown / 2**20:.1f} MiB over 800 calls"


def test_ctrl_c_stops_a_scan(large, medium):
    ds = kbdata.open(large)
    source = os.path.realpath(os.path.join(medium, "nvidia_nvfp4_submissions.parquet"))
    baseline_threads = threads()
    before = set(os.listdir(large))
    for after in (0.0, 0.05):  # at the start, and well inside a scan of under a second
        watcher = interrupt_when_reading(source, after)
        with pytest.raises(KeyboardInterrupt) as raised:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", kbdata.KbdataWarning)
                ds.submissions(code=True).to_pylist()
        watcher.join()
        # Raised inside the scan by kbdata's check, not after it returned.
        assert str(raised.value) == "kbdata submissions: interrupted"
    gc.collect()
    assert threads() <= baseline_threads + 1  # the watcher's thread may still be ending
    assert set(os.listdir(large)) == before
    # The process goes on: the next call works.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", kbdata.KbdataWarning)
        assert len(ds.stats()) > 0


def test_other_threads_run_while_kbdata_reads(medium):
    # The GIL is released during the call: a counting thread advances. (kbdata also takes the GIL
    # briefly now and then to check for Ctrl-C, so this shows the thread is not starved.)
    count = [0]
    stop = threading.Event()

    def counting():
        while not stop.is_set():
            count[0] += 1

    thread = threading.Thread(target=counting)
    thread.start()
    try:
        start = count[0]
        kbdata.open(medium).submissions(code=True).num_rows
        advanced = count[0] - start
    finally:
        stop.set()
        thread.join()
    assert advanced > 0
