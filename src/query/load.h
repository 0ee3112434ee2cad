// How a query reads rows: the caller decides (dataset::load_dir in the web explorer and the Python
// module, a command's load with progress on the command line), the query says what it reads.
#pragma once

#include <functional>
#include <string_view>

#include "dataset/loader.h"

namespace kbdata::query {

// Hands every row of `load` to `sink`. `what` names the pass for a progress line ("measuring
// noise per epoch"); a loader may ignore it. Throws what the load throws.
using Loader = std::function<void(std::string_view what, const dataset::LoadOptions& load,
                                  const dataset::SubmissionSink& sink)>;

}  // namespace kbdata::query
