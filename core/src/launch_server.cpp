// The launching parent's side of a local launch: one poll() loop over the
// ranks' sockets that answers allgathers and watches the rank processes.
#include "launch_server.hpp"

#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <sstream>

#include "bootstrap_socket.hpp"

namespace cct::detail {
namespace {

using Clock = std::chrono::steady_clock;

// A rank whose channel closed while its process still runs (an exec'ed
// program that closed the fd) is given this long before it counts as gone.
constexpr auto kClosedGrace = std::chrono::seconds(1);

class Server {
 public:
  Server(std::vector<RankProcess> procs, double timeout_s,
         const std::function<std::string()>& watchdog);
  LaunchResult run();

 private:
  struct Rank {
    pid_t pid = -1;
    int fd = -1;  // -1 once the channel is closed
    Clock::time_point closed_at;
    bool exited = false;
    int status = 0;  // wait status, once exited
    bool contributed = false;
  };

  void poll_once();
  int poll_timeout_ms() const;
  void read_request(int r);
  bool accept_size(int r, uint64_t bytes);
  void answer_round();
  void close_channel(int r);
  void reap_exited();
  void check_round_stuck();
  void check_deadline();
  void check_watchdog();
  void kill_and_reap();
  bool all_exited() const;
  bool gone(const Rank& rank) const;
  std::string who(int r) const;
  std::string who(const std::vector<int>& rs) const;
  static std::string listed(const std::vector<int>& rs);
  std::string exit_cause(int status) const;
  void fail(const std::string& why) {
    if (failure_.empty()) failure_ = why;
  }

