#include "tuner/noise.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <fstream>
#include <iostream>
#include <sstream>
#include <thread>
#include <vector>

namespace cct::tuner {
namespace {

using Clock = std::chrono::steady_clock;

// The kernel's count of runnable tasks, the reader included; -1 when
// /proc/stat does not say.
int procs_running() {
  std::ifstream stat("/proc/stat");
  for (std::string key; stat >> key;) {
    if (key == "procs_running") {
      int n = -1;
      stat >> n;
      return n;
    }
    std::getline(stat, key);
  }
  return -1;
}

// A few microseconds of dependent arithmetic the compiler cannot drop.
double step(double x) {
  for (int i = 0; i < 2000; ++i) x = x * 1.0000001 + 1e-9;
  return x;
}

// Steps until `end`; the share of the wall time not spent in them, judged
// from the median step (a preempted step is long; so is the gap around it).
double lost_share(Clock::time_point end) {
  std::vector<double> steps;
  double x = 1;
  const Clock::time_point start = Clock::now();
  for (Clock::time_point t = start; t < end;) {
    x = step(x);
    const Clock::time_point next = Clock::now();
    steps.push_back(std::chrono::duration<double>(next - t).count());
    t = next;
  }
  const volatile double keep = x;
  (void)keep;
  if (steps.empty()) return 0;
  const double wall = std::chrono::duration<double>(Clock::now() - start).count();
  std::nth_element(steps.begin(), steps.begin() + steps.size() / 2, steps.end());
  return std::max(0.0, 1 - steps.size() * steps[steps.size() / 2] / wall);
}

}  // namespace

std::string Noise::describe() const {
  std::ostringstream text;
  text << other_tasks << " other runnable task" << (other_tasks == 1 ? "" : "s") << ", "
       << std::lround(lost * 100) << "% of the probe's time lost";
  return text.str();
}

Noise probe_noise(int cores) {
  const int threads = std::max(1, cores);
  const Clock::time_point end = Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                                   std::chrono::duration<double>(kProbeSeconds));
  std::vector<double> lost(threads);
  std::vector<std::thread> probe;
  for (int t = 0; t < threads; ++t) probe.emplace_back([&, t] { lost[t] = lost_share(end); });
  std::vector<int> running;
  while (Clock::now() < end) {
    running.push_back(procs_running());
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  for (std::thread& t : probe) t.join();
  Noise noise;
  noise.lost = *std::max_element(lost.begin(), lost.end());
  std::erase(running, -1);
  if (!running.empty()) {
    std::nth_element(running.begin(), running.begin() + running.size() / 2, running.end());
    noise.other_tasks = std::max(0, running[running.size() / 2] - threads - 1);
  }
  return noise;
}

Noise announce(const Noise& noise, const std::string& when) {
  std::cout << "ccautotune: noise " << when << ": " << noise.describe()
            << (noise.busy() ? " (busy: other work shares the cores)" : "") << std::endl;
  return noise;
}

std::string noise_record(const Noise& before, const Noise& after) {
  return "before: " + before.describe() + "; after: " + after.describe();
}

std::string noise_warning(const Noise& before, const Noise& after) {
  if (!before.busy() && !after.busy()) return "";
  return "warning: other work shared the cores while tuning (" + noise_record(before, after) +
         "); the figures may be that work's, not the algorithms': tune again on a quiet machine";
}

}  // namespace cct::tuner
