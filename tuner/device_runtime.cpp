#include "tuner/device_runtime.hpp"

#include <string>

#include "cct/error.hpp"
#include "cct/profile.hpp"
#include "cct/units.hpp"

namespace cct::tuner {

std::unique_ptr<Runtime> device_runtime(const Registry& registry, const Communicator& host,
                                        const Communicator& device, const AlgorithmEntry* alg,
                                        const std::vector<int64_t>& params) {
  // Not owned: the caller's communicators outlive the runtime.
  auto rt = std::make_unique<Runtime>(
      registry, std::shared_ptr<const Communicator>(std::shared_ptr<const Communicator>(), &host),
      Runtime::Options{});
  Selector rules;
  if (alg != nullptr) {
    const std::string rule = std::string(collective_name(alg->desc->collective)) +
                             ":0-max:" + format_choice(*alg->desc, params);
    rules = Selector(Profile{}, parse_force(rule, &registry), registry,
                     device.transport().entry().desc->name, device.size(), device.nodes());
  }
  rt->use_device(
      std::shared_ptr<const Communicator>(std::shared_ptr<const Communicator>(), &device),
      std::move(rules));
  return rt;
}

}  // namespace cct::tuner
