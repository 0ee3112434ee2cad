"""The commands that write files, from Python: extract and dedup write what the command writes and
return its summary; configs and leaderboards are the configs command's tables; the outputs' safety
rules hold from Python (an output never replaces an input or a folder kbdata did not make), with
the command's messages."""

import json
import os
import shutil
import warnings

import pytest

import kbdata
from conftest import cli_value, normalized, run_cli

NVFP4 = "nvidia_nvfp4_submissions.parquet"


def quiet(call, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", kbdata.KbdataWarning)
        return call(*args, **kwargs)


def cli_error(args):
    """The command's one-line error, as the Python exception carries it (without "kbdata: " and
    the help hint)."""
    status, _, err = run_cli(args, check=False)
    assert status != 0
    line = err.strip().splitlines()[-1]
    line = line[len("kbdata: "):] if line.startswith("kbdata: ") else line
    return line.split(" (see 'kbdata")[0]


def assert_rows_equal_document(table, rows):
    """A table's rows equal a JSON document's table of the same rows (every column a column:
    configs' own note included)."""
    kinds = table.column_types
    ours = table.to_pylist()
    assert len(ours) == len(rows) > 0
    for mine, theirs in zip(ours, rows):
        assert list(mine) == list(theirs)
        for name, value in mine.items():
            assert normalized(value, kinds[name]) == cli_value(theirs[name], kinds[name]), name


def test_configs_and_leaderboards_are_the_configs_tables(sample):
    ds = kbdata.open(sample)
    _, out, _ = run_cli(["configs", "--data", sample, "--format", "json"])
    document = json.loads(out)
    assert_rows_equal_document(ds.configs(), document["configs"])
    assert_rows_equal_document(ds.leaderboards(), document["contents"])
    assert list(ds.configs(table="skipped").columns) == ["file", "reason", "unreadable"]
    with pytest.raises(kbdata.UsageError, match="no table 'nope'"):
        ds.configs(table="nope")


def test_extract_writes_the_files_and_returns_its_summary(sample, tmp_path):
    out = tmp_path / "top3"
    summary = kbdata.open(sample).extract(out, "nvfp4_dual_gemm", top=3).to_pylist()
    assert len(summary) == 1
    row = summary[0]
    assert row["folder"] == str(out)
    manifest = (out / "manifest.jsonl").read_text().splitlines()
    assert row["files"] == len(manifest) > 0
    # The command makes the same files.
    twin = tmp_path / "twin"
    run_cli(["extract", "--data", sample, "-p", "nvfp4_dual_gemm", "--top", "3", "--out", str(twin)])
    ours = sorted(os.path.relpath(os.path.join(d, f), out) for d, _, fs in os.walk(out) for f in fs)
    theirs = sorted(os.path.relpath(os.path.join(d, f), twin) for d, _, fs in os.walk(twin) for f in fs)
    assert ours == theirs


def test_extract_never_replaces_a_folder_kbdata_did_not_make(sample, tmp_path):
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "notes.txt").write_text("keep me")
    ds = kbdata.open(sample)
    for force in (False, True):
        args = ["extract", "--data", sample, "-p", "nvfp4_dual_gemm", "--top", "3", "--out", str(mine)]
        with pytest.raises(kbdata.UsageError) as raised:
            ds.extract(mine, "nvfp4_dual_gemm", top=3, force=force)
        assert str(raised.value) == cli_error(args + (["--force"] if force else []))
        assert sorted(os.listdir(mine)) == ["notes.txt"]
        assert (mine / "notes.txt").read_text() == "keep me"


def test_extract_never_replaces_its_input(sample, tmp_path):
    data = tmp_path / "data"
    shutil.copytree(sample, data)
    before = sorted(os.listdir(data))
    with pytest.raises(kbdata.Error) as raised:
        kbdata.open(str(data)).extract(data, "nvfp4_dual_gemm", top=3, force=True)
    # The command's message, its option named as the keyword given (out=) where the CLI names
    # the flag.
    flagged = cli_error(["extract", "--data", str(data), "-p", "nvfp4_dual_gemm", "--top", "3",
                         "--out", str(data), "--force"])
    assert flagged.startswith(f"--out {data} holds an input of this command")
    assert str(raised.value) == "out=" + flagged[len("--out "):]
    assert sorted(os.listdir(data)) == before


def test_dedup_writes_the_file_and_returns_its_summary(sample, tmp_path):
    source = os.path.join(sample, NVFP4)
    out = tmp_path / "clean.parquet"
    summary = quiet(kbdata.dedup, source, out).to_pylist()[0]
    assert out.exists()
    assert summary["rows_in"] >= summary["rows_out"] > 0
    assert summary["near_duplicates"] is None  # not a fuzzy run
    rows = quiet(lambda: kbdata.open(str(tmp_path)).submissions().to_pylist())
    assert len(rows) == summary["rows_out"]
    fuzzy = quiet(kbdata.dedup, source, tmp_path / "fuzzy.parquet", fuzzy=True).to_pylist()[0]
    assert fuzzy["near_duplicates"] is not None and fuzzy["rows_out"] <= summary["rows_out"]


def test_dedup_never_replaces_its_input(sample, tmp_path):
    source = tmp_path / NVFP4
    shutil.copy(os.path.join(sample, NVFP4), source)
    before = source.read_bytes()
    with pytest.raises(kbdata.Error) as raised:
        kbdata.dedup(source, source)
    assert str(raised.value) == cli_error(["dedup", str(source), str(source), "--exact"])
    assert source.read_bytes() == before
    with pytest.raises(kbdata.FileError, match="cannot open"):
        kbdata.dedup(tmp_path / "missing.parquet", tmp_path / "out.parquet")
