// Local launches: fork the ranks, serve their bootstrap, clean up after them.
#include "cct/launcher.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string_view>

#include "bootstrap_socket.hpp"
#include "launch_server.hpp"

extern char** environ;

namespace cct {
namespace {

using detail::RankProcess;

// Runs in the child with its end of the channel; never returns.
using ChildMain = std::function<void(int rank, int fd, const std::string& job_key)>;

struct Channel {
  int parent = -1;
  int child = -1;
};

std::string next_job_key() {
  static std::atomic<unsigned> counter{0};
  return "cct-" + std::to_string(::getpid()) + "-" + std::to_string(counter++);
}

// Removes /dev/shm/<key>*, what ranks that crashed before unlinking left.
// A name continuing the key with a digit belongs to another launch
// ("cct-7-1" is a prefix of "cct-7-12"), so it is kept.
void remove_shm_leftovers(const std::string& key) {
  DIR* dir = ::opendir("/dev/shm");
  if (dir == nullptr) return;
  while (dirent* entry = ::readdir(dir)) {
    std::string_view name = entry->d_name;
    if (!name.starts_with(key)) continue;
    if (name.size() > key.size() && std::isdigit(static_cast<unsigned char>(name[key.size()])))
      continue;
    ::unlinkat(::dirfd(dir), entry->d_name, 0);
  }
  ::closedir(dir);
}

void close_channels(const std::vector<Channel>& channels) {
  for (const Channel& c : channels) {
    if (c.parent >= 0) ::close(c.parent);
    if (c.child >= 0) ::close(c.child);
  }
}

// All channels exist before the first fork, so the exec'ed ranks' environment
// (which names the fd) can be built while it is still safe to allocate.
std::string open_channels(int ranks, std::vector<Channel>& channels) {
  for (int r = 0; r < ranks; ++r) {
    int sv[2];
    if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0) {
      std::string error =
          std::string("cannot create the bootstrap sockets: ") + std::strerror(errno);
      close_channels(channels);
      channels.clear();
      return error;
    }
    channels.push_back(Channel{sv[0], sv[1]});
  }
  return "";
}

// A rank dies with its parent, and a crash kills it for real: hosts such as
// Catch2 catch these signals to report them in-process, which in a rank
// would hide the signal from the launcher.
void become_rank(pid_t parent) {
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (::getppid() != parent) ::_exit(1);
  for (int sig : {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGINT, SIGTERM})
    ::signal(sig, SIG_DFL);
}

[[noreturn]] void run_child(int rank, const std::vector<Channel>& channels, pid_t parent,
                            const std::string& key, const ChildMain& child_main) {
  for (int r = 0; r < static_cast<int>(channels.size()); ++r) {
    ::close(channels[r].parent);
    if (r != rank) ::close(channels[r].child);
  }
  become_rank(parent);
  child_main(rank, channels[rank].child, key);
  ::_exit(127);  // child_main does not return
}

void abandon(std::vector<RankProcess>& procs) {
  for (const RankProcess& p : procs) ::kill(p.pid, SIGKILL);
  for (const RankProcess& p : procs) ::waitpid(p.pid, nullptr, 0);
  procs.clear();
}

// Forks one child per channel. Closes every child end in the parent; on
// failure kills what it started and closes every parent end too.
std::string fork_ranks(const std::vector<Channel>& channels, const std::string& key,
                       const ChildMain& child_main, std::vector<RankProcess>& procs) {
  pid_t parent = ::getpid();
  std::string error;
  for (int r = 0; r < static_cast<int>(channels.size()) && error.empty(); ++r) {
    pid_t pid = ::fork();
    if (pid == 0) run_child(r, channels, parent, key, child_main);
    if (pid < 0)
      error = "cannot start rank " + std::to_string(r) + ": fork: " + std::strerror(errno);
    if (pid > 0) procs.push_back(RankProcess{pid, channels[r].parent});
  }
  for (const Channel& c : channels) ::close(c.child);
  if (error.empty()) return error;
  abandon(procs);
  for (const Channel& c : channels) ::close(c.parent);
  return error;
}

LaunchResult launch(const LaunchOptions& opts, const std::string& key,
                    const std::vector<Channel>& channels, const ChildMain& child_main) {
  // Output buffered in the parent would be printed again by every child.
  std::fflush(nullptr);
  std::vector<RankProcess> procs;
  std::string error = fork_ranks(channels, key, child_main, procs);
  LaunchResult result = error.empty()
                            ? detail::serve_ranks(std::move(procs), opts.timeout_s, opts.watchdog)
                            : LaunchResult{false, error};
  remove_shm_leftovers(key);
  return result;
}

// body's return value as an exit status: 0 stays 0, anything else stays
// non-zero once truncated to 8 bits.
int exit_status(int code) {
  if (code == 0) return 0;
  return (code & 0xff) != 0 ? code & 0xff : 1;
}

[[noreturn]] void run_body(int rank, int size, int fd, const std::string& key,
                           const std::function<int(Bootstrap&)>& body) {
  int code = 1;
  try {
    detail::SocketBootstrap boot(fd, rank, size, key);
    code = body(boot);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "rank %d: %s\n", rank, e.what());
  } catch (...) {
    std::fprintf(stderr, "rank %d: unknown exception\n", rank);
  }
  // Never return into the caller's stack nor run its static destructors.
  std::fflush(nullptr);
  ::_exit(exit_status(code));
}

