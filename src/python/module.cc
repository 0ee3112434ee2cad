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
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <exception>
#include <memory>
#include <mutex>
#include <new>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <variant>
#include <vector>

#include "arrow/export.h"
#include "cli/embedded.h"
#include "common/error.h"
#include "dataset/registry.h"
#include "dataset/submission.h"
#include "query/progression.h"
#include "query/top.h"
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

using Batches = std::vector<std::shared_ptr<const result::Batch>>;

// One column of `batches` for pandas without pyarrow: (values, mask) numpy arrays for numbers,
// booleans and timestamps (µs), else a list of Python objects (None for null).
py::object batches_column_arrays(const result::Column& column, const Batches& batches, size_t c) {
  using result::ColumnType;
  int64_t rows = 0;
  for (const auto& batch : batches) rows += batch->rows;
  const auto n = static_cast<py::ssize_t>(rows);
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

py::object column_arrays(const Table& t, size_t c) {
  return batches_column_arrays(t.table().columns().at(c), t.table().batches(), c);
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

// The string layout a consumer's `requested_schema` (an "arrow_schema" capsule, or None) asks
// for, checked against `columns`: the same number of fields, each of the format kbdata gives, but
// that a string column (or a list of strings) may be "U" (large_string, kbdata's own) or "u"
// (string); every string column the same. Anything else raises ValueError saying what is offered.
arrow::StringLayout requested_layout(const std::vector<result::Column>& columns,
                                     const py::object& requested) {
  if (requested.is_none()) return arrow::StringLayout::LARGE_STRING;
  auto* schema = static_cast<ArrowSchema*>(PyCapsule_GetPointer(requested.ptr(), "arrow_schema"));
  if (schema == nullptr) throw py::error_already_set();
  if (schema->n_children != static_cast<int64_t>(columns.size())) {
    throw py::value_error("requested_schema has " + std::to_string(schema->n_children) +
                          " fields; the table has " + std::to_string(columns.size()));
  }
  std::optional<arrow::StringLayout> layout;
  for (size_t i = 0; i < columns.size(); ++i) {
    const result::Column& column = columns[i];
    const ArrowSchema* field = schema->children[i];
    if (column.list) {
      if (std::string_view(field->format) != "+L" || field->n_children != 1) {
        throw py::value_error("requested_schema: field " + std::to_string(i) + " ('" + column.name +
                              "') is a large_list (+L); '" + field->format + "' is not offered");
      }
      field = field->children[0];
    }
    const std::string_view format = field->format;
    const bool text =
        column.type == result::ColumnType::STRING || column.type == result::ColumnType::JSON;
    ArrowSchema ours{};
    arrow::export_schema({result::Column{column.name, column.type}}, "", &ours);
    const std::string own = ours.children[0]->format;
    ours.release(&ours);
    if (text && (format == "U" || format == "u")) {
      const auto wanted =
          format == "u" ? arrow::StringLayout::STRING : arrow::StringLayout::LARGE_STRING;
      if (layout && *layout != wanted) {
        throw py::value_error(
            "requested_schema asks for string (u) in some columns and large_string (U) in "
            "others; kbdata gives every string column one way");
      }
      layout = wanted;
      continue;
    }
    if (format == own) continue;
    std::string offered = text ? "large_string (U) or string (u)" : "'" + own + "'";
    if (text && format == "vu") offered += "; string_view (vu) is not offered";
    throw py::value_error("requested_schema: field " + std::to_string(i) + " ('" + column.name +
                          "') is offered as " + offered + ", not '" + std::string(format) + "'");
  }
  return layout.value_or(arrow::StringLayout::LARGE_STRING);
}

// `stream` (filled) in an "arrow_array_stream" capsule, which owns it from now on.
py::object stream_capsule_of(std::unique_ptr<ArrowArrayStream> stream) {
  PyObject* capsule = PyCapsule_New(stream.get(), "arrow_array_stream", &destroy_stream_capsule);
  if (capsule == nullptr) {
    stream->release(stream.get());
    throw py::error_already_set();
  }
  (void)stream.release();  // the capsule owns it now (destroy_stream_capsule)
  return py::reinterpret_steal<py::object>(capsule);
}

// A fresh Arrow C stream of the table in an "arrow_array_stream" capsule, in the layout
// `requested_schema` asks for (requested_layout).
py::object stream_capsule(const Table& t, const py::object& requested_schema) {
  const arrow::StringLayout layout = requested_layout(t.table().columns(), requested_schema);
  auto stream = std::make_unique<ArrowArrayStream>();
  arrow::export_stream(t.table(), stream.get(), layout);
  return stream_capsule_of(std::move(stream));
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
                          table.rule(), 1);
    writer.write(table);
    writer.finish();
  });
}

// The progress line of a call, drawn on Python's sys.stderr (a terminal, or a notebook's output)
// by a thread that holds the GIL: kbdata's thread posts the latest line, show() draws it. The
// line is padded over the previous one instead of erased with an escape a notebook lacks.
class ProgressLine {
 public:
  void post(const std::string& line) {
    const std::lock_guard<std::mutex> lock(mutex_);
    pending_ = line;
    posted_ = true;
  }
  // With the GIL held. Best effort: a failing sys.stderr does not fail the call.
  void show() {
    std::string line;
    {
      const std::lock_guard<std::mutex> lock(mutex_);
      if (!posted_) return;
      line = std::move(pending_);
      posted_ = false;
    }
    const std::string erase = "\x1b[K";
    for (size_t at = line.find(erase); at != std::string::npos; at = line.find(erase)) {
      line.erase(at, erase.size());
    }
    const size_t visible = line.size() - (line.empty() || line.front() != '\r' ? 0 : 1);
    if (visible < shown_) line += std::string(shown_ - visible, ' ');
    if (visible == 0) line += "\r";
    shown_ = visible;
    try {
      py::object err = py::module_::import("sys").attr("stderr");
      if (err.is_none()) return;
      err.attr("write")(py::str(line));
      err.attr("flush")();
    } catch (const py::error_already_set&) {
      PyErr_Clear();
    }
  }

 private:
  std::mutex mutex_;
  std::string pending_;
  bool posted_ = false;
  size_t shown_ = 0;  // the visible length of the line drawn last
};

// Sets KeyboardInterrupt (Ctrl-C) to say what it stopped, and throws it to Python.
[[noreturn]] void raise_interrupted(const std::vector<std::string>& args) {
  if (PyErr_Occurred() == nullptr || PyErr_ExceptionMatches(PyExc_KeyboardInterrupt) != 0) {
    PyErr_Clear();
    const std::string what = "kbdata " + (args.empty() ? std::string() : args.front());
    PyErr_SetString(PyExc_KeyboardInterrupt, (what + ": interrupted").c_str());
  }
  throw py::error_already_set();
}

// Runs `args` embedded: the GIL released, Ctrl-C checked on this thread, the progress line drawn
// when `progress`. Returns the answer (or None for a command without one), what the command wrote
// on stdout and on stderr. `part` names the table of an answer of several (configs).
py::tuple run(const std::vector<std::string>& args, bool want_answer, bool progress,
              const std::string& part) {
  cli::EmbeddedRun embedded;
  embedded.part = part;
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
  ProgressLine line;
  if (progress) {
    embedded.progress = [&line](const std::string& text) {
      line.post(text);
      py::gil_scoped_acquire gil;
      line.show();
    };
  }
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
    raise_interrupted(args);
  }
  std::string messages = err.text();
  if (!answer) return py::make_tuple(py::none(), out.text(), messages);
  return py::make_tuple(Table(std::move(*answer), messages), out.text(), messages);
}

// Thrown on kbdata's thread when a RowStream is closed before its command ends.
struct Cancelled : std::exception {
  [[nodiscard]] const char* what() const noexcept override { return "cancelled"; }
};

// A command run on a thread of its own whose answer comes batch by batch as it is made
// (cli::EmbeddedRun::stream: the listing of submissions hands on each batch its scan fills; a
// command that does not stream hands its whole answer at the end). Python takes the batches with
// next() (to_pandas, Arrow consumers), so that the selection is never held whole: at most
// kQueued batches wait between kbdata's thread and the consumer, who waits with the GIL
// released, checking for Ctrl-C and drawing the progress line every kPoll. kbdata's thread never
// takes the GIL. close() (and the destructor) stops the command and joins its thread.
class RowStream {
 public:
  RowStream(std::vector<std::string> args, bool progress) : args_(std::move(args)) {
    thread_ = std::thread([this, progress] { produce(progress); });
  }
  ~RowStream() { close(); }
  RowStream(const RowStream&) = delete;
  RowStream& operator=(const RowStream&) = delete;

  // Waits for the answer's columns (the command's checks passed); throws the command's error.
  void wait_columns() {
    wait([this] { return columns_.has_value() || done_; });
    const std::lock_guard<std::mutex> lock(mutex_);
    if (columns_) return;
    if (error_) std::rethrow_exception(error_);
    throw std::logic_error("'" + args_.front() + "' gave no answer table");
  }
  [[nodiscard]] const std::vector<result::Column>& columns() {
    wait_columns();
    return *columns_;
  }
  [[nodiscard]] const std::string& rule() {
    wait_columns();
    return rule_;
  }

  // The next batch, or nullptr after the last; throws the command's error.
  std::shared_ptr<const result::Batch> next() {
    wait([this] { return !queue_.empty() || done_; });
    {
      const std::lock_guard<std::mutex> lock(mutex_);
      if (!queue_.empty()) {
        std::shared_ptr<const result::Batch> batch = std::move(queue_.front());
        queue_.pop_front();
        changed_.notify_all();
        return batch;
      }
    }
    // The end: the progress line's last word (its erasure) drawn, or the command's error.
    if (Py_IsInitialized() != 0 && PyGILState_Check() != 0) progress_line_.show();
    const std::lock_guard<std::mutex> lock(mutex_);
    if (error_) std::rethrow_exception(error_);
    return nullptr;
  }

  // After the last batch: the answer without its rows (notes, summary), what the command said.
  [[nodiscard]] result::ResultTable& header() {
    if (!header_) throw std::logic_error("the stream has not ended");
    return *header_;
  }
  [[nodiscard]] const std::string& messages() const { return messages_; }

  // Stops the command if it still runs and waits for its thread (with the GIL released when
  // this thread holds it). The batches taken stay valid.
  void close() {
    {
      const std::lock_guard<std::mutex> lock(mutex_);
      cancelled_ = true;
      changed_.notify_all();
    }
    if (!thread_.joinable()) return;
    if (Py_IsInitialized() != 0 && PyGILState_Check() != 0) {
      py::gil_scoped_release release;
      thread_.join();
    } else {
      thread_.join();
    }
  }

  [[nodiscard]] const std::vector<std::string>& args() const { return args_; }
  // Whether the command has ended (a stream not read ahead waits for its consumer).
  [[nodiscard]] bool finished() {
    const std::lock_guard<std::mutex> lock(mutex_);
    return done_;
  }

 private:
  static constexpr size_t kQueued = 2;
  static constexpr auto kPoll = std::chrono::milliseconds(100);

  // Waits until `ready` (under the lock). A thread that holds the GIL releases it meanwhile and,
  // every kPoll, draws the progress line and checks for Ctrl-C: then the command is stopped and
  // KeyboardInterrupt raised.
  template <typename Ready>
  void wait(Ready ready) {
    const bool gil = Py_IsInitialized() != 0 && PyGILState_Check() != 0;
    for (;;) {
      {
        std::optional<py::gil_scoped_release> released;
        if (gil) released.emplace();
        std::unique_lock<std::mutex> lock(mutex_);
        if (changed_.wait_for(lock, kPoll, ready)) return;
      }
      if (!gil) continue;
      progress_line_.show();
      if (PyErr_CheckSignals() != 0) {
        {
          const std::lock_guard<std::mutex> lock(mutex_);
          cancelled_ = true;
          changed_.notify_all();
        }
        raise_interrupted(args_);
      }
    }
  }

  // kbdata's thread: runs the command, handing each batch on.
  void produce(bool progress) {
    std::exception_ptr error;
    std::optional<result::ResultTable> answer;
    std::string messages;
    try {
      MemoryStream out;
      MemoryStream err;
      cli::EmbeddedRun embedded;
      embedded.out = out.file();
      embedded.err = err.file();
      embedded.check = [this] {
        if (cancelled_) throw Cancelled();
      };
      embedded.stream = [this](result::ResultTable& table) { hand_on(table); };
      if (progress) {
        embedded.progress = [this](const std::string& line) { progress_line_.post(line); };
      }
      try {
        answer.emplace(cli::answer_command_line(args_, embedded));
        (void)answer->batches();  // seals the last rows
        hand_on(*answer);
      } catch (...) {
        error = std::current_exception();
      }
      messages = err.text();
    } catch (...) {
      error = std::current_exception();
    }
    const std::lock_guard<std::mutex> lock(mutex_);
    error_ = error;
    header_ = std::move(answer);
    messages_ = std::move(messages);
    done_ = true;
    changed_.notify_all();
  }

  // On kbdata's thread: publishes the columns, then queues the table's sealed batches, waiting
  // while kQueued wait already; throws Cancelled once closed.
  void hand_on(result::ResultTable& table) {
    std::unique_lock<std::mutex> lock(mutex_);
    if (!columns_) {
      columns_ = table.columns();
      rule_ = table.rule();
      changed_.notify_all();
    }
    lock.unlock();
    for (std::shared_ptr<const result::Batch>& batch : table.take_batches()) {
      lock.lock();
      changed_.wait(lock, [this] { return queue_.size() < kQueued || cancelled_; });
      if (cancelled_) throw Cancelled();
      queue_.push_back(std::move(batch));
      changed_.notify_all();
      lock.unlock();
    }
    if (cancelled_) throw Cancelled();
  }

  const std::vector<std::string> args_;
  std::mutex mutex_;
  std::condition_variable changed_;
  std::optional<std::vector<result::Column>> columns_;
  std::string rule_;
  std::deque<std::shared_ptr<const result::Batch>> queue_;
  bool done_ = false;
  std::exception_ptr error_;
  std::optional<result::ResultTable> header_;
  std::string messages_;
  std::atomic<bool> cancelled_ = false;
  ProgressLine progress_line_;
  std::thread thread_;  // last: started once everything above is made
};

// A RowStream's batches as an Arrow stream's source (the capsule's consumer pulls them).
class RowStreamSource : public arrow::BatchSource {
 public:
  explicit RowStreamSource(std::shared_ptr<RowStream> stream) : stream_(std::move(stream)) {}
  ~RowStreamSource() override {
    // Released by the consumer, perhaps mid-stream: stop the command (close() releases the GIL
    // when this thread holds it).
    stream_->close();
  }
  RowStreamSource(const RowStreamSource&) = delete;
  RowStreamSource& operator=(const RowStreamSource&) = delete;

  std::shared_ptr<const result::Batch> next() override {
    try {
      return stream_->next();
    } catch (const py::error_already_set&) {
      // Ctrl-C while a consumer holding the GIL waited: the consumer gets an error, and
      // KeyboardInterrupt is raised again as soon as Python runs.
      PyErr_Clear();
      PyErr_SetInterrupt();
      throw std::runtime_error(stream_->args().front() + ": interrupted");
    }
  }

 private:
  std::shared_ptr<RowStream> stream_;
};

// A stream's next batch for pandas: a list of batches_column_arrays per column, or None.
py::object next_arrays(RowStream& stream) {
  const std::shared_ptr<const result::Batch> batch = stream.next();
  if (batch == nullptr) return py::none();
  const Batches one = {batch};
  py::list columns;
  const std::vector<result::Column>& cs = stream.columns();
  for (size_t c = 0; c < cs.size(); ++c) columns.append(batches_column_arrays(cs[c], one, c));
  return columns;
}

// The rest of a stream as an "arrow_array_stream" capsule: the command goes on as the consumer
// pulls batches.
py::object row_stream_capsule(const std::shared_ptr<RowStream>& stream,
                              const py::object& requested_schema) {
  const arrow::StringLayout layout = requested_layout(stream->columns(), requested_schema);
  auto out = std::make_unique<ArrowArrayStream>();
  arrow::export_stream(stream->columns(), stream->rule(), std::make_unique<RowStreamSource>(stream),
                       out.get(), layout);
  return stream_capsule_of(std::move(out));
}

// The reliability notes of the leaderboards `table` shows, by leaderboard id.
py::dict notes_of(const result::ResultTable& table) {
  py::dict notes;
  for (const auto& lb : table.leaderboards()) {
    const std::string_view note = kbdata::dataset::note_for(lb.id);
    if (!note.empty()) notes[py::int_(lb.id)] = py::str(note.data(), note.size());
  }
  return notes;
}

// Submission rows of a DataFrame's columns for the data set's helpers (kbdata/_seed.py): a dict of
// the flat schema's names to equal-length lists (None for null): submission_id, leaderboard_id,
// problem_name, user_id, user_name, submission_time (µs since the epoch), status, score, passed,
// runner. Only what the rankings read.
std::vector<dataset::Submission> submissions_of(const py::dict& columns) {
  auto column = [&](const char* name) { return py::list(columns[name]); };
  const py::list ids = column("submission_id"), leaderboards = column("leaderboard_id"),
                 problems = column("problem_name"), users = column("user_id"),
                 names = column("user_name"), times = column("submission_time"),
                 statuses = column("status"), scores = column("score"), passed = column("passed"),
                 runners = column("runner");
  std::vector<dataset::Submission> rows(ids.size());
  auto text = [](const py::handle& v) {
    return v.is_none() ? std::optional<std::string>() : std::optional(v.cast<std::string>());
  };
  for (size_t i = 0; i < rows.size(); ++i) {
    dataset::Submission& s = rows[i];
    s.submission_id = ids[i].is_none() ? 0 : ids[i].cast<int64_t>();
    s.leaderboard_id = leaderboards[i].is_none() ? 0 : leaderboards[i].cast<int64_t>();
    s.problem_name = text(problems[i]).value_or("");
    s.user_id = text(users[i]).value_or("");
    s.user_name = text(names[i]);
    s.submission_time = times[i].is_none() ? 0 : times[i].cast<int64_t>();
    s.status = text(statuses[i]).value_or("");
    if (!scores[i].is_none()) s.score = scores[i].cast<double>();
    if (!passed[i].is_none()) s.passed = passed[i].cast<bool>();
    s.runner = text(runners[i]);
  }
  return rows;
}

// kbdata top's answer (query::TopQuery) over the rows of `columns` (submissions_of).
Table top_of_rows(const py::dict& columns, int64_t limit) {
  const std::vector<dataset::Submission> rows = submissions_of(columns);
  py::gil_scoped_release release;
  query::TopQuery top({.limit = limit});
  for (const dataset::Submission& s : rows) top.add(s);
  return Table(top.finish({}), "");
}

// kbdata progression's answer (query::ProgressionQuery) for `user` over the rows of `columns`.
Table progression_of_rows(const py::dict& columns, const std::string& user) {
  std::vector<dataset::Submission> rows = submissions_of(columns);
  py::gil_scoped_release release;
  query::ProgressionQuery progression({.user = user});
  for (dataset::Submission& s : rows) progression.add(std::move(s));
  return Table(progression.finish(), "");
}

// The Python spelling of an option a library's error names (common/error.h): the keyword with
// the value given ("min_speedup=0.5"), a flag as turned on ("trajectories=True"), else the keyword.
std::string keyword_spelling(const OptionName& option) {
  if (option.is_flag) return option.name + "=True";
  return option.value ? option.name + "=" + *option.value : option.name;
}

// The classes of kbdata/_errors.py, raised for kbdata's errors.
void raise(const char* class_name, const std::string& message) {
  py::object type = py::module_::import("kbdata._errors").attr(class_name);
  PyErr_SetString(type.ptr(), message.c_str());
}

}  // namespace
}  // namespace kbdata::python

PYBIND11_MODULE(_kbdata, m) {
  using kbdata::python::RowStream;
  using kbdata::python::Table;
  namespace kp = kbdata::python;
  m.doc() = "kbdata's extension: command lines run embedded, result tables, Arrow streams";

  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const kbdata::UsageError& e) {
      kp::raise("UsageError", e.spelled(kp::keyword_spelling));
    } catch (const kbdata::NotFoundError& e) {
      kp::raise("NotFoundError", e.spelled(kp::keyword_spelling));
    } catch (const kbdata::NetworkError& e) {
      kp::raise("NetworkError", e.spelled(kp::keyword_spelling));
    } catch (const kbdata::IoError& e) {
      kp::raise("FileError", e.spelled(kp::keyword_spelling));
    } catch (const kbdata::ResourceError& e) {
      kp::raise("ResourceError", e.spelled(kp::keyword_spelling));
    } catch (const kbdata::Error& e) {
      // FormatError, TruncatedError, UnsupportedError
      kp::raise("DataError", e.spelled(kp::keyword_spelling));
    } catch (const std::logic_error& e) {
      kp::raise("InternalError", std::string("internal error: ") + e.what());
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
      .def_property_readonly("notes", [](const Table& t) { return kp::notes_of(t.table()); })
      .def("rows", &kp::rows_objects, py::arg("start"), py::arg("stop"))
      .def("column_arrays", &kp::column_arrays, py::arg("index"))
      .def("head", &kp::head, py::arg("n"))
      .def("render", &kp::render)
      .def("__arrow_c_stream__", &kp::stream_capsule, py::arg("requested_schema") = py::none());

  py::class_<RowStream, std::shared_ptr<RowStream>>(m, "RowStream")
      .def(py::init<std::vector<std::string>, bool>(), py::arg("args"), py::arg("progress") = false,
           "Starts a kbdata command line on a thread of its own, its answer taken batch by batch.")
      .def("wait_columns", &RowStream::wait_columns)
      .def_property_readonly("column_names",
                             [](RowStream& s) {
                               std::vector<std::string> names;
                               for (const auto& c : s.columns()) names.push_back(c.name);
                               return names;
                             })
      .def_property_readonly("column_types",
                             [](RowStream& s) {
                               std::vector<std::string> types;
                               for (const auto& c : s.columns()) {
                                 types.push_back(std::string(c.list ? "list<" : "") +
                                                 kp::type_name(c.type) + (c.list ? ">" : ""));
                               }
                               return types;
                             })
      .def("next_arrays", &kp::next_arrays)
      .def("notes", [](RowStream& s) { return kp::notes_of(s.header()); })
      .def("messages", &RowStream::messages)
      .def("close", &RowStream::close)
      .def_property_readonly("finished", &RowStream::finished)
      .def("__arrow_c_stream__", &kp::row_stream_capsule, py::arg("requested_schema") = py::none());

  m.def("top_of_rows", &kp::top_of_rows, py::arg("columns"), py::arg("limit"),
        "kbdata top's ranking of a DataFrame's rows (the data set's helpers).");
  m.def("progression_of_rows", &kp::progression_of_rows, py::arg("columns"), py::arg("user"),
        "kbdata progression of a DataFrame's rows for one user (the data set's helpers).");
  m.def("run", &kp::run, py::arg("args"), py::arg("want_answer") = true,
        py::arg("progress") = false, py::arg("part") = "",
        "Runs a kbdata command line embedded: (answer Table or None, stdout text, stderr text).");
}
