#include "datatype_layout.hpp"

#include <algorithm>
#include <atomic>
#include <map>
#include <memory>
#include <mutex>

#include "keyval_once.hpp"

namespace cct::interposer {
namespace {

// Beyond these a map is left to MPI_Pack: a cached map costs 16 bytes a
// run, and walking a constructor of many merged blocks costs a step each.
constexpr std::size_t kMaxRuns = std::size_t{1} << 18;
constexpr std::size_t kMaxSteps = std::size_t{1} << 24;

struct Shape {
  MPI_Count size = 0;
  MPI_Count true_lb = 0, true_extent = 0;
  MPI_Count lb = 0, extent = 0;
};

Shape shape_of(MPI_Datatype type) {
  Shape s;
  PMPI_Type_size_x(type, &s.size);
  PMPI_Type_get_true_extent_x(type, &s.true_lb, &s.true_extent);
  PMPI_Type_get_extent_x(type, &s.lb, &s.extent);
  return s;
}

// A type's map, or null when it is not flattened.
const TypeMap* map_of(MPI_Datatype type);
// A type's shape, as MPI gives it.
Shape described_shape(MPI_Datatype type);

// Runs appended in type-map order; false once past the limits.
class Runs {
 public:
  bool add(MPI_Aint offset, MPI_Aint length) {
    if (++steps_ > kMaxSteps) return false;
    if (length == 0) return true;
    if (!map_.runs.empty() && map_.runs.back().offset + map_.runs.back().length == offset) {
      map_.runs.back().length += length;
      return true;
    }
    if (map_.runs.size() == kMaxRuns) return false;
    map_.runs.push_back({offset, length});
    return true;
  }
  // blocklength elements of child from displacement at.
  bool add_block(MPI_Aint at, MPI_Count blocklength, MPI_Datatype child) {
    const TypeMap* c = map_of(child);
    if (c == nullptr) return false;
    const MPI_Aint extent = static_cast<MPI_Aint>(described_shape(child).extent);
    // Elements that follow each other with no gap make one run.
    if (c->runs.size() == 1 && c->runs[0].length == extent)
      return add(at + c->runs[0].offset, blocklength * extent);
    for (MPI_Count j = 0; j < blocklength; ++j)
      for (const Run& r : c->runs)
        if (!add(at + j * extent + r.offset, r.length)) return false;
    return true;
  }
  TypeMap take() {
    const auto equal = [&](const Run& r) { return r.length == map_.runs.front().length; };
    if (!map_.runs.empty() && std::all_of(map_.runs.begin(), map_.runs.end(), equal))
      map_.run_length = map_.runs.front().length;
    return std::move(map_);
  }

 private:
  TypeMap map_;
  std::size_t steps_ = 0;
};

// A derived type's constructor arguments (MPI_Type_get_contents), its
// datatypes freed after use as MPI asks.
struct Contents {
  int combiner = MPI_COMBINER_NAMED;
  std::vector<int> ints;
  std::vector<MPI_Aint> addresses;
  std::vector<MPI_Datatype> types;