std::string bad_options(const LaunchOptions& opts) {
  if (opts.ranks >= 1) return "";
  return "a launch needs at least one rank, not " + std::to_string(opts.ranks);
}

// The parent's environment without CCT_* bootstrap variables, then those of
// rank `rank`.
std::vector<std::string> rank_environment(int rank, int size, int fd, const std::string& key) {
  std::vector<std::string> env;
  for (char** e = environ; *e != nullptr; ++e) {
    std::string_view var = *e;
    if (var.starts_with("CCT_BOOTSTRAP_FD=") || var.starts_with("CCT_RANK=") ||
        var.starts_with("CCT_SIZE=") || var.starts_with("CCT_JOB_KEY="))
      continue;
    env.emplace_back(var);
  }
  env.push_back("CCT_BOOTSTRAP_FD=" + std::to_string(fd));
  env.push_back("CCT_RANK=" + std::to_string(rank));
  env.push_back("CCT_SIZE=" + std::to_string(size));
  env.push_back("CCT_JOB_KEY=" + key);
  return env;
}

std::vector<char*> c_strings(std::vector<std::string>& strings) {
  std::vector<char*> out;
  for (std::string& s : strings) out.push_back(s.data());
  out.push_back(nullptr);
  return out;
}

// The arguments and every rank's environment, as execvpe takes them. Built
// before forking: the child of a multithreaded process must not allocate.
struct ExecImage {
  std::vector<std::string> args;
  std::vector<std::vector<std::string>> envs;
  std::vector<char*> c_args;
  std::vector<std::vector<char*>> c_envs;
};

void prepare_exec(ExecImage& image, const std::vector<Channel>& channels, const std::string& key) {
  int ranks = static_cast<int>(channels.size());
  for (int r = 0; r < ranks; ++r)
    image.envs.push_back(rank_environment(r, ranks, channels[r].child, key));
  image.c_args = c_strings(image.args);
  for (auto& env : image.envs) image.c_envs.push_back(c_strings(env));
}

[[noreturn]] void exec_rank(const ExecImage& image, int rank, int fd) {
  ::fcntl(fd, F_SETFD, 0);  // the one fd that survives exec
  ::execvpe(image.c_args[0], image.c_args.data(), image.c_envs[rank].data());
  ::dprintf(STDERR_FILENO, "rank %d: cannot execute %s: %s\n", rank, image.c_args[0],
            std::strerror(errno));
  ::_exit(127);
}

}  // namespace

LaunchResult launch_local(const LaunchOptions& opts, const std::function<int(Bootstrap&)>& body) {
  if (std::string error = bad_options(opts); !error.empty()) return LaunchResult{false, error};
  std::vector<Channel> channels;
  if (std::string error = open_channels(opts.ranks, channels); !error.empty())
    return LaunchResult{false, error};
  return launch(opts, next_job_key(), channels, [&](int rank, int fd, const std::string& key) {
    run_body(rank, opts.ranks, fd, key, body);
  });
}

LaunchResult launch_local_exec(const LaunchOptions& opts, const std::vector<std::string>& argv) {
  if (std::string error = bad_options(opts); !error.empty()) return LaunchResult{false, error};
  if (argv.empty()) return LaunchResult{false, "launch_local_exec: argv is empty"};
  std::vector<Channel> channels;
  if (std::string error = open_channels(opts.ranks, channels); !error.empty())
    return LaunchResult{false, error};
  std::string key = next_job_key();
  ExecImage image{.args = argv};
  prepare_exec(image, channels, key);
  return launch(opts, key, channels,
                [&](int rank, int fd, const std::string&) { exec_rank(image, rank, fd); });
}

}  // namespace cct
