// A pool of reusable operation records addressed by index, so packets name
// their operation by a slot number instead of a map lookup per hop. The
// generation of a slot changes when it is released, so a late packet of a
// finished operation is recognised and dropped.
#pragma once

#include <cstdint>
#include <vector>

namespace cct::rio {

template <class T>
class Slots {
 public:
  uint32_t acquire() {
    if (free_.empty()) {
      items_.emplace_back();
      gens_.push_back(1);
      return static_cast<uint32_t>(items_.size() - 1);
    }
    uint32_t id = free_.back();
    free_.pop_back();
    return id;
  }
  void release(uint32_t id) {
    items_[id] = T{};
    ++gens_[id];
    free_.push_back(id);
  }
  T& operator[](uint32_t id) { return items_[id]; }
  uint32_t gen(uint32_t id) const { return gens_[id]; }
  bool live(uint32_t id, uint32_t gen) const { return gens_[id] == gen; }
  void clear() {
    items_.clear();
    gens_.clear();
    free_.clear();
  }

 private:
  std::vector<T> items_;
  std::vector<uint32_t> gens_;
  std::vector<uint32_t> free_;
};

}  // namespace cct::rio
