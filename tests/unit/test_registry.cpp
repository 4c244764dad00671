// The registry: loads good plugins, refuses each kind of bad library with its
// reason while the rest still load, refuses a bad entry alone while the rest
// of its library loads, lists exports without loading, and keeps a library
// loaded while anything from it is alive.
#include <dlfcn.h>

#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>

#include "cct/registry.hpp"
#include "support/harness.hpp"

namespace fs = std::filesystem;

namespace {

const std::string kPlugins = CCT_TEST_BUILD_DIR "/lib/cct";
const std::string kExamples = CCT_TEST_BUILD_DIR "/lib/cct-examples";
const std::string kTestPlugins = CCT_TEST_PLUGIN_DIR;

std::string test_plugin(const std::string& name) {
  return kTestPlugins + "/libcct_test_" + name + ".so";
}

bool is_loaded(const std::string& path) {
  void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_NOLOAD);
  if (handle) dlclose(handle);
  return handle != nullptr;
}

}  // namespace

TEST_CASE("registry loads the build tree's plugins", "[registry]") {
  cct::Registry reg;
  reg.load_directories({kPlugins, kExamples});
  for (const auto& r : reg.reports()) {
    INFO(r.path << ": " << r.reason);
    CHECK(r.loaded);
  }
  REQUIRE(reg.find_transport("shm") != nullptr);
  const cct::AlgorithmEntry* example = reg.find_algorithm(CCT_BCAST, "example_flat");
  REQUIRE(example != nullptr);
  CHECK(example->default_params() == std::vector<int64_t>{4});
  CHECK(reg.find_algorithm(CCT_BARRIER, "example_flat") == nullptr);
}

TEST_CASE("the example plugin is outside the default search path", "[registry]") {
  cct::Registry reg;
  reg.load_default();
  CHECK(reg.find_transport("shm") != nullptr);
  CHECK(reg.find_algorithm(CCT_BCAST, "example_flat") == nullptr);
}

TEST_CASE("registry refuses each bad library with its reason and loads the rest", "[registry]") {
  cct::Registry reg;
  reg.load_directories({kPlugins, kExamples});
  const std::size_t good = reg.algorithms().size();
  struct Case {
    std::string library, reason;
  };
  const Case cases[] = {
      {"bad_version", "algorithm set declares ABI version 99, this host speaks versions 2 and 1"},
      {"future_abi", "built for plugin ABI version 3, this host speaks versions 2 and 1"},
      {"no_symbol",
       "missing symbol: exports none of cct_algorithms_v2, cct_transport_v2, cct_algorithms_v1, "
       "cct_transport_v1 in section 'cct'"},
      {"unresolved", "failed to load"},
      {"bad_transport", "transport 'broken' lacks probe/open/close"},
      {"not_elf", "not a loadable shared library"},
  };
  for (const auto& c : cases) {
    const cct::LibraryReport& r = reg.load_library(test_plugin(c.library));
    INFO(c.library << ": " << r.reason);
    CHECK_FALSE(r.loaded);
    CHECK(r.reason.find(c.reason) != std::string::npos);
  }
  CHECK(reg.algorithms().size() == good);
  CHECK(reg.find_transport("broken") == nullptr);
  CHECK(reg.load_library(test_plugin("c_linear_barrier")).loaded);
  // Its descriptor ends before `cost`, appended within version 2: loaded,
  // stating no cost.
  const cct::AlgorithmEntry* c_linear = reg.find_algorithm(CCT_BARRIER, "c_linear");
  REQUIRE(c_linear != nullptr);
  CHECK(c_linear->desc->struct_size < sizeof(cct_algorithm_desc));
  CHECK_FALSE(c_linear->states_cost());
}

TEST_CASE("an algorithm named as one already loaded is refused alone", "[registry]") {
  cct::Registry reg;
  reg.load_directories({kExamples});
  const std::string example = kExamples + "/libcct_example.so";
  const cct::LibraryReport& r = reg.load_library(test_plugin("duplicate"));
  INFO(r.reason);
  CHECK(r.loaded);
  CHECK(r.refused_entries ==
        std::vector<std::string>{
            "bcast/example_flat: duplicate algorithm name, already provided by " + example});
  CHECK(reg.find_algorithm(CCT_BCAST, "example_flat")->library == example);
}

TEST_CASE("a bad entry is refused alone and the library's other entries load", "[registry]") {
  cct::Registry reg;
  const std::string path = test_plugin("mixed_entries");
  const cct::LibraryReport& r = reg.load_library(path);
  INFO(r.reason);
  CHECK(r.loaded);
  CHECK(r.abi_version == CCT_ABI_VERSION);
  REQUIRE(reg.algorithms().size() == 1);
  CHECK(std::string(reg.algorithms()[0].desc->doc) == "the good one");
  CHECK(r.refused_entries ==
        std::vector<std::string>{
            "bcast/mixed_good: duplicate algorithm name, already provided by " + path,
            "entry 2: names collective 99, unknown to this host",
            "bcast/mixed_bad_range: parameter 'segment' has an empty or endless range",
            "entry 4: the algorithm table holds a null entry"});
}

