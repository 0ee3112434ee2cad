// kbdata._kbdata: the Python module's extension (docs/python.md). Glue only: a command line run
// embedded (cli/embedded.h) with the GIL released and Ctrl-C checked, its answer as a Table
// (a result::ResultTable shared with every Arrow stream made of it), the Arrow C stream as a
// PyCapsule (arrow/export.h), the rows as Python objects or numpy arrays, and kbdata's errors as
// the Python exceptions of kbdata/_errors.py. The API users see is the pure-Python layer
// (python/kbdata/__init__.py).
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <new>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>
#include <variant>
#include <vector>

#include "arrow/export.h"
#include "cli/embedded.h"
#include "common/error.h"
#include "dataset/registry.h"
#include "report/writer.h"
#include "result/table.h"

namespace py = pybind11;

namespace kbdata::python {
namespace {

// Thrown by the Ctrl-C check out of kbdata's work; Python's error indicator (KeyboardInterrupt,
// set by PyErr_CheckSignals) is raised once the GIL is held again.
struct Interrupted : std::exception {
  [[nodiscard]] const char* what() const noexcept override { return "interrupted"; }
};

// A stream in memory for a command's stdout or stderr (open_memstream), closed and read once.
class MemoryStream {
 public:
  MemoryStream() : file_(::open_memstream(&data_, &size_)) {
    if (file_ == nullptr) throw IoError("cannot make a stream in memory");
  }
  ~MemoryStream() {
    if (file_ != nullptr) std::fclose(file_);
    std::free(data_);
  }
  MemoryStream(const MemoryStream&) = delete;
  MemoryStream& operator=(const MemoryStream&) = delete;

  [[nodiscard]] std::FILE* file() const { return file_; }
  [[nodiscard]] std::string text() {
    std::fflush(file_);
    return std::string(data_ == nullptr ? "" : data_, size_);
  }

 private:
  char* data_ = nullptr;
  size_t size_ = 0;
  std::FILE* file_;
};

// A result table as Python sees it: immutable once made (its batches sealed), shared by the
// streams exported from it.
class Table {
 public:
  explicit Table(result::ResultTable table, std::string messages)
      : table_(std::make_shared<result::ResultTable>(std::move(table))),
        messages_(std::move(messages)) {
    (void)table_->batches();  // seals the open batch: nothing changes the table from now on
    for (const auto& batch : table_->batches()) starts_.push_back(starts_.back() + batch->rows);
  }

  [[nodiscard]] int64_t num_rows() const { return table_->rows(); }
  [[nodiscard]] result::ResultTable& table() const { return *table_; }
  [[nodiscard]] const std::string& messages() const { return messages_; }

  // The batch holding row `row` and the row's index in it.
  [[nodiscard]] std::pair<const result::Batch*, int64_t> locate(int64_t row) const {
    const auto& batches = table_->batches();
    const auto it = std::upper_bound(starts_.begin(), starts_.end(), row);
    const size_t b = static_cast<size_t>(it - starts_.begin()) - 1;
    return {batches[b].get(), row - starts_[b]};
  }

