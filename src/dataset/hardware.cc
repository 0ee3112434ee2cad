#include "dataset/hardware.h"

#include <algorithm>
#include <array>

#include "common/closest_name.h"

namespace kbdata::dataset {
namespace {

// docs/data-model.md, "Runners and GPUs", lists this table; keep the two together.
constexpr std::array<RunnerHardware, 12> kRunners = {{
    {"T4", "T4", 1, "Tesla T4", "NVIDIA T4"},
    {"L4", "L4", 1, "NVIDIA L4", "NVIDIA L4"},
    {"A100", "A100", 1, "NVIDIA A100-SXM4-80GB", "NVIDIA A100"},
    {"H100", "H100", 1, "NVIDIA H100 80GB HBM3", "NVIDIA H100"},
    {"B200", "B200", 1, "NVIDIA B200", "NVIDIA B200 (on Modal)"},
    {"NVIDIA", "B200", 1, "NVIDIA B200", "the NVFP4 competition's on-premise B200 machines"},
    {"B200_Nebius", "B200", 1, "NVIDIA B200", "NVIDIA B200 (on Nebius)"},
    {"MI250", "MI250", 1, "AMD Instinct MI250", "AMD Instinct MI250"},
    {"MI300", "MI300X", 1, "AMD Instinct MI300X", "AMD Instinct MI300X"},
    {"MI300x8", "MI300X", 8, "AMD Instinct MI300X", "eight AMD Instinct MI300X"},
    {"MI355X", "MI355X", 1, "AMD Instinct MI355X", "AMD Instinct MI355X"},
    // A runner named after its GPU is that GPU.
    {"MI300X", "MI300X", 1, "AMD Instinct MI300X", "AMD Instinct MI300X"},
}};

constexpr std::array<std::string_view, 8> kGpus = {"B200", "H100",  "A100",   "L4",
                                                   "T4",   "MI250", "MI300X", "MI355X"};

bool is_blank(char c) { return c == ' ' || (c >= '\t' && c <= '\r'); }
bool is_word_char(char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}
char lower(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; }

// Whether `word` occurs in `text` ignoring ASCII case, with no letter or digit on either side.
bool contains_word(std::string_view text, std::string_view word) {
  if (word.empty() || word.size() > text.size()) return false;
  for (size_t i = 0; i + word.size() <= text.size(); ++i) {
    if (i > 0 && is_word_char(text[i - 1])) continue;
    const size_t end = i + word.size();
    if (end < text.size() && is_word_char(text[end])) continue;
    if (equals_ignoring_case(text.substr(i, word.size()), word)) return true;
  }
  return false;
}

}  // namespace

std::span<const RunnerHardware> known_runners() { return kRunners; }

std::span<const std::string_view> known_gpus() { return kGpus; }

std::string_view trim_blanks(std::string_view text) {
  while (!text.empty() && is_blank(text.front())) text.remove_prefix(1);
  while (!text.empty() && is_blank(text.back())) text.remove_suffix(1);
  return text;
}

bool same_runner(std::string_view a, std::string_view b) {
  return equals_ignoring_case(trim_blanks(a), trim_blanks(b));
}

const RunnerHardware* runner_hardware(std::string_view runner) {
  for (const RunnerHardware& r : kRunners) {
    if (same_runner(r.runner, runner)) return &r;
  }
  return nullptr;
}

std::optional<std::string_view> gpu_of_device(std::string_view device) {
  std::optional<std::string_view> best;
  for (std::string_view gpu : kGpus) {
    if (contains_word(device, gpu) && (!best || gpu.size() > best->size())) best = gpu;
  }
  return best;
}

std::optional<RunnerGpu> gpu_of_runner(std::string_view runner) {
  if (const RunnerHardware* known = runner_hardware(runner)) {
    return RunnerGpu{known->gpu, known->devices};
  }
  if (const std::optional<std::string_view> gpu = gpu_of_device(runner)) return RunnerGpu{*gpu, 1};
  return std::nullopt;
}

std::string canonical_runner(std::string_view written) {
  if (const RunnerHardware* known = runner_hardware(written)) return std::string(known->runner);
  return std::string(trim_blanks(written));
}

std::string canonical_status(std::string_view written) {
  std::string out(trim_blanks(written));
  std::transform(out.begin(), out.end(), out.begin(), lower);
  return out;
}

std::optional<std::string> legacy_runner(std::optional<std::string_view> device,
                                         std::optional<int64_t> device_count,
                                         std::span<const std::string> gpu_types) {
  if (!device || trim_blanks(*device).empty()) return std::nullopt;
  const std::optional<std::string_view> gpu = gpu_of_device(*device);
  const std::string* match = nullptr;
  for (const std::string& entry : gpu_types) {
    const RunnerHardware* hw = runner_hardware(entry);
    if (!same_runner(entry, *device) && !(gpu && hw != nullptr && hw->gpu == *gpu)) continue;
    if (!device_count || (hw != nullptr && hw->devices == *device_count)) {
      match = &entry;  // the device's GPU, as many of them as the run had
      break;
    }
    if (match == nullptr) match = &entry;
  }
  if (match != nullptr) return canonical_runner(*match);
  return std::string(trim_blanks(*device));
}

}  // namespace kbdata::dataset
