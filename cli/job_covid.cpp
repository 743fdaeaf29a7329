// The herd command's runs of covid.
#include "job_runs.hpp"

namespace herd::cli {
template JobResult run_entry<CovidEntry>(Options const&, std::function<void(int, int)> const&);
}  // namespace herd::cli
