// ccautotune host library: finds, checks and loads plugin libraries.
//
// Search order: every entry of CCT_PLUGIN_PATH (colon separated: a
// directory, or one plugin library file), then the "cct" directory beside
// the host library (the build tree's lib/cct or the install prefix's
// lib/cct). Each candidate library is first read
// without being loaded (its "cct" section lists its exports); only a
// library exporting a symbol of an ABI version this host knows (2, or 1
// through an adapter) is loaded. A bad library is refused with its reason
// and the rest still load; a bad entry of a library is refused alone.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "cct/abi/algorithm.h"
#include "cct/abi/transport.h"

namespace cct {

class LoadedLibrary;  // keeps a dlopen'ed plugin alive (shared ownership)
namespace abi_v1 {
class Algorithm;  // an algorithm of a version 1 library, run through the adapter
}

// What the registry made of one library file.
struct LibraryReport {
  std::string path;
  std::vector<std::string> exports;  // cct_* symbols found without loading
  unsigned abi_version = 0;          // the version used, 0 if refused
  bool loaded = false;
  std::string reason;  // why it was refused; empty when loaded
  // Entries of a loaded library refused alone: "bcast/name: reason", or
  // "entry <i>: reason" where the entry has no name and collective to show.
  std::vector<std::string> refused_entries;
};

struct AlgorithmEntry {
  // What the algorithm is. Call it through the members below, never through
  // desc's function pointers: a version 1 entry's desc is the host's
  // version 2 copy of its metadata, without functions.
  const cct_algorithm_desc* desc = nullptr;
  std::string library;                          // path it came from
  std::shared_ptr<LoadedLibrary> owner;         // keeps desc valid
  std::shared_ptr<const abi_v1::Algorithm> v1;  // set for a version 1 library's entry
  std::vector<int64_t> default_params() const;
  // Its parameter values in table order: `by_name`'s, the defaults for the
  // others (names it does not declare are ignored).
  std::vector<int64_t> param_values(const std::map<std::string, int64_t>& by_name) const;
  // Whether it may be handed device memory (CCT_LIMIT_DEVICE_MEMORY): any
  // other runs on host copies of a call's device buffers
  // (cct/host_staging.hpp).
  bool takes_device_memory() const;
  // Whether the runtime may run it on a device transport's communicator,
  // on device memory: it takes device memory and the in-place forms (the
  // runtime's conversion of an in-place call to an algorithm without them
  // copies on the host).
  bool runs_on_device_memory() const;

  // As cct_algorithm_desc's functions, for either version.
  cct_status can_use(const cct_comm* comm, const cct_coll_args* args, const int64_t* params,
                     cct_error* why) const;
  cct_status prepare(const cct_comm* comm, const int64_t* params, void** plan,
                     cct_error* err) const;
  cct_status run(void* plan, const cct_coll_args* args, cct_error* err) const;
  void destroy(void* plan) const;
  // Whether it states a cost shape (cct_algorithm_desc.cost; a version 1
  // library's algorithms never do).
  bool states_cost() const;
  // Its cost shape, *out zeroed first; CCT_ERR_UNSUPPORTED with the reason
  // in *why where it states none or cannot say.
  cct_status cost(const cct_comm* comm, const cct_coll_args* args, const int64_t* params,
                  cct_cost* out, cct_error* why) const;
};

struct TransportEntry {
  const cct_transport_desc* desc = nullptr;  // the same layout in versions 1 and 2
  std::string library;
  std::shared_ptr<LoadedLibrary> owner;
  // The version it was loaded as: the bootstrap it is handed says this one.
  unsigned abi_version = CCT_ABI_VERSION;
};

// The directory holding libcct itself (build/lib, or <prefix>/lib).
std::string host_library_dir();

class Registry {
 public:
  // CCT_PLUGIN_PATH's directories, then the plugin directory beside the
  // host library.
  static std::vector<std::string> default_search_path();

  // Loads every lib*.so of each directory (sorted by name, so the first of
  // two duplicates is the one kept), or the file itself where an entry is
  // one. Missing entries are skipped.
  void load_directories(const std::vector<std::string>& dirs);
  // The default search path; a CCT_PLUGIN_PATH entry that does not exist is
  // skipped with a warning (warnings()).
  void load_default();
  // Loads one library file; the outcome is appended to reports().
  const LibraryReport& load_library(const std::string& path);

  const std::vector<LibraryReport>& reports() const { return reports_; }
  // Where the loads looked, in order, and what CCT_PLUGIN_PATH was: for
  // messages about a plugin that was not found.
  std::string searched() const;
  const std::vector<std::string>& warnings() const { return warnings_; }
  const std::vector<AlgorithmEntry>& algorithms() const { return algorithms_; }
  const std::vector<TransportEntry>& transports() const { return transports_; }

  const AlgorithmEntry* find_algorithm(cct_collective c, std::string_view name) const;
  // The algorithm of c that is the MPI library's own call (one that needs
  // CCT_CAP_LIBRARY: plugins/library's `mpi`), or null.
  const AlgorithmEntry* library_algorithm(cct_collective c) const;
  const TransportEntry* find_transport(std::string_view name) const;

 private:
  std::string check_and_add_algorithms(const cct_algorithm_set* set, unsigned version,
                                       const std::shared_ptr<LoadedLibrary>& lib,
                                       LibraryReport& report);
  std::string add_algorithm(const AlgorithmEntry& entry);
  std::string check_and_add_transport(const cct_transport_desc* desc, unsigned version,
                                      const std::string& path,
                                      const std::shared_ptr<LoadedLibrary>& lib);

  std::vector<LibraryReport> reports_;
  std::vector<std::string> searched_;
  std::vector<std::string> warnings_;
  std::vector<AlgorithmEntry> algorithms_;
  std::vector<TransportEntry> transports_;
};

}  // namespace cct
