// ccbench_device: the algorithms on device memory beside what a call on
// device buffers gets without them, and beside the device's own copy rate,
// measured side by side in one run, on ranks launched here (no mpirun: the
// project's GPU machine has no MPI).
//
//   ccbench_device [--np 2,4] [--transport cuda] [--min-bytes 4k] [--max-bytes 256M]
//                  [--collectives allreduce,bcast]
//
// For each rank count, each collective with algorithms on device memory
// (plugins/device) and each size (powers of 4; the size as the profile's
// rules key it), every rank's buffers in device memory:
//   - each algorithm on device memory, as a program's call reaches it: a
//     runtime whose device rules name it alone (the agreement on memory
//     kinds included);
//   - `staged`: the call on a runtime without device rules, which runs the
//     collective's built-in default on host copies of the device buffers;
//   - `copy`: one device-to-device copy of the size's bytes on every rank at
//     once, the device's own rate (with ranks sharing one GPU, they share it).
// Times are a call's mean over blocks of calls, each followed by a barrier
// (the tuner's confirmation: tuner/measure.hpp, measure_as_programs), the
// median of 5 rounds. `ratio` is staged over the algorithm (above 1: the
// algorithm on device memory is faster); `GB/s` is the copy's size over
// its time.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdio>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "cct/cli/validators.hpp"
#include "cct/collectives.hpp"
#include "cct/device_memory.hpp"
#include "cct/error.hpp"
#include "cct/launcher.hpp"
#include "cct/runtime.hpp"
#include "cct/topology.hpp"
#include "cct/units.hpp"
#include "tuner/device_runtime.hpp"
#include "tuner/measure.hpp"

namespace {

using cct::tuner::Call;
using cct::tuner::CallRunner;
using cct::tuner::PointResult;

struct Options {
  std::vector<int> nps{2, 4};
  std::string transport = "cuda";
  int64_t min_bytes = 4 << 10;
  int64_t max_bytes = int64_t{256} << 20;
  std::vector<std::string> collectives;
};

// The sizes: powers of 4 from min_bytes (rounded up to one) to max_bytes.
std::vector<int64_t> sizes_of(const Options& o) {
  std::vector<int64_t> sizes;
  int64_t b = 1;
  while (b < o.min_bytes) b *= 4;
  for (; b <= o.max_bytes; b *= 4) sizes.push_back(b);
  return sizes;
}

// The collectives to run: those with algorithms on device memory, of the
// ones named (all when none is).
std::vector<cct_collective> collectives_of(const cct::Registry& registry, const Options& o) {
  std::vector<cct_collective> out;
  for (const cct::CollectiveInfo& c : cct::collectives()) {
    const bool named =
        o.collectives.empty() || std::ranges::find(o.collectives, c.name) != o.collectives.end();
    const bool on_device = std::ranges::any_of(registry.algorithms(), [&](const auto& a) {
      return a.desc->collective == c.id && a.runs_on_device_memory();
    });
    if (named && on_device) out.push_back(c.id);
  }
  return out;
}

// One rank's side of the run: the host transport (shm), the device
// transport over it, a communicator over each.
class Bench {
 public:
  Bench(const cct::Registry& registry, const cct::TransportEntry& device, cct::Bootstrap& boot,
        const cct::Topology& topo)
      : registry_(registry),
        shm_(std::make_shared<cct::TransportInstance>(shm(registry), boot)),
        host_(std::make_shared<cct::Communicator>(boot, shm_, topo, -1)),
        device_(std::make_shared<cct::Communicator>(
            boot, std::make_shared<cct::TransportInstance>(device, boot, shm_), topo, -1)) {}

  void run(const Options& o) {
    std::vector<Call> calls;
    for (cct_collective c : collectives_of(registry_, o))
      for (int64_t bytes : sizes_of(o)) calls.push_back({c, bytes});
    cct::tuner::Measurer measurer(registry_, *device_, calls, {});
    const std::size_t largest = static_cast<std::size_t>(o.max_bytes);
    const std::shared_ptr<std::byte> from = cct::device_memory(raw_device(), largest, "copy"),
                                     to = cct::device_memory(raw_device(), largest, "copy");
    if (rank() == 0)
      std::printf("%-20s %5s %8s %-18s %12s %12s %7s %12s %8s\n", "collective", "ranks", "bytes",
                  "algorithm", "us", "staged_us", "ratio", "copy_us", "copy_GB/s");
    for (const Call& call : calls) {
      std::vector<std::string> names;
      std::vector<CallRunner> runners;
      for (const cct::AlgorithmEntry& alg : registry_.algorithms())
        if (alg.desc->collective == call.collective && alg.runs_on_device_memory()) {
          names.push_back(alg.desc->name);
          runners.push_back(runner(&alg));
        }
      runners.push_back(runner(nullptr));  // staged
      runners.push_back([&, bytes = static_cast<std::size_t>(call.bytes)](const cct_coll_args&) {
        cct::copy_and_wait(raw_device(), to.get(), from.get(), bytes, CCT_COPY_DEVICE_TO_DEVICE,
                           "copy");
      });
      const std::vector<double> expected(runners.size(), 1e-5 + call.bytes / 1e10);
      const std::vector<PointResult> r =
          measurer.measure_as_programs(runners, call, expected, cct::tuner::ProgramStyle{});
      if (rank() == 0) print(call, names, r);
    }
    runtimes_.clear();  // collective, on every rank alike, while the communicators are open
  }

