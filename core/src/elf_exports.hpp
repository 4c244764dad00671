// Lists a shared library's exports without loading it.
#pragma once

#include <string>
#include <vector>

namespace cct {

// The dynamic symbols (global or weak, default visibility) that an ELF64
// shared object defines in section `section`, read from the file alone: no
// dlopen, none of the library's code runs. Throws cct::Error naming the file
// when it is not an ELF64 shared object or is malformed.
//
// Why not boost::dll::library_info: in Boost 1.74 its symbols(section) reads
// .symtab with whichever string table comes last in the file (wrong names or
// none for some layouts) and sees nothing in a stripped library; .dynsym with
// its linked string table is what the dynamic loader itself uses, and it
// survives strip.
std::vector<std::string> elf_section_exports(const std::string& path, const std::string& section);

}  // namespace cct