 private:
  std::shared_ptr<result::ResultTable> table_;
  std::string messages_;
  std::vector<int64_t> starts_ = {0};  // the first row of each batch
};

// Python objects made once: datetime's UTC epoch and timedelta, for TIMESTAMP values.
struct TimeObjects {
  py::object epoch;
  py::object timedelta;
};

const TimeObjects& time_objects() {
  static const TimeObjects* objects = [] {
    py::module_ datetime = py::module_::import("datetime");
    py::object utc = datetime.attr("timezone").attr("utc");
    return new TimeObjects{datetime.attr("datetime")(1970, 1, 1, 0, 0, 0, 0, utc),
                           datetime.attr("timedelta")};
  }();
  return *objects;
}

py::object value_object(const result::Value& value, result::ColumnType type) {
  using result::ColumnType;
  if (std::holds_alternative<std::monostate>(value)) return py::none();
  if (const auto* i = std::get_if<int64_t>(&value)) {
    if (type == ColumnType::TIMESTAMP) {
      const TimeObjects& t = time_objects();
      return t.epoch + t.timedelta(0, 0, *i);
    }
    return py::int_(*i);
  }
  if (const auto* d = std::get_if<double>(&value)) return py::float_(*d);
  if (const auto* b = std::get_if<bool>(&value)) return py::bool_(*b);
  const std::string& s = std::get<std::string>(value);
  PyObject* text = PyUnicode_DecodeUTF8(s.data(), static_cast<Py_ssize_t>(s.size()), "replace");
  if (text == nullptr) throw py::error_already_set();
  return py::reinterpret_steal<py::object>(text);
}

py::object cell_object(const result::Cell& cell, const result::Column& column) {
  if (const auto* list = std::get_if<result::List>(&cell)) {
    py::list items(list->size());
    for (size_t i = 0; i < list->size(); ++i) items[i] = value_object((*list)[i], column.type);
    return items;
  }
  return value_object(result::to_value(cell), column.type);
}

// Rows [start, stop) as dicts of the columns' names.
py::list rows_objects(const Table& t, int64_t start, int64_t stop) {
  const std::vector<result::Column>& columns = t.table().columns();
  std::vector<py::str> names;
  for (const result::Column& c : columns) names.emplace_back(c.name);
  start = std::clamp<int64_t>(start, 0, t.num_rows());
  stop = std::clamp<int64_t>(stop, start, t.num_rows());
  py::list rows(static_cast<size_t>(stop - start));
  for (int64_t r = start; r < stop; ++r) {
    const auto [batch, i] = t.locate(r);
    py::dict row;
    for (size_t c = 0; c < columns.size(); ++c) {
      row[names[c]] = cell_object(batch->columns[c].at(i), columns[c]);
    }
    rows[static_cast<size_t>(r - start)] = std::move(row);
  }
  return rows;
}

// One column for pandas without pyarrow: (values, mask) numpy arrays for numbers, booleans and
// timestamps (µs), else a list of Python objects (None for null).
py::object column_arrays(const Table& t, size_t c) {
  using result::ColumnType;
  const result::Column& column = t.table().columns().at(c);
  const auto& batches = t.table().batches();
  const auto n = static_cast<py::ssize_t>(t.num_rows());
  const bool numeric =
      !column.list && column.type != ColumnType::STRING && column.type != ColumnType::JSON;
  if (!numeric) {
    py::list objects(static_cast<size_t>(n));
    size_t k = 0;
    for (const auto& batch : batches) {
      const result::ColumnData& data = batch->columns[c];
      for (int64_t i = 0; i < batch->rows; ++i) objects[k++] = cell_object(data.at(i), column);
    }
    return objects;
  }
  py::array_t<bool> mask(n);
  bool* m = mask.mutable_data();
  auto valid = [](const result::Values& v, int64_t i) {
    return v.validity().empty() || ((v.validity()[static_cast<size_t>(i >> 3)] >> (i & 7)) & 1);
  };
  py::ssize_t k = 0;
  if (column.type == ColumnType::BOOL) {
    py::array_t<bool> values(n);
    bool* out = values.mutable_data();
    for (const auto& batch : batches) {
      const result::Values& v = batch->columns[c].values();
      for (int64_t i = 0; i < v.size(); ++i, ++k) {
        m[k] = !valid(v, i);
        out[k] = (v.bits()[static_cast<size_t>(i >> 3)] >> (i & 7)) & 1;
      }
    }
    return py::make_tuple(values, mask);
  }
  if (column.type == ColumnType::INT64 || column.type == ColumnType::TIMESTAMP) {
    py::array_t<int64_t> values(n);
    int64_t* out = values.mutable_data();
    for (const auto& batch : batches) {
      const result::Values& v = batch->columns[c].values();
      for (int64_t i = 0; i < v.size(); ++i, ++k) {
        m[k] = !valid(v, i);
        out[k] = v.ints()[static_cast<size_t>(i)];
      }
    }
    return py::make_tuple(values, mask);
  }
  py::array_t<double> values(n);
  double* out = values.mutable_data();
  for (const auto& batch : batches) {
    const result::Values& v = batch->columns[c].values();
    for (int64_t i = 0; i < v.size(); ++i, ++k) {
      m[k] = !valid(v, i);
      out[k] = v.doubles()[static_cast<size_t>(i)];
    }
  }
  return py::make_tuple(values, mask);
}

const char* type_name(result::ColumnType type) {
  switch (type) {
    case result::ColumnType::INT64:
      return "int64";
    case result::ColumnType::SCORE:
      return "score";
    case result::ColumnType::FACTOR:
      return "factor";
    case result::ColumnType::DOUBLE:
      return "double";
    case result::ColumnType::BOOL:
      return "bool";
    case result::ColumnType::STRING:
      return "string";
    case result::ColumnType::TIMESTAMP:
      return "timestamp";
    case result::ColumnType::JSON:
      return "json";
  }
  return "string";
}

void destroy_stream_capsule(PyObject* capsule) {
  auto* stream =
      static_cast<ArrowArrayStream*>(PyCapsule_GetPointer(capsule, "arrow_array_stream"));
  if (stream == nullptr) {
    PyErr_Clear();
    return;
  }
  if (stream->release != nullptr) stream->release(stream);
  std::unique_ptr<ArrowArrayStream> owned(stream);  // made by stream_capsule
}

// The number of fields of a requested schema (a struct), from its capsule.
int64_t requested_fields(const py::object& requested) {
  auto* schema = static_cast<ArrowSchema*>(PyCapsule_GetPointer(requested.ptr(), "arrow_schema"));
  if (schema == nullptr) throw py::error_already_set();
  return schema->n_children;
}

// A fresh Arrow C stream of the table in an "arrow_array_stream" capsule. `requested_schema` (an
// "arrow_schema" capsule or None) may ask for other representations, which kbdata does not offer:
// the default schema is given (as the PyCapsule protocol allows), unless its number of fields
// differs, which raises ValueError.
py::object stream_capsule(const Table& t, const py::object& requested_schema) {
  if (!requested_schema.is_none()) {
    const int64_t fields = requested_fields(requested_schema);
    if (fields != static_cast<int64_t>(t.table().columns().size())) {
      throw py::value_error("requested_schema has " + std::to_string(fields) +
                            " fields; the table has " + std::to_string(t.table().columns().size()));
    }
  }
  auto stream = std::make_unique<ArrowArrayStream>();
  arrow::export_stream(t.table(), stream.get());
  PyObject* capsule = PyCapsule_New(stream.get(), "arrow_array_stream", &destroy_stream_capsule);
  if (capsule == nullptr) {
    stream->release(stream.get());
    throw py::error_already_set();
  }
  (void)stream.release();  // the capsule owns it now (destroy_stream_capsule)
  return py::reinterpret_steal<py::object>(capsule);
}

// The first `n` rows (all when fewer) as a table of their own, with the same sections, notes,
// summary lines and rule.
Table head(const Table& t, int64_t n) {
  result::ResultTable& in = t.table();
  result::ResultTable out(in.columns(), in.rule());
  n = std::clamp<int64_t>(n, 0, in.rows());
  size_t section = 0;
  const auto& sections = in.sections();
  for (int64_t r = 0; r < n; ++r) {
    while (section < sections.size() && sections[section].first_row <= r) {
      out.section(sections[section++].title);
    }
    const auto [batch, i] = t.locate(r);
    std::vector<result::Cell> cells;
    for (const result::ColumnData& column : batch->columns) cells.push_back(column.at(i));
    const result::ResultTable::Leaderboard* lb = in.row_leaderboard(r);
    if (lb != nullptr) {
      out.add_row(std::move(cells), lb->id, lb->problem_name);
    } else {
      out.add_row(std::move(cells));
    }
  }
  for (const result::ResultTable::Leaderboard& lb : in.leaderboards()) {
    out.leaderboard_shown(lb.id, lb.problem_name);
  }
  for (const std::string& line : in.summary_lines()) out.summary(line);
  return Table(std::move(out), "");
}

// The table as kbdata's table format shows it (notes first, scores in µs/ms/s).
std::string render(const Table& t) {
  return report::rendered_text([&](std::FILE* out, std::FILE* notes) {
    result::ResultTable& table = t.table();
    report::Writer writer(report::Format::TABLE, table.columns(), out, notes, std::nullopt,
                          table.rule());
    writer.write(table);
    writer.finish();
  });
}

// Runs `args` embedded: the GIL released, Ctrl-C checked on this thread. Returns the answer (or
// None for a command without one), what the command wrote on stdout and on stderr.
py::tuple run(const std::vector<std::string>& args, bool want_answer) {
  cli::EmbeddedRun embedded;
  MemoryStream out;
  MemoryStream err;
  embedded.out = out.file();
  embedded.err = err.file();
  const std::thread::id caller = std::this_thread::get_id();
  embedded.check = [caller] {
    if (std::this_thread::get_id() != caller) return;
    py::gil_scoped_acquire gil;
    if (PyErr_CheckSignals() != 0) throw Interrupted();
  };
  std::optional<result::ResultTable> answer;
  try {
    py::gil_scoped_release release;
    if (want_answer) {
      answer.emplace(cli::answer_command_line(args, embedded));
    } else {
      (void)cli::run_embedded(args, embedded);
    }
  } catch (const Interrupted&) {
    // The exception PyErr_CheckSignals raised: Ctrl-C's KeyboardInterrupt says what it stopped.
    if (PyErr_ExceptionMatches(PyExc_KeyboardInterrupt) != 0) {
      PyErr_Clear();
      const std::string what = "kbdata " + (args.empty() ? std::string() : args.front());
      PyErr_SetString(PyExc_KeyboardInterrupt, (what + ": interrupted").c_str());
    }
    throw py::error_already_set();
  }
  std::string messages = err.text();
  if (!answer) return py::make_tuple(py::none(), out.text(), messages);
  return py::make_tuple(Table(std::move(*answer), messages), out.text(), messages);
}

// The classes of kbdata/_errors.py, raised for kbdata's errors.
void raise(const char* class_name, const char* message) {
  py::object type = py::module_::import("kbdata._errors").attr(class_name);
  PyErr_SetString(type.ptr(), message);
}

}  // namespace
}  // namespace kbdata::python

