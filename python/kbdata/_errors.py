"""kbdata's exceptions: each carries the message the kbdata command prints (without "kbdata: "
and the help hint; an option the libraries' checks name is spelled as its keyword, threshold=2,
not as the flag), and also derives from the built-in exception a Python caller expects."""


class Error(Exception):
    """Any error kbdata reports."""


class UsageError(Error, ValueError):
    """A wrong argument: an unknown problem or field, a bad value (the command line's exit 2)."""


class DataError(Error):
    """Data kbdata cannot read: a corrupt or truncated file, an unsupported feature."""


class NotFoundError(Error, LookupError):
    """What was asked for is not in the data (a submission id, a user)."""


class FileError(Error, OSError):
    """A file or folder that cannot be read or written."""


class NetworkError(FileError, ConnectionError):
    """The Hugging Face hub could not be reached or refused."""


class ResourceError(Error, MemoryError):
    """The system refused memory or a thread."""


class InternalError(Error, RuntimeError):
    """A bug in kbdata (please report it with the call that raised it)."""


class KbdataWarning(UserWarning):
    """What kbdata says besides its answer: an empty result explained, the bundled sample used,
    rows left out, files skipped."""
