#pragma once

// The HDF5 file of an ensemble (herd run --replicates/--sweep --output FILE): every member's
// counts as [member, step, observable], the members' seeds and parameters, and the per-point
// summaries (docs/file-formats.md, "Ensemble files").

#include "job.hpp"
#include "options.hpp"

#include <string>

namespace herd::cli {

/// Writes `result`'s ensemble to `path` from this process alone (rank 0, which holds every
/// member), under a temporary name, and returns it to be put in place. Throws herd::Error naming
/// the file.
io::WrittenFile write_ensemble_file(Options const& options, JobResult const& result, std::string const& path);

}  // namespace herd::cli