  explicit Contents(MPI_Datatype type) {
    int nints = 0, naddresses = 0, ntypes = 0;
    PMPI_Type_get_envelope(type, &nints, &naddresses, &ntypes, &combiner);
    if (combiner == MPI_COMBINER_NAMED) return;
    ints.resize(nints);
    addresses.resize(naddresses);
    types.resize(ntypes);
    PMPI_Type_get_contents(type, nints, naddresses, ntypes, ints.data(), addresses.data(),
                           types.data());
  }
  ~Contents() {
    for (MPI_Datatype& t : types) {
      int nints, naddresses, ntypes, child_combiner;
      PMPI_Type_get_envelope(t, &nints, &naddresses, &ntypes, &child_combiner);
      if (child_combiner != MPI_COMBINER_NAMED) PMPI_Type_free(&t);
    }
  }
  Contents(const Contents&) = delete;
  Contents& operator=(const Contents&) = delete;
};

// A derived type's runs, from how it was constructed (the MPI standard's
// argument lists per combiner). Constructors not listed (subarray, darray,
// Fortran types) are left to MPI_Pack.
bool walk(const Contents& c, Runs& out) {
  const auto extent = [](MPI_Datatype t) {
    return static_cast<MPI_Aint>(described_shape(t).extent);
  };
  const int count = c.ints.empty() ? 0 : c.ints[0];
  switch (c.combiner) {
    case MPI_COMBINER_DUP:
    case MPI_COMBINER_RESIZED:  // moves lb and extent, not the data
      return out.add_block(0, 1, c.types[0]);
    case MPI_COMBINER_CONTIGUOUS: return out.add_block(0, count, c.types[0]);
    case MPI_COMBINER_VECTOR:  // count, blocklength, stride in elements
      for (int i = 0; i < count; ++i)
        if (!out.add_block(MPI_Aint{i} * c.ints[2] * extent(c.types[0]), c.ints[1], c.types[0]))
          return false;
      return true;
    case MPI_COMBINER_HVECTOR:  // count, blocklength; stride in bytes
      for (int i = 0; i < count; ++i)
        if (!out.add_block(i * c.addresses[0], c.ints[1], c.types[0])) return false;
      return true;
    case MPI_COMBINER_INDEXED:  // count, blocklengths, displacements in elements
      for (int i = 0; i < count; ++i)
        if (!out.add_block(c.ints[1 + count + i] * extent(c.types[0]), c.ints[1 + i], c.types[0]))
          return false;
      return true;
    case MPI_COMBINER_HINDEXED:  // count, blocklengths; displacements in bytes
      for (int i = 0; i < count; ++i)
        if (!out.add_block(c.addresses[i], c.ints[1 + i], c.types[0])) return false;
      return true;
    case MPI_COMBINER_INDEXED_BLOCK:  // count, blocklength, displacements in elements
      for (int i = 0; i < count; ++i)
        if (!out.add_block(c.ints[2 + i] * extent(c.types[0]), c.ints[1], c.types[0])) return false;
      return true;
    case MPI_COMBINER_HINDEXED_BLOCK:  // count, blocklength; displacements in bytes
      for (int i = 0; i < count; ++i)
        if (!out.add_block(c.addresses[i], c.ints[1], c.types[0])) return false;
      return true;
    case MPI_COMBINER_STRUCT:  // count, blocklengths; displacements in bytes; a type each
      for (int i = 0; i < count; ++i)
        if (!out.add_block(c.addresses[i], c.ints[1 + i], c.types[i])) return false;
      return true;
    default: return false;
  }
}

// What the interposer keeps of a datatype: its shape, and its map where it
// was flattened.
struct Flattened {
  Shape shape;
  bool done = false;  // false: not flattened, MPI_Pack packs it
  TypeMap map;
  bool named = false;
};

// A named type is one number, or a pair (MPI_DOUBLE_INT) whose two parts
// lie in order; one with a hole inside (MPI_SHORT_INT) is left to MPI_Pack.
Flattened flatten_named(MPI_Datatype type) {
  Flattened f;
  f.named = true;
  f.shape = shape_of(type);
  f.done = f.shape.true_extent == f.shape.size;
  if (f.done && f.shape.size > 0) {
    f.map.runs.push_back(
        {static_cast<MPI_Aint>(f.shape.true_lb), static_cast<MPI_Aint>(f.shape.size)});
    f.map.run_length = static_cast<MPI_Aint>(f.shape.size);
  }
  return f;
}

// Named types are never freed, so no derived type ever gets one's handle:
// they are kept by handle and looked up before MPI is asked anything, which
// makes the common call (MPI_INT, MPI_BYTE, MPI_DOUBLE) cost one lookup
// instead of five MPI calls. Per thread, so that looking up needs no lock
// while another thread adds a type.
std::map<MPI_Datatype, Flattened>& named_types() {
  static thread_local std::map<MPI_Datatype, Flattened> named;
  return named;
}

// A derived type's description is kept as its attribute (deleted by MPI with
// the type, so a handle reused for another type never sees a stale map):
// its constructor is walked once.
int delete_flattened(MPI_Datatype, int, void* value, void*) {
  delete static_cast<Flattened*>(value);
  return MPI_SUCCESS;
}

// Guards making the keyval and setting a description: two threads meeting
// a new type at once both walk it, and the second to set keeps the first's
// (setting another would delete the one the first thread holds).
std::mutex setting;
std::atomic<int> map_keyval{MPI_KEYVAL_INVALID};

int keyval() {
  return keyval_once(map_keyval, setting, [](int* k) {
    PMPI_Type_create_keyval(MPI_TYPE_NULL_COPY_FN, delete_flattened, k, nullptr);
  });
}

const Flattened& derived(MPI_Datatype type) {
  const int k = keyval();
  void* value = nullptr;
  int found = 0;
  PMPI_Type_get_attr(type, k, &value, &found);
  if (found) return *static_cast<const Flattened*>(value);
  auto flattened = std::make_unique<Flattened>();
  flattened->shape = shape_of(type);
  const Contents contents(type);
  Runs runs;
  flattened->done = walk(contents, runs);
  if (flattened->done) flattened->map = runs.take();
  const std::lock_guard<std::mutex> lock(setting);
  PMPI_Type_get_attr(type, k, &value, &found);
  if (!found) {
    value = flattened.release();
    PMPI_Type_set_attr(type, k, value);
  }
  return *static_cast<const Flattened*>(value);
}

const Flattened& described(MPI_Datatype type) {
  auto& named = named_types();
  if (const auto it = named.find(type); it != named.end()) return it->second;
  int nints, naddresses, ntypes, combiner;
  PMPI_Type_get_envelope(type, &nints, &naddresses, &ntypes, &combiner);
  if (combiner == MPI_COMBINER_NAMED) return named.emplace(type, flatten_named(type)).first->second;
  return derived(type);
}

const TypeMap* map_of(MPI_Datatype type) {
  const Flattened& f = described(type);
  return f.done ? &f.map : nullptr;
}

Shape described_shape(MPI_Datatype type) {
  return described(type).shape;
}

}  // namespace

BlockRun run_of(const int* counts, const int* displs, int n) {
  std::optional<BlockRun> run;
  for (int i = 0; i < n; ++i) {
    if (counts[i] <= 0) continue;
    const BlockRun one{displs[i], int64_t{displs[i]} + counts[i]};
    run = run ? BlockRun{std::min(run->first, one.first), std::max(run->end, one.end)} : one;
  }
  return run.value_or(BlockRun{});
}

std::optional<Layout> layout_of(int64_t count, MPI_Datatype type) {
  if (count < 0) return std::nullopt;
  if (type == MPI_DATATYPE_NULL) return count == 0 ? std::optional(Layout{}) : std::nullopt;
  const Flattened& f = described(type);
  const Shape& s = f.shape;
  Layout layout;
  layout.predefined = f.named;
  layout.bytes = static_cast<std::size_t>(count) * static_cast<std::size_t>(s.size);
  if (layout.bytes == 0) return layout;
  layout.first = static_cast<MPI_Aint>(s.true_lb);
  layout.extent = static_cast<MPI_Aint>(s.extent);
  const MPI_Count stride = (count - 1) * s.extent;  // from the first element to the last
  layout.low = static_cast<MPI_Aint>(s.true_lb + std::min<MPI_Count>(stride, 0));
  layout.high = static_cast<MPI_Aint>(s.true_lb + s.true_extent + std::max<MPI_Count>(stride, 0));
  layout.map = f.done ? &f.map : nullptr;
  // One run the size of the element, and elements that follow each other
  // with no gap.
  const bool one_run =
      layout.map != nullptr && layout.map->runs.size() == 1 && layout.map->runs[0].length == s.size;
  layout.contiguous = one_run && (count == 1 || s.extent == s.size);
  return layout;
}

}  // namespace cct::interposer
