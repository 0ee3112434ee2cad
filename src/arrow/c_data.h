// The Arrow C Data Interface and C Stream Interface: the structures two libraries in one process
// exchange Arrow data through, as the Arrow specification defines them (its "C data interface"
// and "C stream interface" pages). Their layout is an ABI: every field, in this order, exactly.
// The guards are the specification's own, so that a consumer that declares them too (DuckDB,
// nanoarrow, pyarrow's headers) and includes this file compiles.
#pragma once

#include <cstdint>

extern "C" {

#ifndef ARROW_C_DATA_INTERFACE
#define ARROW_C_DATA_INTERFACE

#define ARROW_FLAG_DICTIONARY_ORDERED 1
#define ARROW_FLAG_NULLABLE 2
#define ARROW_FLAG_MAP_KEYS_SORTED 4

// A type: a format string ("l" int64, "+s" struct, ...), a name, binary metadata (int32 count,
// then int32-length-prefixed keys and values), flags, children (the fields of a nested type).
struct ArrowSchema {
  const char* format;
  const char* name;
  const char* metadata;
  int64_t flags;
  int64_t n_children;
  struct ArrowSchema** children;
  struct ArrowSchema* dictionary;
  void (*release)(struct ArrowSchema*);  // NULL once released
  void* private_data;
};

// The data of an array: its length, null count, offset, buffers (validity bitmap first) and
// children, laid out as the Arrow columnar format says for its type.
struct ArrowArray {
  int64_t length;
  int64_t null_count;
  int64_t offset;
  int64_t n_buffers;
  int64_t n_children;
  const void** buffers;
  struct ArrowArray** children;
  struct ArrowArray* dictionary;
  void (*release)(struct ArrowArray*);  // NULL once released
  void* private_data;
};

#endif  // ARROW_C_DATA_INTERFACE

#ifndef ARROW_C_STREAM_INTERFACE
#define ARROW_C_STREAM_INTERFACE

// A stream of arrays of one schema, pulled one at a time: get_next gives an array whose release
// is NULL at the end. The int callbacks return 0, or an errno value with get_last_error's text.
struct ArrowArrayStream {
  int (*get_schema)(struct ArrowArrayStream*, struct ArrowSchema* out);
  int (*get_next)(struct ArrowArrayStream*, struct ArrowArray* out);
  const char* (*get_last_error)(struct ArrowArrayStream*);
  void (*release)(struct ArrowArrayStream*);  // NULL once released
  void* private_data;
};

#endif  // ARROW_C_STREAM_INTERFACE

}  // extern "C"
