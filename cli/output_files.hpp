#pragma once

// The files a command writes, checked before any work (docs/cli.md, "Output files"): each can be
// written, none is also an input or another output.

#include "options.hpp"

#include <string>

namespace herd::cli {

/// Throws UsageError when an output is the same file as an input (--graph, --attributes, the
/// checkpoint resumed) or as another output, compared by identity (device and inode, or the
/// resolved path), not by spelling. Devices, FIFOs and standard output may take several outputs.
void check_distinct_files(Options const& options);

/// Throws herd::Error naming the option and path unless every output can be written: a mistyped
/// path fails at once, not after the run. Leaves no file behind.
void check_outputs(Options const& options);

/// Writes `content` to the output `path` (herd::io::write_output: devices in place, "-" to
/// standard output, files atomically). Throws herd::Error naming the path.
void write_output(std::string const& path, std::string const& content);

/// Appends `line` and a newline to `path` in one write, creating the file if needed.
void append_line(std::string const& path, std::string const& line);

}  // namespace herd::cli
