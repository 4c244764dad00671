// A minimal streaming JSON writer for the tools' --json output.
#pragma once

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

namespace cct::tools {

class Json {
 public:
  explicit Json(std::ostream& out) : out_(out) {}

  Json& begin_object() { return open('{'); }
  Json& end_object() { return close('}'); }
  Json& begin_array() { return open('['); }
  Json& end_array() { return close(']'); }
  Json& key(const std::string& k) {
    separate();
    quote(k);
    out_ << ':';
    after_key_ = true;
    return *this;
  }
  Json& value(const std::string& s) {
    separate();
    quote(s);
    return *this;
  }
  Json& value(const char* s) { return value(std::string(s ? s : "")); }
  Json& value(int64_t v) {
    separate();
    out_ << v;
    return *this;
  }
  Json& value(double v) {
    separate();
    out_ << v;
    return *this;
  }
  Json& value(bool v) {
    separate();
    out_ << (v ? "true" : "false");
    return *this;
  }
  Json& strings(const std::vector<std::string>& list) {
    begin_array();
    for (const auto& s : list) value(s);
    return end_array();
  }

 private:
  Json& open(char c) {
    separate();
    out_ << c;
    first_.push_back(true);
    return *this;
  }
  Json& close(char c) {
    out_ << c;
    first_.pop_back();
    return *this;
  }
  // Commas between elements, none right after a key.
  void separate() {
    if (after_key_) {
      after_key_ = false;
      return;
    }
    if (first_.empty()) return;
    if (!first_.back()) out_ << ',';
    first_.back() = false;
  }
  void quote(const std::string& s) {
    out_ << '"';
    for (unsigned char c : s) {
      if (c == '"' || c == '\\')
        out_ << '\\' << c;
      else if (c == '\n')
        out_ << "\\n";
      else if (c < 0x20)
        out_ << "\\u00"
             << "0123456789abcdef"[c >> 4] << "0123456789abcdef"[c & 15];
      else
        out_ << c;
    }
    out_ << '"';
  }

  std::ostream& out_;
  std::vector<bool> first_;
  bool after_key_ = false;
};

}  // namespace cct::tools