TEST_CASE("registry lists exports without loading a refused library", "[registry]") {
  cct::Registry reg;
  const cct::LibraryReport& r = reg.load_library(test_plugin("future_abi"));
  CHECK(r.exports == std::vector<std::string>{"cct_algorithms_v3"});
  CHECK_FALSE(is_loaded(test_plugin("future_abi")));
}

TEST_CASE("a directory mixing good and bad libraries loads the good ones", "[registry]") {
  const fs::path dir = fs::temp_directory_path() / ("cct-registry-" + std::to_string(getpid()));
  fs::create_directories(dir);
  for (const auto& entry : fs::directory_iterator(kTestPlugins))
    fs::copy_file(entry.path(), dir / entry.path().filename(),
                  fs::copy_options::overwrite_existing);
  fs::copy_file(kExamples + "/libcct_example.so", dir / "libcct_example.so",
                fs::copy_options::overwrite_existing);
  cct::Registry reg;
  reg.load_directories({dir.string()});
  int loaded = 0, refused = 0;
  for (const auto& r : reg.reports()) (r.loaded ? loaded : refused)++;
  fs::remove_all(dir);
  // The C barrier, the no-in-place plugin, the small device allreduce, the
  // host_device transport, the example, the two version 1 plugins, and the
  // two whose bad entries are refused alone: files load in name order,
  // libcct_example.so before libcct_test_duplicate.so, so the duplicate's
  // entry is the one refused.
  CHECK(loaded == 9);
  CHECK(refused == 6);
  CHECK(reg.find_algorithm(CCT_BARRIER, "c_linear") != nullptr);
  CHECK(reg.find_algorithm(CCT_BCAST, "example_flat") != nullptr);
}

TEST_CASE("CCT_PLUGIN_PATH directories come first in the search path", "[registry]") {
  setenv("CCT_PLUGIN_PATH", "/tmp/cct-a:/tmp/cct-b", 1);
  const auto dirs = cct::Registry::default_search_path();
  unsetenv("CCT_PLUGIN_PATH");
  REQUIRE(dirs.size() >= 3);
  CHECK(dirs[0] == "/tmp/cct-a");
  CHECK(dirs[1] == "/tmp/cct-b");
  CHECK(dirs[2] == kPlugins);
}

TEST_CASE("CCT_PLUGIN_PATH takes library files and warns about entries that do not exist",
          "[registry]") {
  const std::string file = test_plugin("c_linear_barrier");
  setenv("CCT_PLUGIN_PATH", ("/tmp/cct-no-such-dir:" + file).c_str(), 1);
  cct::Registry reg;
  reg.load_default();
  const std::string searched = reg.searched();
  unsetenv("CCT_PLUGIN_PATH");
  CHECK(reg.find_algorithm(CCT_BARRIER, "c_linear") != nullptr);  // the file itself
  CHECK(reg.find_transport("shm") != nullptr);                    // and the default directory
  CHECK(reg.warnings() ==
        std::vector<std::string>{"CCT_PLUGIN_PATH entry '/tmp/cct-no-such-dir' does not exist; "
                                 "skipped"});
  CHECK(searched == "searched " + file + ", " + kPlugins +
                        "; CCT_PLUGIN_PATH = '/tmp/cct-no-such-dir:" + file + "'");
  cct::Registry none;
  none.load_directories({"/tmp/cct-no-such-dir"});
  CHECK(none.algorithms().empty());
  CHECK(none.searched() == "searched nothing (no plugin directory exists); CCT_PLUGIN_PATH unset");
}

TEST_CASE("a plugin stays loaded while an entry from it is alive", "[registry]") {
  const std::string path = test_plugin("c_linear_barrier");
  cct::AlgorithmEntry kept;
  {
    cct::Registry reg;
    reg.load_library(path);
    kept = *reg.find_algorithm(CCT_BARRIER, "c_linear");
  }
  CHECK(is_loaded(path));
  CHECK(std::string(kept.desc->name) == "c_linear");
  kept = {};
  CHECK_FALSE(is_loaded(path));
}

TEST_CASE("a plugin written in C runs on several ranks", "[registry]") {
  cct::test::registry().load_library(test_plugin("c_linear_barrier"));
  const auto& barrier = cct::test::algorithm(CCT_BARRIER, "c_linear");
  for (int n : {1, 3}) {
    CHECK(cct::test::on_ranks(n, [&](cct::Communicator& comm) {
            cct::Plan plan(barrier, comm, {});
            cct_coll_args args{sizeof args, CCT_ABI_VERSION, CCT_BARRIER};
            for (int i = 0; i < 10; ++i) plan.run(args);
          }) == "");
  }
}

TEST_CASE("a stripped plugin is still listed and loaded", "[registry]") {
  // Installed plugins are often stripped: exports must be read from .dynsym.
  const fs::path copy =
      fs::temp_directory_path() / ("libcct-stripped-" + std::to_string(getpid()) + ".so");
  fs::copy_file(test_plugin("c_linear_barrier"), copy, fs::copy_options::overwrite_existing);
  REQUIRE(std::system(("strip " + copy.string()).c_str()) == 0);
  cct::Registry reg;
  const cct::LibraryReport r = reg.load_library(copy.string());
  fs::remove(copy);
  INFO(r.reason);
  CHECK(r.loaded);
  CHECK(r.exports == std::vector<std::string>{"cct_algorithms_v2"});
}
