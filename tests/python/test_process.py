"""A good citizen of a long-lived process: 1,000 calls in one process with flat memory; Ctrl-C
during a scan stops it with KeyboardInterrupt and leaves no thread, temporary or memory behind;
other Python threads run while kbdata reads."""

import _thread
import gc
import os
import threading
import time
import warnings

import pytest

import kbdata


def rss_bytes():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def threads():
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("Threads:"):
                return int(line.split()[1])
    raise AssertionError("no Threads line")


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


@pytest.fixture(scope="module")
def large(medium, tmp_path_factory):
    """A folder whose files are 24 copies of the medium set's NVFP4 file: a scan of several
    seconds (their rows repeat: kbdata reads them all and keeps the first)."""
    folder = tmp_path_factory.mktemp("large")
    source = os.path.join(medium, "nvidia_nvfp4_submissions.parquet")
    for i in range(24):
        os.symlink(source, folder / f"copy{i:02d}_submissions.parquet")
    return str(folder)


def interrupt_when_reading(path, after):
    """A thread that sends Ctrl-C to the main thread once this process has `path` open (kbdata
    is reading it: the call is under way, whatever the machine's load) and `after` more
    seconds have passed."""

    def watch():
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            for fd in os.listdir("/proc/self/fd"):
                try:
                    if os.readlink(f"/proc/self/fd/{fd}") == path:
                        time.sleep(after)
                        _thread.interrupt_main()
                        return
                except OSError:
                    continue
            time.sleep(0.002)

    thread = threading.Thread(target=watch)
    thread.start()
    return thread


def test_ctrl_c_stops_a_scan(large, medium):
    ds = kbdata.open(large)
    source = os.path.realpath(os.path.join(medium, "nvidia_nvfp4_submissions.parquet"))
    baseline_threads = threads()
    before = set(os.listdir(large))
    for after in (0.0, 0.2):
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
