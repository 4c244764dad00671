#include "tuner/kept_file.hpp"

#include <filesystem>
#include <iostream>

#include "cct/error.hpp"

namespace cct::tuner {

void open_kept_file(const std::string& path, bool resume, const std::function<void()>& read,
                    const std::string& lost) {
  if (!resume) std::filesystem::remove(path);
  try {
    read();
  } catch (const Error& e) {
    std::cout << "ccautotune: " << e.what() << "; " << lost << ", and it is written anew"
              << std::endl;
    std::filesystem::remove(path);
  }
}

}  // namespace cct::tuner
