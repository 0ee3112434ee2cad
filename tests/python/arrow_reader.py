"""An Arrow C stream reader written from the specification (the C Data Interface and the C Stream
Interface, arrow.apache.org/docs/format/CDataInterface.html), with ctypes: what a consumer such as
pyarrow does with a kbdata capsule, checked field by field, so that the tests do not read kbdata's
export with kbdata's own code. Reads the formats kbdata exports: l, g, b, U, u, tsu:UTC, +L, +s."""

import ctypes
import datetime

UTC = datetime.timezone.utc
EPOCH = datetime.datetime(1970, 1, 1, tzinfo=UTC)


class ArrowSchema(ctypes.Structure):
    pass


ArrowSchema._fields_ = [
    ("format", ctypes.c_char_p),
    ("name", ctypes.c_char_p),
    ("metadata", ctypes.c_void_p),
    ("flags", ctypes.c_int64),
    ("n_children", ctypes.c_int64),
    ("children", ctypes.POINTER(ctypes.POINTER(ArrowSchema))),
    ("dictionary", ctypes.POINTER(ArrowSchema)),
    ("release", ctypes.CFUNCTYPE(None, ctypes.POINTER(ArrowSchema))),
    ("private_data", ctypes.c_void_p),
]


class ArrowArray(ctypes.Structure):
    pass


ArrowArray._fields_ = [
    ("length", ctypes.c_int64),
    ("null_count", ctypes.c_int64),
    ("offset", ctypes.c_int64),
    ("n_buffers", ctypes.c_int64),
    ("n_children", ctypes.c_int64),
    ("buffers", ctypes.POINTER(ctypes.c_void_p)),
    ("children", ctypes.POINTER(ctypes.POINTER(ArrowArray))),
    ("dictionary", ctypes.POINTER(ArrowArray)),
    ("release", ctypes.CFUNCTYPE(None, ctypes.POINTER(ArrowArray))),
    ("private_data", ctypes.c_void_p),
]


class ArrowArrayStream(ctypes.Structure):
    pass


ArrowArrayStream._fields_ = [
    ("get_schema", ctypes.CFUNCTYPE(ctypes.c_int, ctypes.POINTER(ArrowArrayStream),
                                    ctypes.POINTER(ArrowSchema))),
    ("get_next", ctypes.CFUNCTYPE(ctypes.c_int, ctypes.POINTER(ArrowArrayStream),
                                  ctypes.POINTER(ArrowArray))),
    ("get_last_error", ctypes.CFUNCTYPE(ctypes.c_char_p, ctypes.POINTER(ArrowArrayStream))),
    ("release", ctypes.CFUNCTYPE(None, ctypes.POINTER(ArrowArrayStream))),
    ("private_data", ctypes.c_void_p),
]

_get_pointer = ctypes.pythonapi.PyCapsule_GetPointer
_get_pointer.restype = ctypes.c_void_p
_get_pointer.argtypes = [ctypes.py_object, ctypes.c_char_p]
_capsule_name = ctypes.pythonapi.PyCapsule_GetName
_capsule_name.restype = ctypes.c_char_p
_capsule_name.argtypes = [ctypes.py_object]


def capsule_name(capsule):
    return _capsule_name(capsule).decode()


def stream_of(capsule):
    """The ArrowArrayStream a capsule holds (the capsule still owns it)."""
    return ArrowArrayStream.from_address(_get_pointer(capsule, b"arrow_array_stream"))