 private:
  static const cct::TransportEntry& shm(const cct::Registry& registry) {
    const cct::TransportEntry* entry = registry.find_transport("shm");
    if (entry == nullptr) throw cct::Error("the shm transport plugin was not found");
    return *entry;
  }
  int rank() const { return host_->rank(); }
  cct_transport_instance* raw_device() const { return device_->transport().raw(); }

  // A call through a runtime whose device rules name alg alone (null:
  // none), as a program's call.
  CallRunner runner(const cct::AlgorithmEntry* alg) {
    runtimes_.push_back(cct::tuner::device_runtime(
        registry_, *host_, *device_, alg, alg ? alg->default_params() : std::vector<int64_t>{}));
    cct::Runtime& runtime = *runtimes_.back();
    return [&runtime](const cct_coll_args& args) { runtime.run(args); };
  }

  void print(const Call& call, const std::vector<std::string>& names,
             const std::vector<PointResult>& r) const {
    const double staged = r[names.size()].median_s, copy = r[names.size() + 1].median_s;
    for (std::size_t i = 0; i < names.size(); ++i)
      std::printf("%-20s %5d %8s %-18s %12.2f %12.2f %7.2f %12.2f %8.2f\n",
                  cct::collective_name(call.collective), device_->size(),
                  cct::format_bytes(call.bytes).c_str(), names[i].c_str(), r[i].median_s * 1e6,
                  staged * 1e6, staged / r[i].median_s, copy * 1e6, call.bytes / copy / 1e9);
    std::fflush(stdout);
  }

  const cct::Registry& registry_;
  std::shared_ptr<cct::TransportInstance> shm_;
  std::shared_ptr<cct::Communicator> host_;
  std::shared_ptr<cct::Communicator> device_;
  std::vector<std::unique_ptr<cct::Runtime>> runtimes_;
};

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{
      "The algorithms on device memory against the staged path and the device's copy "
      "rate, on ranks launched here.",
      "ccbench_device"};
  app.set_version_flag("--version", "ccbench_device " CCT_VERSION);
  Options o;
  app.add_option("--np", o.nps, "rank counts, each a run (default: 2,4)")
      ->delimiter(',')
      ->check(cct::cli::positive());
  app.add_option("--transport", o.transport, "the device transport (default: cuda)");
  app.add_option("--min-bytes", o.min_bytes, "smallest size (default: 4k)")
      ->transform(cct::cli::byte_size());
  app.add_option("--max-bytes", o.max_bytes, "largest size (default: 256M)")
      ->transform(cct::cli::byte_size());
  app.add_option("--collectives", o.collectives,
                 "only these (default: every one with algorithms "
                 "on device memory)")
      ->delimiter(',');
  try {
    app.parse(argc, argv);
    if (o.min_bytes < 1 || o.max_bytes < o.min_bytes)
      throw CLI::ValidationError("--min-bytes, --max-bytes", "need 1 <= min <= max");
  } catch (const CLI::Success& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::cerr << "ccbench_device: " << e.what() << "\nrun 'ccbench_device --help' for usage\n";
    return 2;
  }
  cct::Registry registry;
  registry.load_default();
  const cct::TransportEntry* device = registry.find_transport(o.transport);
  if (device == nullptr || !(device->desc->capabilities & CCT_CAP_DEVICE)) {
    std::cerr << "ccbench_device: no device transport '" << o.transport << "' ("
              << registry.searched() << ")\n";
    return 1;
  }
  // Judged before any rank starts: no driver, no device.
  cct_bootstrap probe{.struct_size = sizeof(cct_bootstrap),
                      .abi_version = CCT_ABI_VERSION,
                      .size = 1,
                      .nodes = 1,
                      .job_key = "cct-probe"};
  if (cct_error why{}; device->desc->probe(&probe, &why) != CCT_OK) {
    std::cerr << "ccbench_device: the " << o.transport
              << " transport cannot run here: " << why.message << "\n";
    return 1;
  }
  const cct::Topology topo = cct::Topology::discover();
  for (int np : o.nps) {
    const cct::LaunchResult result = cct::launch_local({.ranks = np}, [&](cct::Bootstrap& boot) {
      Bench(registry, *device, boot, topo).run(o);
      return 0;
    });
    if (!result.ok) {
      std::cerr << "ccbench_device: " << np << " ranks: " << result.error << "\n";
      return 1;
    }
  }
  return 0;
}
