// The herd command's runs of degroot and bounded-confidence.
#include "job_runs.hpp"

namespace herd::cli {
template JobResult run_entry<ConsensusEntry>(Options const&, std::function<void(int, int)> const&);
}  // namespace herd::cli
