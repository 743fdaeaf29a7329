// The herd command: runs a model on a generated or loaded graph and reports the result.

#include "job.hpp"
#include "options.hpp"
#include "report.hpp"

#include <herd/config.hpp>
#include <herd/core/error.hpp>
#include <herd/core/kokkos_compat.hpp>

#include <Kokkos_Core.hpp>

#include <unistd.h>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <new>
#include <sstream>

int main(int argc, char* argv[]) {
  using namespace herd::cli;
  Options options;
  try {
    options = parse(std::vector<std::string>(argv + 1, argv + argc));
  } catch (UsageError const& e) {
    std::fprintf(stderr, "herd: %s (see herd --help)\n", e.message.c_str());
    return 2;
  }
  if (options.command == "help") {
    std::cout << usage();
    return 0;
  }
  if (options.command == "version") {
    std::cout << "herd " << HERD_VERSION_STRING << " (Kokkos " << KOKKOS_VERSION / 10000 << "."
              << KOKKOS_VERSION / 100 % 100 << "." << KOKKOS_VERSION % 100 << ")\n";
    return 0;
  }

  // Thread binding Kokkos recommends; a user's own setting wins.
  setenv("OMP_PROC_BIND", "spread", 0);
  setenv("OMP_PLACES", "threads", 0);
  herd::compat::initialize(options.threads);
  int status = 0;
  try {
    Progress progress(!options.quiet, isatty(STDERR_FILENO) != 0);
    auto const result = run_job(options, [&](int step, int steps) { progress(step, steps); });
    // Files are written only once the run is complete: a failed run leaves none behind.
    if (!options.csv.empty()) write_file_atomically(options.csv, csv(result));
    if (!options.json.empty()) {
      std::ostringstream configuration;
      Kokkos::print_configuration(configuration);
      write_file_atomically(options.json, json(options, result, configuration.str()));
    }
    if (!options.quiet) std::cout << summary_table(options, result) << std::flush;
  } catch (herd::Error const& e) {
    std::fprintf(stderr, "herd: %s\n", e.what());
    status = 1;
  } catch (std::bad_alloc const&) {
    std::fprintf(stderr, "herd: out of memory: try fewer agents or a smaller mean degree\n");
    status = 1;
  } catch (std::exception const& e) {
    std::fprintf(stderr, "herd: %s\n", e.what());
    status = 1;
  }
  Kokkos::finalize();
  return status;
}
