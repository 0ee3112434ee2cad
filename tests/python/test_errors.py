"""Errors are exceptions of kbdata's classes carrying the command's message (the CLI's stderr
line without "kbdata: " and the help hint), also of the built-in class a caller expects."""

import os
import re

import pytest

import kbdata
from conftest import run_cli

NVFP4 = "nvidia_nvfp4_submissions.parquet"


def cli_message(args):
    status, _, err = run_cli(args, check=False)
    assert status != 0
    line = err.strip().splitlines()[-1]
    line = re.sub(r"^kbdata: ", "", line)
    return status, re.sub(r" \(see 'kbdata [a-z]* ?--help'\)$", "", line)


@pytest.mark.parametrize("call,args,cls,builtin", [
    (lambda ds: ds.top("nvfp4_dual_gemm", n=-1), ["top", "-p", "nvfp4_dual_gemm", "-n", "-1"], kbdata.UsageError, ValueError),
    (lambda ds: ds.top("nvfp4_gemn"), ["top", "-p", "nvfp4_gemn"], kbdata.UsageError, ValueError),
    (lambda ds: ds.submissions(columns=["scroe"]).to_pylist(), ["submissions", "--columns", "scroe"], kbdata.UsageError, ValueError),
    (lambda ds: ds.top(), ["top"], kbdata.UsageError, ValueError),
    (lambda ds: ds.submission(1), ["show", "1"], kbdata.NotFoundError, LookupError),
    (lambda ds: ds.progression("nobody-at-all"), ["progression", "-u", "nobody-at-all"], kbdata.NotFoundError, LookupError),
    (lambda ds: ds.top("nvfp4_gemm", exclude_flagged="cheats"), ["top", "-p", "nvfp4_gemm", "--exclude-flagged=cheats"], kbdata.UsageError, ValueError),
])
def test_the_message_is_the_commands(sample, call, args, cls, builtin):
    _, message = cli_message(args + ["--data", sample])
    with pytest.raises(cls) as raised:
        call(kbdata.open(sample))
    assert isinstance(raised.value, builtin) and isinstance(raised.value, kbdata.Error)
    assert str(raised.value) == message


def test_a_file_that_cannot_be_read_is_an_oserror(tmp_path):
    folder = tmp_path / "data"
    folder.mkdir()
    (folder / "nvidia_nvfp4_submissions.parquet").symlink_to(tmp_path / "gone.parquet")
    missing = str(folder)
    _, message = cli_message(["stats", "--data", missing])
    with pytest.raises(OSError) as raised:
        kbdata.open(missing).stats()
    assert isinstance(raised.value, kbdata.FileError)
    assert str(raised.value) == message


def test_a_corrupt_file_is_a_data_error(tmp_path):
    folder = tmp_path / "data"
    folder.mkdir()
    (folder / "nvidia_nvfp4_submissions.parquet").write_bytes(b"PAR1" + b"\0" * 100 + b"PAR1")
    _, message = cli_message(["stats", "--data", str(folder)])
    with pytest.raises(kbdata.Error) as raised:
        kbdata.open(str(folder)).stats()
    assert str(raised.value) == message


def test_a_folder_that_is_not_one_is_a_usage_error(tmp_path):
    missing = str(tmp_path / "nothing-here")
    _, message = cli_message(["stats", "--data", missing])
    with pytest.raises(kbdata.UsageError) as raised:
        kbdata.open(missing).stats()
    assert str(raised.value) == message


def test_an_unknown_option_is_a_usage_error(sample):
    from kbdata import _kbdata

    with pytest.raises(kbdata.UsageError, match="unknown option '--limt'; did you mean '--limit'"):
        _kbdata.run(["top", "--data", sample, "-p", "trimul", "--limt", "3"])


def test_pull_says_what_the_command_says(tmp_path, monkeypatch):
    _, message = cli_message(["pull", "bad repo name"])
    with pytest.raises(kbdata.UsageError) as raised:
        kbdata.pull("bad repo name")
    assert str(raised.value) == message
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    cache = str(tmp_path / "cache")
    _, message = cli_message(["pull", "GPUMODE/kernelbot-data", "--cache-dir", cache])
    with pytest.raises(kbdata.FileError) as raised:
        kbdata.pull("GPUMODE/kernelbot-data", cache_dir=cache)
    assert str(raised.value) == message


@pytest.mark.parametrize("call,args,keyword_message,flag_message", [
    (lambda ds, out: kbdata.dedup(os.path.join(ds.data, NVFP4), out, fuzzy=True, threshold=2),
     lambda ds, out: ["dedup", os.path.join(ds.data, NVFP4), out, "--fuzzy", "--threshold", "2"],
     "threshold=2: must be in (0, 1]", "--threshold 2: must be in (0, 1]"),
    (lambda ds, out: kbdata.dedup(os.path.join(ds.data, NVFP4), out, across_users=True),
     lambda ds, out: ["dedup", os.path.join(ds.data, NVFP4), out, "--exact", "--across-users"],
     "across_users=True applies to fuzzy=True only (the exact rule partitions by user)",
     "--across-users applies to --fuzzy only (the exact rule partitions by user)"),
    (lambda ds, out: ds.pairs("nvfp4_gemm", min_speedup=0.5),
     lambda ds, out: ["pairs", "--data", ds.data, "-p", "nvfp4_gemm", "--min-speedup", "0.5",
                      "--out", out],
     "min_speedup=0.5: must be 1 or more (the baseline's score over the improved one's)",
     "--min-speedup 0.5: must be 1 or more (the baseline's score over the improved one's)"),
    (lambda ds, out: ds.pairs("nvfp4_gemm", trajectories=True, all_pairs=True),
     lambda ds, out: ["pairs", "--data", ds.data, "-p", "nvfp4_gemm", "--trajectories",
                      "--all-pairs", "--out", out],
     "all_pairs=True is for pairs; trajectories=True writes one row per lineage",
     "--all-pairs is for pairs; --trajectories writes one row per lineage"),
    (lambda ds, out: ds.pairs("nvfp4_gemm", ngram_share=1.5, decontaminate=ds.data),
     lambda ds, out: ["pairs", "--data", ds.data, "-p", "nvfp4_gemm", "--ngram-share", "1.5",
                      "--decontaminate", ds.data, "--out", out],
     "ngram_share=1.5: must be in [0, 1)", "--ngram-share 1.5: must be in [0, 1)"),
])
def test_a_bad_value_is_named_by_its_keyword(sample, tmp_path, call, args, keyword_message,
                                             flag_message):
    """A library's error names the option: Python by the keyword the caller gave, the command
    line by the flag; the rest of the message is the same."""
    ds = kbdata.open(sample)
    out = str(tmp_path / "out.jsonl")
    _, message = cli_message(args(ds, out))
    assert message == flag_message
    with pytest.raises(kbdata.UsageError) as raised:
        call(ds, out)
    assert str(raised.value) == keyword_message
    assert "--" not in str(raised.value)
    assert not os.listdir(tmp_path)
