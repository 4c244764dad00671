#include "support/gpu.hpp"

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>

#include "cct/device/cuda_devices.hpp"

namespace cct::test {
namespace {

std::string ask_in_child() {
  int fds[2];
  if (pipe(fds) != 0) return "cannot ask CUDA: pipe failed";
  const pid_t child = fork();
  if (child < 0) return "cannot ask CUDA: fork failed";
  if (child == 0) {
    close(fds[0]);
    const cct::device::CudaDevices found = cct::device::cuda_devices();
    const std::string& said = found.absent;
    if (!said.empty() && write(fds[1], said.data(), said.size()) < 0) _exit(1);
    _exit(0);
  }
  close(fds[1]);
  std::string said;
  char chunk[256];
  for (ssize_t n; (n = read(fds[0], chunk, sizeof chunk)) > 0;) said.append(chunk, n);
  close(fds[0]);
  int status = 0;
  waitpid(child, &status, 0);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) return "asking CUDA for its devices failed";
  return said;
}

}  // namespace

const std::string& gpu_absent() {
  static const std::string absent = ask_in_child();
  return absent;
}

bool skip_without_gpu() {
  if (gpu_absent().empty()) return false;
  std::printf("cct-test-skipped: no GPU: %s\n", gpu_absent().c_str());
  return true;
}

}  // namespace cct::test
