"""The progress line of a long call: drawn on sys.stderr when it is a terminal (a pty here) or in
a notebook, never in a pipe or a log; KBDATA_PROGRESS=always/never decides otherwise."""

import os
import pty
import subprocess
import sys

import kbdata
from kbdata import _table

SCRIPT = """
import sys, warnings
import kbdata
warnings.simplefilter("ignore", kbdata.KbdataWarning)
ds = kbdata.open(sys.argv[1])
frame = ds.submissions(code=True).to_pandas()     # streamed
kept = len(ds.submissions(code=True))             # read whole
print(len(frame), kept)
"""


def run_python(data, stderr_to_pty, env_progress=None):
    """SCRIPT in a fresh interpreter: (stdout, what it wrote on stderr)."""
    env = dict(os.environ)
    env.pop("KBDATA_PROGRESS", None)
    if env_progress is not None:
        env["KBDATA_PROGRESS"] = env_progress
    if not stderr_to_pty:
        p = subprocess.run([sys.executable, "-c", SCRIPT, data], capture_output=True, env=env,
                           timeout=300)
        assert p.returncode == 0, p.stderr.decode()
        return p.stdout.decode(), p.stderr.decode()
    master, slave = pty.openpty()
    p = subprocess.Popen([sys.executable, "-c", SCRIPT, data], stdout=subprocess.PIPE,
                         stderr=slave, env=env)
    os.close(slave)
    chunks = []
    while True:
        try:
            chunk = os.read(master, 65536)
        except OSError:  # EIO: the child closed the terminal
            break
        if not chunk:
            break
        chunks.append(chunk)
    os.close(master)
    out = p.stdout.read().decode()
    assert p.wait(timeout=300) == 0, b"".join(chunks).decode(errors="replace")
    return out, b"".join(chunks).decode(errors="replace")


def test_a_terminal_gets_the_progress_line(medium):
    out, err = run_python(medium, stderr_to_pty=True)
    rows, kept = out.split()
    assert rows == kept and int(rows) > 0
    assert "\rkbdata: submissions: " in err and "rows read" in err
    # Erased at the end: the last thing drawn is blanks and a carriage return.
    assert err.rstrip(" ").endswith("\r")


def test_a_pipe_gets_none(medium):
    out, err = run_python(medium, stderr_to_pty=False)
    assert "rows read" not in err and "\r" not in err
    out, err = run_python(medium, stderr_to_pty=False, env_progress="always")
    assert "\rkbdata: submissions: " in err
    out, err = run_python(medium, stderr_to_pty=True, env_progress="never")
    assert "rows read" not in err


def test_a_notebook_gets_it(monkeypatch):
    # An IPython kernel (its shell class is ZMQInteractiveShell): progress on, whatever stderr is.
    class ZMQInteractiveShell:
        pass

    class IPython:
        @staticmethod
        def get_ipython():
            return ZMQInteractiveShell()

    monkeypatch.delenv("KBDATA_PROGRESS", raising=False)
    monkeypatch.setitem(sys.modules, "IPython", IPython)
    assert _table._progress()
    monkeypatch.setitem(sys.modules, "IPython", None)
    monkeypatch.delitem(sys.modules, "IPython")
    assert not _table._progress()  # pytest's captured stderr is no terminal
    assert kbdata is not None


DEDUP_SCRIPT = """
import sys, warnings
import kbdata
warnings.simplefilter("ignore", kbdata.KbdataWarning)
summary = kbdata.dedup(sys.argv[1], sys.argv[2], fuzzy=True, threads=2)
print(len(summary))
"""


def test_a_librarys_progress_reaches_the_modules_line(sample, tmp_path):
    # dedup reports its passes through the one progress callback, some of them from its workers;
    # the module draws them as the command line would.
    env = dict(os.environ, KBDATA_PROGRESS="always")
    source = os.path.join(sample, "nvidia_nvfp4_submissions.parquet")
    p = subprocess.run([sys.executable, "-c", DEDUP_SCRIPT, source, str(tmp_path / "out.parquet")],
                       capture_output=True, env=env, timeout=300)
    assert p.returncode == 0, p.stderr.decode()
    err = p.stderr.decode()
    assert "\rkbdata: dedup: reading metadata: " in err
    assert "\rkbdata: dedup: hashing code: " in err
    env["KBDATA_PROGRESS"] = "never"
    p = subprocess.run([sys.executable, "-c", DEDUP_SCRIPT, source, str(tmp_path / "again.parquet")],
                       capture_output=True, env=env, timeout=300)
    assert p.returncode == 0 and "\r" not in p.stderr.decode()
