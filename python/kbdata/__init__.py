"""kbdata in Python: the KernelBot competition data and every kbdata analysis, as tables.

    >>> import kbdata
    >>> ds = kbdata.open("data/sample")
    >>> top = ds.top(problem="nvfp4_dual_gemm", n=3)
    >>> top.columns[:4]
    ['leaderboard_id', 'problem_name', 'rank', 'user_id']
    >>> len(top) >= 3
    True

Each Dataset method runs the kbdata command of the same name on the data set (the same rules,
checks and messages) and returns its answer as a Table whose rows are those of the command's
``--format json``. Keyword arguments are the command's options: ``--min-verdict`` is
``min_verdict=``, a flag is ``=True``; ``n=`` is ``--limit``. Errors are exceptions carrying the
command's message (UsageError is also a ValueError, FileError an OSError); what the command says
besides its answer (an empty result explained, rows left out) comes as a KbdataWarning.
docs/python.md has the whole story.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from typing import Any, Iterable, List, Optional, Sequence, Union

from ._errors import (
    DataError,
    Error,
    FileError,
    InternalError,
    KbdataWarning,
    NetworkError,
    NotFoundError,
    ResourceError,
    UsageError,
)

try:
    from . import _kbdata
except ImportError as _e:  # pragma: no cover - a wrong interpreter
    import sys as _sys

    raise ImportError(
        f"kbdata's extension (_kbdata) cannot be loaded by {_sys.executable} "
        f"(Python {_sys.version.split()[0]}): it is built for the Python given to the build "
        "(PYTHON=..., /usr/bin/python3 by default); rebuild with `make build PYTHON="
        f"{_sys.executable}` in a fresh build folder ({_e})"
    ) from _e

from ._table import Submissions, Table, _progress, _run, _warn
from ._seed import author_progression, format_score, load_submissions, top_contestants

__all__ = [
    "open", "pull", "dedup", "Dataset", "Table", "Submissions",
    "load_submissions", "top_contestants", "author_progression", "format_score",
    "Error", "UsageError", "DataError", "NotFoundError", "FileError", "NetworkError",
    "ResourceError", "InternalError", "KbdataWarning",
]

_open = open  # the built-in, which open() below shadows in this module

Value = Union[str, int, float, bool, None, Sequence[Any]]


def _flags(options: dict) -> List[str]:
    """Keyword arguments as the command line's options: name_with_underscores -> --name-with-
    dashes; True -> the flag alone, False/None -> left out; a list -> comma-separated."""
    args: List[str] = []
    for name, value in options.items():
        if value is None or value is False:
            continue
        flag = "--" + name.replace("_", "-")
        if value is True:
            args.append(flag)
        elif isinstance(value, (list, tuple)):
            args += [flag, ",".join(str(v) for v in value)]
        else:
            args += [flag, str(value)]
    return args


def _exclude(exclude_flagged: Union[bool, str, None]) -> List[str]:
    """--exclude-flagged (True: the cheats) or --exclude-flagged=LEVEL ("cheat", "suspicious")."""
    if exclude_flagged is None or exclude_flagged is False:
        return []
    if exclude_flagged is True:
        return ["--exclude-flagged"]
    return ["--exclude-flagged=" + str(exclude_flagged)]


class Dataset:
    """A KernelBot data set: a folder of configs, an hf:// address, or the bundled sample.

    The files are read by each call (a change to the folder is seen by the next call).
    """

    def __init__(self, data: Optional[str] = None, *, threads: Optional[int] = None,
                 skip_bad: bool = False):
        if data is not None:
            data = str(data)
            if not data.startswith("hf://"):
                data = os.path.expanduser(data)
        self.data = data
        self.threads = threads
        self.skip_bad = skip_bad

    def __repr__(self) -> str:
        return f"kbdata.Dataset({self.data!r})"

    def _data_args(self) -> List[str]:
        args: List[str] = []
        if self.data is not None:
            args += ["--data", self.data]
        if self.threads is not None:
            args += ["--threads", str(self.threads)]
        if self.skip_bad:
            args.append("--skip-bad")
        return args

    def _words(self, command: str, args: List[str], format_flag: bool = True) -> List[str]:
        return [command] + self._data_args() + args + (["--format", "json"] if format_flag else [])

    def _answer(self, command: str, args: List[str], format_flag: bool = True,
                part: str = "") -> Table:
        return Table(_run(self._words(command, args, format_flag), stacklevel=3, part=part))

    # --- listings --------------------------------------------------------------------------
    def configs(self, table: str = "configs") -> Table:
        """What the data set holds, config by config (kbdata configs): one row per config kbdata
        knows (config, file, family, present, rows, leaderboards, leaderboards_found, note).
        ``table=`` picks another of the command's tables: "contents" (what ``leaderboards()``
        gives), "other_files" (Parquet files that are no config kbdata knows), "skipped"
        (files that could not be read). An hf:// data set is listed from the hub's tree (its
        "configs" has a size instead of rows, and no "contents" or "skipped").

        >>> c = kbdata.open("data/sample").configs()
        >>> c.columns[:4]
        ['config', 'file', 'family', 'present']
        >>> [row["config"] for row in c.iter_rows() if row["present"]][:2]
        ['amd_submissions', 'amd_successful_submissions']
        """
        if table not in ("configs", "contents", "other_files", "skipped"):
            raise UsageError(f"configs has no table {table!r} (configs, contents, other_files, "
                             "skipped)")
        return self._answer("configs", [], part=table)

    def leaderboards(self) -> Table:
        """The leaderboards the files hold: one row per file, leaderboard, problem and runner
        (file, leaderboard_id, problem_name, runner, gpu, rows, registered, note), read from the
        rows (``configs(table="contents")``).

        >>> lb = kbdata.open("data/sample").leaderboards()
        >>> "leaderboard_id" in lb.columns and len(lb) > 0
        True
        """
        return self._answer("configs", [], part="contents")

    def problems(self) -> List[str]:
        """The problems (leaderboard names) the data set's files hold, sorted: those of
        ``stats()``, which reads the files' rows but not their code.

        >>> kbdata.open("data/sample").problems()[:3]
        ['amd-ag-gemm', 'amd-all2all', 'amd-fp8-mm']
        """
        import warnings

        with warnings.catch_warnings():
            warnings.simplefilter("ignore", KbdataWarning)
            names = {row["problem_name"] for row in self.stats().iter_rows()}
        return sorted(name for name in names if name is not None)

    def submissions(self, *, problem: Optional[str] = None, leaderboard: Optional[int] = None,
                    user_id: Optional[str] = None, user_name: Optional[str] = None,
                    runner: Optional[str] = None, passed: bool = False, scored: bool = False,
                    since: Optional[str] = None, until: Optional[str] = None,
                    columns: Optional[Sequence[str]] = None, code: bool = False) -> Submissions:
        """The submissions, filtered as ``kbdata submissions`` filters them (pushed down into the
        scan: row groups that cannot match are not read). Read when first used, then kept.

        ``columns`` picks fields (kbdata submissions --columns); ``code=True`` adds the code.

        >>> rows = kbdata.open("data/sample").submissions(problem="nvfp4_dual_gemm", scored=True)
        >>> rows.to_pandas()["user_id"].dtype
        string[python]
        """
        args = _flags(dict(problem=problem, leaderboard=leaderboard, user_id=user_id,
                           user_name=user_name, runner=runner, passed=passed, scored=scored,
                           since=since, until=until, columns=columns, with_code=code))
        return Submissions(self._words("submissions", args))

    def submission(self, submission_id: int, *, near_duplicates: bool = False,
                   threshold: Optional[float] = None) -> Table:
        """One submission's rows (one per runner in a flat file), every field and its code;
        ``near_duplicates=True``: the submissions of its leaderboard whose code is a
        near-duplicate of its code (kbdata show --near-duplicates).

        >>> kbdata.open("data/sample").submission(30000856).to_pylist()[0]["problem_name"]
        'nvfp4_dual_gemm'
        """
        return self._answer("show", [str(submission_id)] + _flags(dict(
            near_duplicates=near_duplicates, threshold=threshold)))

    # --- the analyses ----------------------------------------------------------------------
    def top(self, problem: Optional[str] = None, *, leaderboard: Optional[int] = None,
            runner: Optional[str] = None, n: int = 10, epoch: Optional[int] = None,
            uncertainty: bool = False, exclude_flagged: Union[bool, str, None] = None) -> Table:
        """A problem's leaderboard (kbdata top): each user's best qualifying score (scored,
        passed, not hacked), ranked with SQL RANK() ties, one ranking per runner; ``n=0`` shows
        everyone.

        >>> t = kbdata.open("data/sample").top("nvfp4_dual_gemm", n=1)
        >>> t.to_pylist()[0]["rank"]
        1
        """
        return self._answer("top", _flags(dict(problem=problem, leaderboard=leaderboard,
                                               runner=runner, limit=n, epoch=epoch,
                                               uncertainty=uncertainty)) + _exclude(exclude_flagged))

    def progression(self, user: str, *, problem: Optional[str] = None,
                    leaderboard: Optional[int] = None, runner: Optional[str] = None,
                    epoch: Optional[int] = None) -> Table:
        """One user's submissions in time order (kbdata progression): score, running best,
        improvements and their factors. ``user`` is a user id or name.

        >>> p = kbdata.open("data/sample").progression("tonda", problem="nvfp4_dual_gemm")
        >>> "best" in p.columns
        True
        """
        return self._answer("progression", _flags(dict(user=user, problem=problem,
                                                       leaderboard=leaderboard, runner=runner,
                                                       epoch=epoch)))

    def records(self, problem: Optional[str] = None, *, leaderboard: Optional[int] = None,
                runner: Optional[str] = None, epoch: Optional[int] = None,
                exclude_flagged: Union[bool, str, None] = None) -> Table:
        """Each time a problem's record fell (kbdata records), per runner.

        >>> r = kbdata.open("data/sample").records("trimul", runner="H100")
        >>> r.column_types["score"]
        'score'
        """
        return self._answer("records", _flags(dict(problem=problem, leaderboard=leaderboard,
                                                   runner=runner, epoch=epoch))
                            + _exclude(exclude_flagged))

    def fastest(self, problem: Optional[str] = None, *, user_id: Optional[str] = None,
                user_name: Optional[str] = None, runner: Optional[str] = None,
                epoch: Optional[int] = None, code: bool = False,
                exclude_flagged: Union[bool, str, None] = None) -> Table:
        """Per leaderboard and runner, the qualifying submission with the lowest score (kbdata
        fastest); ``code=True`` adds its code.

        >>> f = kbdata.open("data/sample").fastest("trimul")
        >>> sorted(set(row["runner"] for row in f.iter_rows()))[:2]
        ['A100', 'B200']
        """
        return self._answer("fastest", _flags(dict(problem=problem, user_id=user_id,
                                                   user_name=user_name, runner=runner,
                                                   epoch=epoch, with_code=code))
                            + _exclude(exclude_flagged))

    def stats(self, problem: Optional[str] = None, *, flagged: bool = False) -> Table:
        """Counts per problem and runner (kbdata stats); ``flagged=True`` adds the audit's
        flagged counts.

        >>> s = kbdata.open("data/sample").stats()
        >>> len(s) > 0
        True
        """
        return self._answer("stats", _flags(dict(problem=problem, flagged=flagged)))

    def noise(self, problem: Optional[str] = None, *, leaderboard: Optional[int] = None,
              runner: Optional[str] = None, epoch: Optional[int] = None,
              similarity: Optional[float] = None) -> Table:
        """The measurement noise of the scores (kbdata noise): from consecutive versions of the
        same user's kernel whose code is nearly the same."""
        return self._answer("noise", _flags(dict(problem=problem, leaderboard=leaderboard,
                                                 runner=runner, epoch=epoch,
                                                 similarity=similarity)))

    def audit(self, problem: Optional[str] = None, *, user: Optional[str] = None,
              runner: Optional[str] = None, since: Optional[str] = None,
              until: Optional[str] = None, min_verdict: Optional[str] = None,
              with_evidence: bool = False) -> Table:
        """The audit's verdict on each submission (kbdata audit): the rules its code or score
        broke; ``min_verdict="suspicious"`` or ``"cheat"`` keeps the flagged rows."""
        return self._answer("audit", _flags(dict(problem=problem, user=user, runner=runner,
                                                 since=since, until=until,
                                                 min_verdict=min_verdict,
                                                 with_evidence=with_evidence)))

    def techniques(self, problem: Optional[str] = None, *, user: Optional[str] = None,
                   runner: Optional[str] = None, since: Optional[str] = None,
                   until: Optional[str] = None, trend: bool = False, winners: bool = False,
                   top: Optional[int] = None,
                   exclude_flagged: Union[bool, str, None] = None) -> Table:
        """What each kernel uses (kbdata techniques): its language, technologies and features;
        ``trend=True`` the shares over time, ``winners=True`` the top kernels against the rest.

        >>> w = kbdata.open("data/sample").techniques("nvfp4_gemm", winners=True)
        >>> len(w) > 0
        True
        """
        return self._answer("techniques", _flags(dict(problem=problem, user=user,
                                                      runner=runner, since=since, until=until,
                                                      trend=trend, winners=winners, top=top))
                            + _exclude(exclude_flagged))

    def tasks(self, problem: Optional[str] = None, *, runner: Optional[str] = None,
              after: Optional[str] = None) -> Table:
        """The evaluation tasks (kbdata tasks): per problem and runner, the reference points a
        model's kernel is compared with."""
        return self._answer("tasks", _flags(dict(problem=problem, runner=runner, after=after)))

    def extract(self, out: str, problem: str, *, top: Optional[int] = None,
                user_id: Optional[str] = None, user_name: Optional[str] = None,
                all: bool = False, runner: Optional[str] = None, dedup: Optional[str] = None,
                force: bool = False, exclude_flagged: Union[bool, str, None] = None) -> Table:
        """Writes chosen submissions' code to files under the folder ``out`` with a
        manifest.jsonl (kbdata extract): ``top=K`` the best kernel of each of the top K users per
        runner, ``user_id=``/``user_name=`` a user's, ``all=True`` every one; ``dedup="exact"``
        one file per distinct code. Returns the summary (files, bytes, skipped, folder, ...).
        The command's rules hold: ``out`` is built beside itself and renamed into place, and
        never replaces a folder that is not empty (unless ``force=True``, and then only one
        kbdata extracted) nor an input."""
        args = _flags(dict(problem=problem, top=top, user_id=user_id, user_name=user_name,
                           all=all, runner=runner, dedup=dedup, out=os.fspath(out), force=force))
        return self._answer("extract", args + _exclude(exclude_flagged), format_flag=False)

    def pairs(self, problem: Optional[str] = None, *, user: Optional[str] = None,
              runner: Optional[str] = None, since: Optional[str] = None,
              until: Optional[str] = None, leaderboard: Optional[int] = None,
              format: str = "jsonl", trajectories: bool = False, all_pairs: bool = False,
              significant: bool = False, same_epoch: bool = False,
              min_speedup: Optional[float] = None, max_gap_days: Optional[float] = None,
              link_similarity: Optional[float] = None, lookback: Optional[int] = None,
              decontaminate: Optional[str] = None, decontaminate_column: Optional[str] = None,
              ngram: Optional[int] = None, ngram_share: Optional[float] = None,
              decontaminate_threshold: Optional[float] = None,
              exclude_flagged: Union[bool, str, None] = None) -> Table:
        """Training pairs (kbdata pairs): per user, problem and runner, the (slower, faster)
        pairs of new bests with both codes, the speedup, a unified diff and its significance
        against the noise; the rows the command writes to ``--out``, in the columns of
        ``format`` ("jsonl", "chat" or "preference"; "jsonl" also for what .parquet holds),
        or whole lineages with ``trajectories=True``. Nothing is written.

        >>> p = kbdata.open("data/sample").pairs("nvfp4_gemm", significant=True)
        >>> {"baseline_code", "improved_code", "speedup", "diff"} <= set(p.columns)
        True
        """
        if format not in ("jsonl", "chat", "preference"):
            raise UsageError(f"format {format!r}: the pairs' formats are 'jsonl', 'chat' and "
                             "'preference' (Parquet holds the 'jsonl' columns)")
        args = _flags(dict(problem=problem, user=user, runner=runner, since=since, until=until,
                           leaderboard=leaderboard, format=format, trajectories=trajectories,
                           all_pairs=all_pairs, significant=significant, same_epoch=same_epoch,
                           min_speedup=min_speedup, max_gap_days=max_gap_days,
                           link_similarity=link_similarity, lookback=lookback,
                           decontaminate=decontaminate,
                           decontaminate_column=decontaminate_column, ngram=ngram,
                           ngram_share=ngram_share,
                           decontaminate_threshold=decontaminate_threshold))
        return self._answer("pairs", args + _exclude(exclude_flagged), format_flag=False)

    def place(self, scores: Union[float, str, Iterable[Union[float, str]], None] = None, *,
              problem: Optional[str] = None, runner: Optional[str] = None,
              label: Optional[str] = None, results: Optional[str] = None,
              at: Optional[str] = None, epoch: Optional[int] = None, aggregate: bool = False,
              exclude_flagged: Union[bool, str, None] = None) -> Table:
        """Where a model's kernel would have ranked among the humans (kbdata place): ``scores``
        in seconds or with a unit ("15us"), or ``results=`` a file of them."""
        if scores is None:
            words: List[str] = []
        elif isinstance(scores, (str, int, float)):
            words = [str(scores)]
        else:
            words = [str(s) for s in scores]
        return self._answer("place", words + _flags(dict(
            problem=problem, runner=runner, label=label, results=results, at=at, epoch=epoch,
            aggregate=aggregate)) + _exclude(exclude_flagged))


