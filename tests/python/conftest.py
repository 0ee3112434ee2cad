"""What the Python module's tests share: the kbdata binary (KBDATA_BINARY) whose output is the
oracle, the bundled sample, a medium synthetic data set made once per run, and the comparison of
a Table's rows with the command's --format json."""

import _thread
import datetime
import json
import math
import os
import shutil
import subprocess
import tempfile
import threading
import time

import pytest

SOURCE_DIR = os.environ.get("KBDATA_SOURCE_DIR", os.path.abspath(os.path.join(
    os.path.dirname(__file__), "..", "..")))
BINARY = os.environ.get("KBDATA_BINARY", os.path.join(SOURCE_DIR, "build", "kbdata"))
SAMPLE = os.path.join(SOURCE_DIR, "data", "sample")


def run_cli(args, check=True):
    """kbdata ARGS: (exit status, stdout, stderr)."""
    p = subprocess.run([BINARY] + list(args), capture_output=True, text=True,
                       env=dict(os.environ, KBDATA_PROGRESS="never"))
    if check and p.returncode != 0:
        raise AssertionError(f"kbdata {' '.join(args)} failed: {p.stderr}")
    return p.returncode, p.stdout, p.stderr


def cli_json(args):
    """The rows kbdata ARGS --format json prints."""
    _, out, _ = run_cli(list(args) + ["--format", "json"])
    return json.loads(out)


def normalized(value, kind):
    """A Table value as the CLI's JSON writes it (times as datetimes, JSON parsed)."""
    if value is None:
        return None
    if kind.startswith("list<"):
        return [normalized(v, kind[5:-1]) for v in value]
    if kind == "json":
        return json.loads(value)
    if kind == "timestamp":
        return value
    return value


def cli_value(value, kind):
    if value is None:
        return None
    if kind.startswith("list<"):
        return [cli_value(v, kind[5:-1]) for v in value]
    if kind == "timestamp":
        return datetime.datetime.fromisoformat(value.replace("Z", "+00:00"))
    if kind in ("score", "factor", "double") and isinstance(value, str):
        return float(value)  # NaN and infinities are strings in JSON
    return value


def same(a, b):
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
        return True
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    return a == b


def assert_rows_equal_cli(table, cli_rows):
    """Every row of `table` equals the CLI's JSON object of the same position: same keys (beyond
    the note and a legacy submission's runs), same values; the note is the table's note of the
    row's leaderboard."""
    kinds = table.column_types
    rows = table.to_pylist()
    assert len(rows) == len(cli_rows)
    for i, (row, cli) in enumerate(zip(rows, cli_rows)):
        note = cli.pop("note", None)
        cli.pop("runs", None)
        assert list(row.keys()) == list(cli.keys()), f"row {i}"
        for name, value in row.items():
            ours = normalized(value, kinds[name])
            theirs = cli_value(cli[name], kinds[name])
            assert same(ours, theirs), f"row {i} column {name}: {ours!r} != {theirs!r}"
        if note is not None:
            assert note in table.notes.values()


@pytest.fixture(scope="session")
def sample():
    return SAMPLE


@pytest.fixture(scope="session")
def medium():
    """kbdata synth --scale medium --seed 3 --family both (about 50 MB), removed at the end."""
    folder = tempfile.mkdtemp(prefix="kbdata-py-medium-")
    out = os.path.join(folder, "data")
    run_cli(["synth", "--scale", "medium", "--seed", "3", "--family", "both", "--out", out])
    yield out
    shutil.rmtree(folder, ignore_errors=True)


def rss_bytes():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def threads():
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("Threads:"):
                return int(line.split()[1])
    raise AssertionError("no Threads line")


@pytest.fixture(scope="session")
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
