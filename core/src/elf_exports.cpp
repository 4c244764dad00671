#include "elf_exports.hpp"

#include <elf.h>

#include <cstring>
#include <fstream>
#include <iterator>

#include "cct/error.hpp"

namespace cct {
namespace {

// The file's bytes with bounds-checked views into them.
class Image {
 public:
  Image(const std::string& path) : path_(path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) fail("cannot open");
    bytes_.assign(std::istreambuf_iterator<char>(in), {});
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
  std::vector<char> bytes_;
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