  std::vector<Rank> ranks_;
  double timeout_s_;
  Clock::time_point deadline_;
  const std::function<std::string()>& watchdog_;
  // The allgather round in progress.
  int contributions_ = 0;
  int first_contributor_ = -1;
  uint64_t round_bytes_ = 0;
  std::vector<char> round_data_;
  std::string failure_;
};

Server::Server(std::vector<RankProcess> procs, double timeout_s,
               const std::function<std::string()>& watchdog)
    : timeout_s_(timeout_s), watchdog_(watchdog) {
  for (const RankProcess& p : procs) ranks_.push_back(Rank{.pid = p.pid, .fd = p.fd});
  auto limit = std::chrono::duration<double>(timeout_s);
  deadline_ = Clock::now() + std::chrono::duration_cast<Clock::duration>(limit);
}

LaunchResult Server::run() {
  while (failure_.empty() && !all_exited()) {
    poll_once();
    reap_exited();
    check_round_stuck();
    check_deadline();
    check_watchdog();
  }
  kill_and_reap();
  return LaunchResult{failure_.empty(), failure_};
}

void Server::poll_once() {
  std::vector<pollfd> fds;
  std::vector<int> owner;
  for (int r = 0; r < static_cast<int>(ranks_.size()); ++r) {
    if (ranks_[r].fd < 0) continue;
    fds.push_back(pollfd{ranks_[r].fd, POLLIN, 0});
    owner.push_back(r);
  }
  if (::poll(fds.data(), fds.size(), poll_timeout_ms()) <= 0) return;
  for (std::size_t i = 0; i < fds.size() && failure_.empty(); ++i)
    if (fds[i].revents != 0) read_request(owner[i]);
}

// A closed channel usually means the process is exiting: look again soon so
// the exit status is collected quickly. Otherwise wake up now and then to
// notice exits whose channel stays open (an fd inherited by a grandchild).
int Server::poll_timeout_ms() const {
  int ms = 100;
  for (const Rank& rank : ranks_)
    if (rank.fd < 0 && !rank.exited) ms = 1;
  if (timeout_s_ > 0) {
    auto left = std::chrono::ceil<std::chrono::milliseconds>(deadline_ - Clock::now()).count();
    ms = static_cast<int>(std::clamp<long long>(left, 0, ms));
  }
  return ms;
}

void Server::read_request(int r) {
  Rank& rank = ranks_[r];
  FrameHeader h;
  if (!recv_all(rank.fd, &h, sizeof h)) return close_channel(r);
  if (h.kind != kFrameAllgather) return fail(who(r) + " sent an unknown bootstrap request");
  if (rank.contributed)
    return fail(who(r) + " sent a bootstrap request before its previous one was answered");
  if (!accept_size(r, h.bytes)) return;
  if (!recv_all(rank.fd, round_data_.data() + r * h.bytes, h.bytes)) return close_channel(r);
  rank.contributed = true;
  if (++contributions_ == static_cast<int>(ranks_.size())) answer_round();
}

// The first contribution of a round fixes its size; the others must agree.
bool Server::accept_size(int r, uint64_t bytes) {
  if (contributions_ == 0) {
    first_contributor_ = r;
    round_bytes_ = bytes;
    round_data_.assign(bytes * ranks_.size(), 0);
    return true;
  }
  if (bytes == round_bytes_) return true;
  fail(who(r) + " passed " + std::to_string(bytes) + " bytes to a bootstrap allgather, rank " +
       std::to_string(first_contributor_) + " passed " + std::to_string(round_bytes_));
  return false;
}

void Server::answer_round() {
  FrameHeader h{kFrameAllgather, 0, round_data_.size()};
  for (int r = 0; r < static_cast<int>(ranks_.size()); ++r) {
    ranks_[r].contributed = false;
    if (ranks_[r].fd < 0) continue;
    // A rank that died meanwhile fails the send; its exit status says why.
    if (!send_all(ranks_[r].fd, &h, sizeof h) ||
        !send_all(ranks_[r].fd, round_data_.data(), round_data_.size()))
      close_channel(r);
  }
  contributions_ = 0;
}

void Server::close_channel(int r) {
  ::close(ranks_[r].fd);
  ranks_[r].fd = -1;
  ranks_[r].closed_at = Clock::now();
}

void Server::reap_exited() {
  for (int r = 0; r < static_cast<int>(ranks_.size()); ++r) {
    Rank& rank = ranks_[r];
    if (rank.exited || ::waitpid(rank.pid, &rank.status, WNOHANG) != rank.pid) continue;
    rank.exited = true;
    if (!WIFEXITED(rank.status) || WEXITSTATUS(rank.status) != 0)
      fail(who(r) + " " + exit_cause(rank.status));
  }
}

// Ranks waiting in a collective that a finished rank will never join would
// wait forever: report the rank that left.
void Server::check_round_stuck() {
  if (contributions_ == 0 || !failure_.empty()) return;
  std::vector<int> waiting;
  for (int r = 0; r < static_cast<int>(ranks_.size()); ++r)
    if (ranks_[r].contributed) waiting.push_back(r);
  for (int r = 0; r < static_cast<int>(ranks_.size()); ++r) {
    const Rank& rank = ranks_[r];
    if (rank.contributed || !gone(rank)) continue;
    std::string what = rank.exited ? exit_cause(rank.status) : "closed its bootstrap channel";
    const char* verb = waiting.size() == 1 ? " waits" : " wait";
    return fail(who(r) + " " + what + " while " + listed(waiting) + verb +
                " in a bootstrap collective");
  }
}

bool Server::gone(const Rank& rank) const {
  return rank.exited || (rank.fd < 0 && Clock::now() - rank.closed_at > kClosedGrace);
}

void Server::check_deadline() {
  if (timeout_s_ <= 0 || !failure_.empty() || Clock::now() < deadline_) return;
  std::vector<int> running;
  for (int r = 0; r < static_cast<int>(ranks_.size()); ++r)
    if (!ranks_[r].exited) running.push_back(r);
  std::ostringstream seconds;
  seconds << timeout_s_;
  fail(who(running) + " still running after " + seconds.str() + " s (killed)");
}

void Server::check_watchdog() {
  if (!watchdog_ || !failure_.empty()) return;
  if (std::string why = watchdog_(); !why.empty()) fail(why + " (killed)");
}

void Server::kill_and_reap() {
  for (Rank& rank : ranks_)
    if (!failure_.empty() && !rank.exited) ::kill(rank.pid, SIGKILL);
  for (Rank& rank : ranks_) {
    while (!rank.exited && ::waitpid(rank.pid, &rank.status, 0) < 0 && errno == EINTR) {
    }
    rank.exited = true;
    if (rank.fd >= 0) ::close(rank.fd);
    rank.fd = -1;
  }
}

bool Server::all_exited() const {
  for (const Rank& rank : ranks_)
    if (!rank.exited) return false;
  return true;
}

std::string Server::who(int r) const {
  return who(std::vector<int>{r});
}

// "rank 2 of 4" or "ranks 0,3 of 4".
std::string Server::who(const std::vector<int>& rs) const {
  return listed(rs) + " of " + std::to_string(ranks_.size());
}

// "rank 2" or "ranks 0,3".
std::string Server::listed(const std::vector<int>& rs) {
  std::string s = rs.size() == 1 ? "rank " : "ranks ";
  for (std::size_t i = 0; i < rs.size(); ++i) s += (i ? "," : "") + std::to_string(rs[i]);
  return s;
}

std::string Server::exit_cause(int status) const {
  if (WIFSIGNALED(status)) {
    int sig = WTERMSIG(status);
    return "killed by signal " + std::to_string(sig) + " (" + ::strsignal(sig) + ")";
  }
  return "exited with status " + std::to_string(WEXITSTATUS(status));
}

}  // namespace

LaunchResult serve_ranks(std::vector<RankProcess> ranks, double timeout_s,
                         const std::function<std::string()>& watchdog) {
  return Server(std::move(ranks), timeout_s, watchdog).run();
}

}  // namespace cct::detail
