"""Every Dataset function's rows equal the kbdata command's --format json, on the bundled sample
and on a medium synthetic data set; what the command says besides its answer comes as warnings."""

import warnings

import pytest

import kbdata
from conftest import assert_rows_equal_cli, cli_json

# (Dataset method, its arguments, the command line of the same answer)
CASES = [
    ("top", dict(problem="nvfp4_dual_gemm"), ["top", "-p", "nvfp4_dual_gemm"]),
    ("top", dict(problem="trimul", runner="H100", n=0), ["top", "-p", "trimul", "--runner", "H100", "-n", "0"]),
    ("top", dict(problem="nvfp4_dual_gemm", exclude_flagged=True), ["top", "-p", "nvfp4_dual_gemm", "--exclude-flagged"]),
    ("top", dict(problem="nvfp4_dual_gemm", uncertainty=True), ["top", "-p", "nvfp4_dual_gemm", "--uncertainty"]),
    ("records", dict(problem="trimul", runner="H100"), ["records", "-p", "trimul", "--runner", "H100"]),
    ("records", dict(problem="nvfp4_gemm", exclude_flagged="suspicious"), ["records", "-p", "nvfp4_gemm", "--exclude-flagged=suspicious"]),
    ("progression", dict(user="tonda", problem="nvfp4_dual_gemm"), ["progression", "-u", "tonda", "-p", "nvfp4_dual_gemm"]),
    ("fastest", dict(problem="trimul"), ["fastest", "-p", "trimul"]),
    ("fastest", dict(problem="nvfp4_gemm", code=True), ["fastest", "-p", "nvfp4_gemm", "--with-code"]),
    ("stats", dict(), ["stats"]),
    ("stats", dict(problem="nvfp4_gemm", flagged=True), ["stats", "-p", "nvfp4_gemm", "--flagged"]),
    ("noise", dict(problem="nvfp4_dual_gemm"), ["noise", "-p", "nvfp4_dual_gemm"]),
    ("audit", dict(problem="nvfp4_gemm"), ["audit", "-p", "nvfp4_gemm"]),
    ("audit", dict(min_verdict="suspicious", with_evidence=True), ["audit", "--min-verdict", "suspicious", "--with-evidence"]),
    ("techniques", dict(problem="nvfp4_gemm"), ["techniques", "-p", "nvfp4_gemm"]),
    ("techniques", dict(problem="nvfp4_gemm", winners=True), ["techniques", "-p", "nvfp4_gemm", "--winners"]),
    ("techniques", dict(problem="nvfp4_dual_gemm", trend=True), ["techniques", "-p", "nvfp4_dual_gemm", "--trend"]),
    ("tasks", dict(), ["tasks"]),
    ("place", dict(scores=["15us", "0.0001"], problem="nvfp4_dual_gemm", runner="NVIDIA"), ["place", "15us", "0.0001", "-p", "nvfp4_dual_gemm", "--runner", "NVIDIA"]),
    ("submission", dict(submission_id=30000856), ["show", "30000856"]),
    ("submission", dict(submission_id=30000856, near_duplicates=True), ["show", "30000856", "--near-duplicates"]),
]


