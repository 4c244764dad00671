// cclaunch: starts N ranks of a program on this machine, without mpirun.
// Each rank joins the launch through the runtime (cct_init / Session).
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <string>
#include <vector>

#include "cct/launcher.hpp"

namespace {

const char* const kUsage =
    "usage: cclaunch -n N [--timeout SECONDS] PROGRAM [ARGS...]\n"
    "\n"
    "Starts N ranks of PROGRAM on this machine. They find each other through\n"
    "the runtime (cct_init in C, cct::Session::from_environment in C++).\n"
    "If a rank crashes, exits non-zero or outlives the timeout, the others\n"
    "are stopped and cclaunch says which rank did what (exit status 1).\n"
    "\n"
    "  -n N                ranks to start (1 or more)\n"
    "  --timeout SECONDS   stop everything after this long (default: none)\n";

bool parse_positive(const char* text, double* out) {
  char* end = nullptr;
  *out = std::strtod(text, &end);
  return end != text && *end == '\0' && *out > 0;
}

}  // namespace

int main(int argc, char** argv) {
  cct::LaunchOptions opts{.ranks = 0};
  int i = 1;
  for (; i < argc && argv[i][0] == '-'; ++i) {
    const std::string arg = argv[i];
    double value = 0;
    if (arg == "--help" || arg == "-h") {
      std::cout << kUsage;
      return 0;
    }
    if ((arg == "-n" || arg == "--timeout") && i + 1 < argc &&
        parse_positive(argv[i + 1], &value)) {
      if (arg == "-n")
        opts.ranks = static_cast<int>(value);
      else
        opts.timeout_s = value;
      ++i;
      continue;
    }
    std::cerr << "cclaunch: bad argument '" << arg << "'\n" << kUsage;
    return 2;
  }
  if (opts.ranks < 1 || i == argc) {
    std::cerr << "cclaunch: need -n N and a program\n" << kUsage;
    return 2;
  }
  const cct::LaunchResult result =
      cct::launch_local_exec(opts, std::vector<std::string>(argv + i, argv + argc));
  if (result.ok) return 0;
  std::cerr << "cclaunch: " << result.error << "\n";
  return 1;
}
