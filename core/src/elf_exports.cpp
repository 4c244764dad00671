#include "elf_exports.hpp"

#include <elf.h>

#include <boost/interprocess/file_mapping.hpp>
#include <boost/interprocess/mapped_region.hpp>
#include <cstring>
#include <span>

#include "cct/error.hpp"

namespace cct {
namespace {

// The file's bytes with bounds-checked views into them, mapped read-only
// rather than read onto the heap: the interposer loads the plugins inside
// the program's MPI_Init, and freeing megabytes of the program's heap there
// raises glibc's mmap threshold (it follows the largest mapped chunk
// freed), so that the program's own large buffers come from the heap
// afterwards, at other alignments than it would give them. Measured on
// the project's AMD EPYC VM: a 2 MiB buffer pair 16 bytes apart modulo 64
// made the MPI library's own 64 KiB copies 20 times slower (rep movsb),
// every large collective kept on the library 3-4 times slower.
class Image {
 public:
  Image(const std::string& path) : path_(path) {
    try {
      const boost::interprocess::file_mapping file(path.c_str(), boost::interprocess::read_only);
      region_ = boost::interprocess::mapped_region(file, boost::interprocess::read_only);
    } catch (const boost::interprocess::interprocess_exception& e) {
      fail(std::string("cannot map: ") + e.what());
    }
    bytes_ = {static_cast<const char*>(region_.get_address()), region_.get_size()};
  }
  template <class T>
  const T& at(uint64_t offset, uint64_t index = 0) const {
    const uint64_t pos = offset + index * sizeof(T);
    if (pos < offset || pos + sizeof(T) > bytes_.size()) fail("truncated or malformed");
    return *reinterpret_cast<const T*>(bytes_.data() + pos);
  }
  // The NUL-terminated string at `offset` inside a string table section.
  std::string string_in(const Elf64_Shdr& table, uint64_t offset) const {
    if (offset >= table.sh_size || table.sh_offset + table.sh_size > bytes_.size())
      fail("bad string table");
    const char* s = bytes_.data() + table.sh_offset + offset;
    return std::string(s, strnlen(s, table.sh_size - offset));
  }
  [[noreturn]] void fail(const std::string& what) const {
    throw Error("not a loadable shared library (" + path_ + ": " + what + ")", CCT_ERR_ABI);
  }

 private:
  std::string path_;
  boost::interprocess::mapped_region region_;
  std::span<const char> bytes_;
};

const Elf64_Ehdr& header(const Image& img) {
  const auto& eh = img.at<Elf64_Ehdr>(0);
  if (std::memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0) img.fail("no ELF magic");
  if (eh.e_ident[EI_CLASS] != ELFCLASS64) img.fail("not ELF64");
  if (eh.e_type != ET_DYN) img.fail("not a shared object");
  if (eh.e_shentsize != sizeof(Elf64_Shdr) || eh.e_shstrndx >= eh.e_shnum) img.fail("no sections");
  return eh;
}

}  // namespace

std::vector<std::string> elf_section_exports(const std::string& path, const std::string& section) {
  const Image img(path);
  const Elf64_Ehdr& eh = header(img);
  auto shdr = [&](uint64_t i) -> const Elf64_Shdr& { return img.at<Elf64_Shdr>(eh.e_shoff, i); };
  const Elf64_Shdr& names = shdr(eh.e_shstrndx);
  uint64_t wanted = SHN_UNDEF, dynsym = SHN_UNDEF;
  for (uint64_t i = 1; i < eh.e_shnum; ++i) {
    if (img.string_in(names, shdr(i).sh_name) == section) wanted = i;
    if (shdr(i).sh_type == SHT_DYNSYM) dynsym = i;
  }
  std::vector<std::string> exports;
  if (wanted == SHN_UNDEF || dynsym == SHN_UNDEF) return exports;
  const Elf64_Shdr& symtab = shdr(dynsym);
  if (symtab.sh_link >= eh.e_shnum) img.fail("bad symbol table link");
  const Elf64_Shdr& strtab = shdr(symtab.sh_link);
  for (uint64_t i = 1; i < symtab.sh_size / sizeof(Elf64_Sym); ++i) {
    const auto& sym = img.at<Elf64_Sym>(symtab.sh_offset, i);
    const int bind = ELF64_ST_BIND(sym.st_info);
    if (sym.st_shndx != wanted || (bind != STB_GLOBAL && bind != STB_WEAK) ||
        ELF64_ST_VISIBILITY(sym.st_other) != STV_DEFAULT)
      continue;
    exports.push_back(img.string_in(strtab, sym.st_name));
  }
  return exports;
}

}  // namespace cct