def call(ds, method, kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", kbdata.KbdataWarning)
        if method == "submission":
            kwargs = dict(kwargs)
            return ds.submission(kwargs.pop("submission_id"), **kwargs)
        return getattr(ds, method)(**kwargs)


@pytest.mark.parametrize("method,kwargs,args", CASES, ids=[" ".join(c[2]) for c in CASES])
def test_rows_equal_the_command_on_the_sample(sample, method, kwargs, args):
    table = call(kbdata.open(sample), method, kwargs)
    assert_rows_equal_cli(table, cli_json(args + ["--data", sample]))


SUBMISSIONS = [
    (dict(), []),
    (dict(problem="nvfp4_gemm", scored=True), ["-p", "nvfp4_gemm", "--scored"]),
    (dict(runner="B200", passed=True, code=True), ["--runner", "B200", "--passed", "--with-code"]),
    (dict(problem="amd-fp8-mm", user_id="17", columns=["submission_id", "score", "benchmarks"]),
     ["-p", "amd-fp8-mm", "--user-id", "17", "--columns", "submission_id,score,benchmarks"]),
    (dict(since="2025-10-01", until="2026-01-01", columns=["submission_id", "language", "features"]),
     ["--since", "2025-10-01", "--until", "2026-01-01", "--columns", "submission_id,language,features"]),
]


@pytest.mark.parametrize("kwargs,args", SUBMISSIONS, ids=[" ".join(a) or "all" for _, a in SUBMISSIONS])
def test_submissions_equal_the_command_on_the_sample(sample, kwargs, args):
    rows = kbdata.open(sample).submissions(**kwargs)
    assert_rows_equal_cli(rows, cli_json(["submissions", "--data", sample] + args))


MEDIUM_CASES = [
    ("top", dict(problem="nvfp4_gemm", n=0), ["top", "-p", "nvfp4_gemm", "-n", "0"]),
    ("records", dict(problem="trimul"), ["records", "-p", "trimul"]),
    ("fastest", dict(), ["fastest"]),
    ("stats", dict(), ["stats"]),
    ("techniques", dict(problem="nvfp4_gemm", winners=True), ["techniques", "-p", "nvfp4_gemm", "--winners"]),
    ("tasks", dict(), ["tasks"]),
]


@pytest.mark.parametrize("method,kwargs,args", MEDIUM_CASES, ids=[" ".join(c[2]) for c in MEDIUM_CASES])
def test_rows_equal_the_command_on_a_medium_set(medium, method, kwargs, args):
    table = call(kbdata.open(medium), method, kwargs)
    assert_rows_equal_cli(table, cli_json(args + ["--data", medium]))


def test_submissions_equal_the_command_on_a_medium_set(medium):
    rows = kbdata.open(medium).submissions(code=True)
    assert len(rows) > 5000
    assert_rows_equal_cli(rows, cli_json(["submissions", "--data", medium, "--with-code"]))


def test_messages_are_warnings(sample):
    with pytest.warns(kbdata.KbdataWarning, match="no qualifying"):
        table = kbdata.open(sample).top(problem="trimul", runner="NoSuchGpu")
    assert len(table) == 0
    assert table.columns[:3] == ["leaderboard_id", "problem_name", "rank"]


def test_notes_summary_and_repr(sample):
    top = kbdata.open(sample).top(problem="nvfp4_dual_gemm", n=3)
    assert 598 in top.notes and "unreliable" in top.notes[598]
    text = repr(top)
    assert text.startswith("<kbdata.Table: ")
    assert "note: " in text and "µs" in text
    head = top.head(2)
    assert len(head) == 2 and head.to_pylist() == top.to_pylist()[:2]
    assert list(top.iter_rows()) == top.to_pylist()


def test_submissions_are_read_when_used(sample, tmp_path):
    folder = tmp_path / "data"
    folder.mkdir()
    rows = kbdata.open(str(folder)).submissions()  # an empty folder: nothing read yet
    (folder / "nvidia_nvfp4_submissions.parquet").symlink_to(
        f"{sample}/nvidia_nvfp4_submissions.parquet")
    assert len(rows) > 0
    assert repr(rows).startswith("<kbdata.Submissions: ")


def test_user_ids_stay_strings(sample):
    rows = kbdata.open(sample).submissions(problem="nvfp4_dual_gemm", columns=["user_id"])
    ids = [r["user_id"] for r in rows.iter_rows()]
    assert all(isinstance(i, str) for i in ids)
    assert any(int(i) > 2**53 for i in ids)


def test_the_stub_matches_the_extension():
    import ast
    import os

    from kbdata import _kbdata

    stub = ast.parse(open(os.path.join(os.path.dirname(kbdata.__file__), "_kbdata.pyi")).read())
    functions = {n.name for n in stub.body if isinstance(n, ast.FunctionDef)}
    classes = {n.name: {m.name for m in n.body if isinstance(m, ast.FunctionDef)}
               for n in stub.body if isinstance(n, ast.ClassDef)}
    assert functions == {name for name in dir(_kbdata) if not name.startswith("_")} - set(classes)
    for name, members in classes.items():
        public = {m for m in dir(getattr(_kbdata, name)) if not m.startswith("_")}
        assert {m for m in members if not m.startswith("_")} == public
        assert "__arrow_c_stream__" in dir(getattr(_kbdata, name))


PAIRS = [
    (dict(), []),
    (dict(problem="nvfp4_gemm", significant=True), ["-p", "nvfp4_gemm", "--significant"]),
    (dict(format="chat"), ["--format", "chat"]),
    (dict(format="preference", max_gap_days=7), ["--format", "preference", "--max-gap-days", "7"]),
    (dict(trajectories=True, exclude_flagged=True), ["--trajectories", "--exclude-flagged"]),
]


@pytest.mark.parametrize("kwargs,args", PAIRS, ids=[" ".join(a) or "all" for _, a in PAIRS])
def test_pairs_equal_the_file_the_command_writes(sample, tmp_path, kwargs, args):
    import json

    from conftest import run_cli

    out = tmp_path / "pairs.jsonl"
    run_cli(["pairs", "--data", sample, "--out", str(out)] + args)
    written = [json.loads(line) for line in out.read_text().splitlines()]
    assert written, "the case should write some rows"
    before = sorted(p.name for p in tmp_path.iterdir())
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", kbdata.KbdataWarning)
        table = kbdata.open(sample).pairs(**kwargs)
    assert_rows_equal_cli(table, written)
    assert sorted(p.name for p in tmp_path.iterdir()) == before  # nothing written


def test_pairs_refuses_a_format_it_does_not_hand_over(sample):
    with pytest.raises(kbdata.UsageError, match="'jsonl', 'chat' and 'preference'"):
        kbdata.open(sample).pairs(format="parquet")