PYBIND11_MODULE(_kbdata, m) {
  using kbdata::python::Table;
  namespace kp = kbdata::python;
  m.doc() = "kbdata's extension: command lines run embedded, result tables, Arrow streams";

  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const kbdata::UsageError& e) {
      kp::raise("UsageError", e.what());
    } catch (const kbdata::NotFoundError& e) {
      kp::raise("NotFoundError", e.what());
    } catch (const kbdata::NetworkError& e) {
      kp::raise("NetworkError", e.what());
    } catch (const kbdata::IoError& e) {
      kp::raise("FileError", e.what());
    } catch (const kbdata::ResourceError& e) {
      kp::raise("ResourceError", e.what());
    } catch (const kbdata::Error& e) {
      kp::raise("DataError", e.what());  // FormatError, TruncatedError, UnsupportedError
    } catch (const std::logic_error& e) {
      kp::raise("InternalError", (std::string("internal error: ") + e.what()).c_str());
    }
  });

  py::class_<Table>(m, "Table")
      .def_property_readonly("num_rows", &Table::num_rows)
      .def_property_readonly("column_names",
                             [](const Table& t) {
                               std::vector<std::string> names;
                               for (const auto& c : t.table().columns()) names.push_back(c.name);
                               return names;
                             })
      .def_property_readonly("column_types",
                             [](const Table& t) {
                               std::vector<std::string> types;
                               for (const auto& c : t.table().columns()) {
                                 types.push_back(std::string(c.list ? "list<" : "") +
                                                 kp::type_name(c.type) + (c.list ? ">" : ""));
                               }
                               return types;
                             })
      .def_property_readonly("rule", [](const Table& t) { return t.table().rule(); })
      .def_property_readonly("messages", &Table::messages)
      .def_property_readonly("summary", [](const Table& t) { return t.table().summary_lines(); })
      .def_property_readonly("sections",
                             [](const Table& t) {
                               py::list sections;
                               for (const auto& s : t.table().sections()) {
                                 sections.append(py::make_tuple(s.title, s.first_row));
                               }
                               return sections;
                             })
      .def_property_readonly("notes",
                             [](const Table& t) {
                               // The reliability notes of the leaderboards the table shows, by
                               // leaderboard id.
                               py::dict notes;
                               for (const auto& lb : t.table().leaderboards()) {
                                 const std::string_view note = kbdata::dataset::note_for(lb.id);
                                 if (!note.empty())
                                   notes[py::int_(lb.id)] = py::str(note.data(), note.size());
                               }
                               return notes;
                             })
      .def("rows", &kp::rows_objects, py::arg("start"), py::arg("stop"))
      .def("column_arrays", &kp::column_arrays, py::arg("index"))
      .def("head", &kp::head, py::arg("n"))
      .def("render", &kp::render)
      .def("__arrow_c_stream__", &kp::stream_capsule, py::arg("requested_schema") = py::none());

  m.def("run", &kp::run, py::arg("args"), py::arg("want_answer") = true,
        "Runs a kbdata command line embedded: (answer Table or None, stdout text, stderr text).");
}