def open(data: Optional[str] = None, *, threads: Optional[int] = None,
         skip_bad: bool = False) -> Dataset:
    """A data set: a folder of KernelBot configs, ``hf://datasets/OWNER/NAME[@REV]`` (the hub's
    cache, else read remotely), or None for $KBDATA_DATA, else the bundled sample.

    >>> kbdata.open("data/sample")
    kbdata.Dataset('data/sample')
    """
    return Dataset(data, threads=threads, skip_bad=skip_bad)


def pull(repo: str = "GPUMODE/kernelbot-data", *, revision: Optional[str] = None,
         config: Optional[Sequence[str]] = None, cache_dir: Optional[str] = None,
         jobs: Optional[int] = None) -> str:
    """Downloads a data set into the hub's cache (kbdata pull) and returns the snapshot folder,
    which ``kbdata.open()`` reads."""
    args = ["pull", repo] + _flags(dict(revision=revision, cache_dir=cache_dir, jobs=jobs))
    for name in config or []:
        args += ["--config", name]
    _core, out, messages = _kbdata.run(args, False, _progress())
    _warn(messages, stacklevel=2)
    return out.strip()


def dedup(input: str, out: str, *, fuzzy: bool = False, threshold: Optional[float] = None,
          shingle_bytes: Optional[int] = None, across_users: bool = False,
          emit_all: bool = False, threads: Optional[int] = None,
          exclude_flagged: Union[bool, str, None] = None) -> Table:
    """Deduplicates a submissions file into the flat file ``out`` (kbdata dedup): the
    platform's exact rule, or with ``fuzzy=True`` near-duplicate clusters too (MinHash LSH,
    Jaccard >= ``threshold``). Returns the summary: one row of what each pass counted
    (rows_in, exact_duplicates, near_duplicates, rows_out, ...) and its seconds. ``out``
    appears only when complete and never replaces ``input`` (the command's rules)."""
    args = ["dedup", os.fspath(input), os.fspath(out), "--fuzzy" if fuzzy else "--exact"]
    args += _flags(dict(threshold=threshold, shingle_bytes=shingle_bytes,
                        across_users=across_users, emit_all=emit_all, threads=threads))
    return Table(_run(args + _exclude(exclude_flagged), stacklevel=2))


def _temporary_folder_of(path: str) -> str:
    """A temporary folder holding `path` (a Parquet file) and its folder's leaderboards.parquet,
    as links: a data set of that one file."""
    folder = tempfile.mkdtemp(prefix="kbdata-")
    os.symlink(os.path.abspath(path), os.path.join(folder, os.path.basename(path)))
    leaderboards = os.path.join(os.path.dirname(os.path.abspath(path)), "leaderboards.parquet")
    if os.path.exists(leaderboards) and os.path.basename(path) != "leaderboards.parquet":
        os.symlink(leaderboards, os.path.join(folder, "leaderboards.parquet"))
    return folder


def _remove_folder(folder: str) -> None:
    shutil.rmtree(folder, ignore_errors=True)
