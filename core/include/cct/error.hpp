// ccautotune host library: the exception the host API throws.
#pragma once

#include <stdexcept>
#include <string>

#include "cct/abi/common.h"

namespace cct {

// A failure with the ABI status it maps to and a message that names the
// problem (which file, which rank, which plugin).
class Error : public std::runtime_error {
 public:
  explicit Error(const std::string& what, cct_status status = CCT_ERR_INTERNAL)
      : std::runtime_error(what), status_(status) {}
  cct_status status() const { return status_; }

 private:
  cct_status status_;
};

// Names for the ABI enums, as profiles, logs and ccinfo print them.
const char* collective_name(cct_collective c);
const char* datatype_name(cct_datatype d);
const char* op_name(cct_op o);
const char* status_name(cct_status s);
const char* level_name(int kind);
// "p2p,shm" for a CCT_CAP_* set; "none" when empty.
std::string capability_names(uint64_t caps);
// "pow2_only,in_place" for a CCT_LIMIT_* set; "none" when empty.
std::string limit_names(uint32_t limits);
// Inverse of collective_name; returns false for an unknown name.
bool parse_collective(const std::string& name, cct_collective* out);
// Inverse of datatype_name; returns false for an unknown name.
bool parse_datatype(const std::string& name, cct_datatype* out);

}  // namespace cct