def _valid(array, i):
    bitmap = array.buffers[0]
    if not bitmap:
        assert array.null_count == 0
        return True
    byte = ctypes.c_uint8.from_address(bitmap + (array.offset + i) // 8).value
    return (byte >> ((array.offset + i) % 8)) & 1 == 1


def _values(schema, array):
    """The values of one (child) array, as Python objects, checking the layout as it goes."""
    fmt = schema.format.decode()
    n = array.length
    nulls = sum(1 for i in range(n) if not _valid(array, i))
    assert nulls == array.null_count, f"{schema.name}: null_count {array.null_count} != {nulls}"
    out = []
    if fmt in ("l", "tsu:UTC"):
        assert array.n_buffers == 2
        data = (ctypes.c_int64 * (array.offset + n)).from_address(array.buffers[1])
        for i in range(n):
            v = data[array.offset + i]
            if not _valid(array, i):
                out.append(None)
            elif fmt == "l":
                out.append(v)
            else:
                out.append(EPOCH + datetime.timedelta(microseconds=v))
    elif fmt == "g":
        assert array.n_buffers == 2
        data = (ctypes.c_double * (array.offset + n)).from_address(array.buffers[1])
        out = [data[array.offset + i] if _valid(array, i) else None for i in range(n)]
    elif fmt == "b":
        assert array.n_buffers == 2
        for i in range(n):
            bit = array.offset + i
            byte = ctypes.c_uint8.from_address(array.buffers[1] + bit // 8).value
            out.append(bool((byte >> (bit % 8)) & 1) if _valid(array, i) else None)
    elif fmt in ("U", "u"):  # large_string: int64 offsets; string: int32
        assert array.n_buffers == 3
        offset_type = ctypes.c_int64 if fmt == "U" else ctypes.c_int32
        offsets = (offset_type * (array.offset + n + 1)).from_address(array.buffers[1])
        assert all(offsets[i] <= offsets[i + 1] for i in range(array.offset, array.offset + n))
        for i in range(n):
            start, end = offsets[array.offset + i], offsets[array.offset + i + 1]
            if not _valid(array, i):
                out.append(None)
            else:
                out.append(ctypes.string_at(array.buffers[2] + start, end - start).decode())
    elif fmt == "+L":
        assert array.n_buffers == 2 and array.n_children == 1 and schema.n_children == 1
        offsets = (ctypes.c_int64 * (array.offset + n + 1)).from_address(array.buffers[1])
        items = _values(schema.children[0].contents, array.children[0].contents)
        for i in range(n):
            start, end = offsets[array.offset + i], offsets[array.offset + i + 1]
            out.append(items[start:end] if _valid(array, i) else None)
    else:
        raise AssertionError(f"{schema.name}: unexpected format {fmt!r}")
    return out


def read_batches(capsule, limit=None):
    """(column names, formats, a list of batches each a list of row dicts) of a stream capsule,
    reading at most `limit` batches (then leaving the stream unfinished, as a consumer that
    stops early does); releases what it reads."""
    stream = stream_of(capsule)
    assert stream.release, "a fresh stream is not released"
    schema = ArrowSchema()
    assert stream.get_schema(ctypes.byref(stream), ctypes.byref(schema)) == 0
    assert schema.format == b"+s"
    names = [schema.children[i].contents.name.decode() for i in range(schema.n_children)]
    formats = [schema.children[i].contents.format.decode() for i in range(schema.n_children)]
    batches = []
    while limit is None or len(batches) < limit:
        array = ArrowArray()
        status = stream.get_next(ctypes.byref(stream), ctypes.byref(array))
        if status != 0:
            error = stream.get_last_error(ctypes.byref(stream))
            schema.release(ctypes.byref(schema))
            raise OSError(status, (error or b"").decode())
        if not array.release:
            break  # the end of the stream
        assert array.n_children == schema.n_children
        columns = [_values(schema.children[c].contents, array.children[c].contents)
                   for c in range(schema.n_children)]
        batches.append([{names[c]: columns[c][r] for c in range(len(names))}
                        for r in range(array.length)])
        array.release(ctypes.byref(array))
        assert not array.release, "release() marks the array released"
    schema.release(ctypes.byref(schema))
    assert not schema.release, "release() marks the schema released"
    return names, formats, batches


def read_stream(capsule):
    """(column names, formats, rows as dicts) of a kbdata stream capsule, read whole
    (read_batches): every array it reads and the schema released, as a consumer must. The stream
    itself is the capsule's to release."""
    names, formats, batches = read_batches(capsule)
    return names, formats, [row for batch in batches for row in batch]
