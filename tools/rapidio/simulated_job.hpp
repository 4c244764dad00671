// Running a program's ranks on the RapidIO fabric simulator: the transport
// from the build's plugins, and one job of N DSPs on a fabric.
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "cct/bootstrap.hpp"
#include "cct/communicator.hpp"
#include "cct/registry.hpp"
#include "cct/simulate.hpp"

namespace cct::rio_tools {

// How a rank reports a wrong result: throws std::runtime_error(what) when
// !ok, which fails the rank and names it in the job's report.
void expect(bool ok, const std::string& what);

class SimulatedFabric {
 public:
  // Loads the plugins; throws cct::Error when rapidio_sim is not among them
  // or `fabric` (a preset such as "chain:2", or a YAML file) is bad.
  explicit SimulatedFabric(std::string fabric);

  // Runs body on `ranks` DSPs, each with the job's bootstrap and a flat
  // communicator over all of them. Returns "" when every rank returned, else
  // which ranks failed and why (an exception's text, a deadlock).
  std::string run(
      int ranks,
      const std::function<void(Bootstrap&, const std::shared_ptr<Communicator>&)>& body) const;

  const Registry& registry() const { return registry_; }
  const TransportEntry& transport() const { return *transport_; }
  const std::string& fabric() const { return fabric_; }
  // Its description and fingerprint: what its tuned profile is keyed by.
  const SimulatedPlatform& platform() const { return platform_; }

 private:
  Registry registry_;
  const TransportEntry* transport_ = nullptr;
  std::string fabric_;
  SimulatedPlatform platform_;
};

}  // namespace cct::rio_tools
