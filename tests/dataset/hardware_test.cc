// The runner table and the spellings of runners and statuses (docs/data-model.md, "Runners and
// GPUs" and "Spellings").
#include "dataset/hardware.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace kbdata::dataset {
namespace {

TEST(Hardware, RunnersAreNamesAndGpusAreFacts) {
  ASSERT_NE(runner_hardware("NVIDIA"), nullptr);
  EXPECT_EQ(runner_hardware("NVIDIA")->gpu, "B200");  // the on-premise NVFP4 machines
  EXPECT_EQ(runner_hardware("B200_Nebius")->gpu, "B200");
  EXPECT_EQ(runner_hardware("B200")->gpu, "B200");
  EXPECT_EQ(runner_hardware("MI300")->gpu, "MI300X");
  EXPECT_EQ(runner_hardware("MI300x8")->gpu, "MI300X");
  EXPECT_EQ(runner_hardware("MI300x8")->devices, 8);
  EXPECT_EQ(runner_hardware("MI355X")->gpu, "MI355X");
  EXPECT_EQ(runner_hardware("GB300"), nullptr);  // unknown: data, not an error
  for (const RunnerHardware& r : known_runners()) {
    bool known_gpu = false;
    for (std::string_view g : known_gpus()) known_gpu = known_gpu || g == r.gpu;
    EXPECT_TRUE(known_gpu) << r.runner << " runs on " << r.gpu;
    EXPECT_EQ(gpu_of_device(r.device), r.gpu) << r.runner << "'s device " << r.device;
  }
}

TEST(Hardware, RunnersCompareTrimmedAndIgnoringCase) {
  EXPECT_TRUE(same_runner("b200", "B200"));
  EXPECT_TRUE(same_runner("B200 ", "B200"));
  EXPECT_TRUE(same_runner("\tnvidia\n", "NVIDIA"));
  EXPECT_FALSE(same_runner("B200", "B200_Nebius"));
  EXPECT_FALSE(same_runner("", "B200"));
  EXPECT_EQ(runner_hardware("b200 "), runner_hardware("B200"));
  EXPECT_EQ(canonical_runner(" b200_nebius "), "B200_Nebius");
  EXPECT_EQ(canonical_runner("mi300X8"), "MI300x8");
  EXPECT_EQ(canonical_runner("  gb300 "), "gb300");  // unknown: trimmed, as written
  EXPECT_EQ(canonical_status(" HACKED "), "hacked");
  EXPECT_EQ(canonical_status("Succeeded"), "succeeded");
  EXPECT_EQ(trim_blanks(" \t\r\nx y \v\f"), "x y");
}

TEST(Hardware, ARunnerNamedAsADeviceRunsOnThatGpu) {
  EXPECT_EQ(gpu_of_runner("NVIDIA")->gpu, "B200");
  EXPECT_EQ(gpu_of_runner("MI300x8")->devices, 8);
  EXPECT_EQ(gpu_of_runner("AMD Instinct MI355X")->gpu, "MI355X");  // a legacy run's fallback
  EXPECT_EQ(gpu_of_runner("AMD Instinct MI355X")->devices, 1);
  EXPECT_EQ(gpu_of_runner("GB300"), std::nullopt);
}

TEST(Hardware, DeviceNamesNameTheirGpuAsAWholeWord) {
  EXPECT_EQ(gpu_of_device("AMD Instinct MI300X"), "MI300X");
  EXPECT_EQ(gpu_of_device("NVIDIA H100 80GB HBM3"), "H100");
  EXPECT_EQ(gpu_of_device("NVIDIA A100-SXM4-80GB"), "A100");
  EXPECT_EQ(gpu_of_device("nvidia b200"), "B200");
  EXPECT_EQ(gpu_of_device("AMD Instinct MI355X"), "MI355X");
  EXPECT_EQ(gpu_of_device("NVIDIA GB200"), std::nullopt);  // B200 is not a whole word there
  EXPECT_EQ(gpu_of_device("H1000"), std::nullopt);
  EXPECT_EQ(gpu_of_device(""), std::nullopt);
}

TEST(Hardware, ALegacyRunIsTheLeaderboardsRunnerOnItsGpu) {
  const std::vector<std::string> single = {"MI300"};
  const std::vector<std::string> both = {"MI300", "MI300x8"};
  const std::vector<std::string> eight = {"MI300x8"};
  EXPECT_EQ(legacy_runner("AMD Instinct MI300X", 1, single), "MI300");
  EXPECT_EQ(legacy_runner("AMD Instinct MI300X", 8, eight), "MI300x8");
  // Both on the GPU: the device count chooses; without it, the first.
  EXPECT_EQ(legacy_runner("AMD Instinct MI300X", 8, both), "MI300x8");
  EXPECT_EQ(legacy_runner("AMD Instinct MI300X", 1, both), "MI300");
  EXPECT_EQ(legacy_runner("AMD Instinct MI300X", std::nullopt, both), "MI300");
  // No runner of the leaderboard on that GPU, no gpu_types, an unknown device: as written.
  EXPECT_EQ(legacy_runner(" NVIDIA H100 80GB HBM3 ", 1, single), "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(legacy_runner("AMD Instinct MI300X", 1, {}), "AMD Instinct MI300X");
  EXPECT_EQ(legacy_runner("Some Future GPU", 1, single), "Some Future GPU");
  // A gpu_types entry spelled as the device itself.
  const std::vector<std::string> by_device = {"amd instinct mi300x"};
  EXPECT_EQ(legacy_runner("AMD Instinct MI300X", 1, by_device), "amd instinct mi300x");
  EXPECT_EQ(legacy_runner(std::nullopt, 1, single), std::nullopt);
  EXPECT_EQ(legacy_runner("  ", 1, single), std::nullopt);
}

}  // namespace
}  // namespace kbdata::dataset
