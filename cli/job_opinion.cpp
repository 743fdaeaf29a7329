// The herd command's runs of voter and majority.
#include "job_runs.hpp"

namespace herd::cli {
template JobResult run_entry<OpinionEntry>(Options const&, std::function<void(int, int)> const&);
}  // namespace herd::cli
