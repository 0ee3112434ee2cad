"""The data set's helpers as kbdata offers them: load_submissions equals the submissions listing,
top_contestants and author_progression follow kbdata's rules (the same users and scores as
kbdata top and progression), format_score as the helper shows scores."""

import pandas as pd
import pytest

import kbdata

NVFP4 = "nvidia_nvfp4_submissions.parquet"


@pytest.fixture(scope="module")
def nvfp4(sample):
    return kbdata.load_submissions(f"{sample}/{NVFP4}")


def test_load_submissions_reads_one_file(sample, nvfp4):
    every = kbdata.open(sample).submissions(code=True).to_pandas()
    from_file = every[every["problem_name"].isin(nvfp4["problem_name"].unique())]
    assert len(nvfp4) > 0 and "code" in nvfp4.columns
    assert sorted(nvfp4["submission_id"].tolist()) == sorted(from_file["submission_id"].tolist())
    # A legacy per-run file comes out in the same (flat) model.
    legacy = kbdata.load_submissions(f"{sample}/submissions.parquet", columns=["submission_id", "score"])
    assert list(legacy.columns) == ["submission_id", "score"] and len(legacy) > 0


def test_top_contestants_is_kbdata_top(sample, nvfp4):
    ours = kbdata.top_contestants(nvfp4, "nvfp4_dual_gemm", n=5)
    top = kbdata.open(sample).top("nvfp4_dual_gemm", n=5).to_pandas()
    assert ours["rank"].tolist() == top["rank"].tolist()
    assert ours["user_id"].tolist() == top["user_id"].tolist()
    assert ours["score"].tolist() == top["score"].tolist()
    assert ours["submission_id"].tolist() == top["submission_id"].tolist()
    # A filtered DataFrame is ranked as given.
    early = nvfp4[nvfp4["submission_time"] < pd.Timestamp("2025-12-01", tz="UTC")]
    assert (kbdata.top_contestants(early, "nvfp4_dual_gemm")["submission_time"]
            < pd.Timestamp("2025-12-01", tz="UTC")).all()


def test_author_progression_is_kbdata_progression(sample, nvfp4):
    ours = kbdata.author_progression(nvfp4, user_name="tonda", problem_name="nvfp4_dual_gemm")
    theirs = kbdata.open(sample).progression("tonda", problem="nvfp4_dual_gemm").to_pandas()
    assert ours["submission_id"].tolist() == theirs["submission_id"].tolist()
    assert ours["best"].fillna(-1).tolist() == theirs["best"].astype("float64").fillna(-1).tolist()
    by_id = kbdata.author_progression(nvfp4, user_id=ours["user_id"].iloc[0], problem_name="nvfp4_dual_gemm")
    assert by_id["submission_id"].tolist() == ours["submission_id"].tolist()
    with pytest.raises(ValueError):
        kbdata.author_progression(nvfp4)


@pytest.mark.parametrize("score,text", [
    (1.2913403524642259e-05, "12.91 µs"), (0.000999994, "999.99 µs"), (0.001, "1.000 ms"),
    (0.25, "250.000 ms"), (1.5, "1.500 s"), (None, "null"), (float("nan"), "null"),
])
def test_format_score(score, text):
    assert kbdata.format_score(score) == text
