#include "tuner/child_process.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>

#include "cct/error.hpp"

namespace cct::tuner {
namespace {

std::vector<char*> c_strings(const std::vector<std::string>& strings) {
  std::vector<char*> out;
  for (const std::string& s : strings) out.push_back(const_cast<char*>(s.c_str()));
  out.push_back(nullptr);
  return out;
}

// Reads what the child writes until it closes its end or the deadline passes.
bool read_until(int fd, std::chrono::steady_clock::time_point deadline, std::string& out) {
  char buffer[4096];
  for (;;) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) return false;
    pollfd p{.fd = fd, .events = POLLIN, .revents = 0};
    const int ready = poll(&p, 1, static_cast<int>(std::min<long long>(left.count(), 1000)));
    if (ready < 0 && errno != EINTR) return true;
    if (ready <= 0) continue;
    const ssize_t n = read(fd, buffer, sizeof buffer);
    if (n > 0) out.append(buffer, static_cast<std::size_t>(n));
    if (n == 0 || (n < 0 && errno != EINTR && errno != EAGAIN)) return true;
  }
}

}  // namespace

ChildResult run_child(const std::vector<std::string>& args, const std::vector<std::string>& env,
                      double timeout_s) {
  int pipe_fds[2];
  if (pipe2(pipe_fds, O_CLOEXEC) != 0)
    throw Error(std::string("cannot run ") + args.at(0) + ": pipe: " + std::strerror(errno));
  std::vector<char*> argv = c_strings(args), envp = c_strings(env);
  const pid_t child = fork();
  if (child < 0) {
    close(pipe_fds[0]), close(pipe_fds[1]);
    throw Error(std::string("cannot run ") + args[0] + ": fork: " + std::strerror(errno));
  }
  if (child == 0) {
    setpgid(0, 0);
    dup2(pipe_fds[1], STDOUT_FILENO);
    dup2(pipe_fds[1], STDERR_FILENO);
    execvpe(argv[0], argv.data(), envp.data());
    const std::string why = "cannot run " + args[0] + ": " + std::strerror(errno) + "\n";
    (void)!write(STDERR_FILENO, why.data(), why.size());
    _exit(127);
  }
  setpgid(child, child);  // also here: the child may not have run yet
  close(pipe_fds[1]);
  ChildResult result;
  const auto deadline = std::chrono::steady_clock::now() +
                        std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                            std::chrono::duration<double>(timeout_s));
  result.timed_out = !read_until(pipe_fds[0], deadline, result.output);
  close(pipe_fds[0]);
  if (result.timed_out) kill(-child, SIGKILL);
  int status = 0;
  while (waitpid(child, &status, 0) < 0 && errno == EINTR) {
  }
  result.status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return result;
}

}  // namespace cct::tuner
