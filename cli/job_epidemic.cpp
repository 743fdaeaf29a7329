// The herd command's runs of sir and seir.
#include "job_runs.hpp"

namespace herd::cli {
template JobResult run_entry<EpidemicEntry>(Options const&, std::function<void(int, int)> const&);
}  // namespace herd::cli
