// ccautotune tuner: fast-cpp-csv-parser (libfccp), included the one way
// every file of the tuner must include it: its classes are defined by
// this macro, so two files that include it differently break the One
// Definition Rule (the results reader once read "Header missing" where
// another file had included it with the reader thread).
#pragma once

#define CSV_IO_NO_THREAD  // rows are read from memory or small files: no reader thread
// The reader cuts file names in its messages at 255 bytes on purpose (a
// GCC warning; clang, which builds the fuzzers, has no such group).
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wstringop-truncation"
#endif
#include <libfccp/csv.h>
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif
