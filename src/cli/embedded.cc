#include "cli/embedded.h"

namespace kbdata::cli {
namespace {

thread_local EmbeddedRun* current_run = nullptr;

}  // namespace

EmbeddedRun* embedded_run() { return current_run; }

std::FILE* command_out() { return current_run != nullptr ? current_run->out : stdout; }

std::FILE* command_err() { return current_run != nullptr ? current_run->err : stderr; }

bool hand_over(result::ResultTable& table) {
  if (current_run == nullptr) return false;
  current_run->answer.emplace(std::move(table));
  return true;
}

bool hand_over(result::ResultTable&& table) { return hand_over(table); }

void stream_rows(result::ResultTable& table) {
  if (current_run != nullptr && current_run->stream) current_run->stream(table);
}

void check_interrupted() {
  if (current_run == nullptr || !current_run->check) return;
  if ((current_run->calls++ & 4095) == 0) current_run->check();
}

EmbeddedScope::EmbeddedScope(EmbeddedRun& run) : previous_(current_run) { current_run = &run; }

EmbeddedScope::~EmbeddedScope() { current_run = previous_; }

}  // namespace kbdata::cli
