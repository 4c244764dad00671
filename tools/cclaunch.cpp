// cclaunch: starts N ranks of a program on this machine, without mpirun.
// Each rank joins the launch through the runtime (cct_init / Session).
#include <CLI/CLI.hpp>
#include <iostream>
#include <string>
#include <vector>

#include "cct/cli/validators.hpp"
#include "cct/launcher.hpp"

namespace {

const char* const kDescription =
    "Starts N ranks of PROGRAM on this machine. They find each other through\n"
    "the runtime (cct_init in C, cct::Session::from_environment in C++).\n"
    "If a rank crashes, exits non-zero or outlives the timeout, the others\n"
    "are stopped and cclaunch says which rank did what (exit status 1).\n";

const char* const kFooter =
    "After the options: PROGRAM [ARGS...], what every rank runs, passed on as given.";

// PROGRAM and its arguments: what follows cclaunch's own options, as given
// (CLI11 leaves it unparsed). Throws CLI::ParseError when there is no
// program, or an option of cclaunch's that it does not know stands first.
std::vector<std::string> program_command(const CLI::App& app) {
  std::vector<std::string> command = app.remaining();
  if (command.empty()) throw CLI::RequiredError("PROGRAM");
  if (command.front().starts_with('-')) throw CLI::ExtrasError({command.front()});
  return command;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{kDescription, "cclaunch"};
  app.footer(kFooter);
  app.set_version_flag("--version", "cclaunch " CCT_VERSION);
  app.prefix_command();
  cct::LaunchOptions opts{.ranks = 0};
  app.add_option("-n", opts.ranks, "ranks to start (1 or more)")
      ->required()
      ->check(cct::cli::positive())
      ->type_name("N");
  app.add_option("--timeout", opts.timeout_s, "stop everything after this long (default: none)")
      ->check(cct::cli::positive())
      ->type_name("SECONDS");
  std::vector<std::string> command;
  try {
    app.parse(argc, argv);
    command = program_command(app);
  } catch (const CLI::Success& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::cerr << "cclaunch: " << e.what() << "\nrun 'cclaunch --help' for usage\n";
    return 2;
  }
  const cct::LaunchResult result = cct::launch_local_exec(opts, command);
  if (result.ok) return 0;
  std::cerr << "cclaunch: " << result.error << "\n";
  return 1;
}
