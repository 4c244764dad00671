// ccautotune tuner: the outside check's figures, and the sizes they give
// back to the MPI library.
//
// The outside check (outside_check.hpp) times a written profile as a user
// does: a plain MPI benchmark in fresh processes, alternately on the MPI
// library alone and under the interposer with the profile. Its figures
// are kept beside the results (<fingerprint>.outside, CSV; not .csv, which
// scripts take for results files), one line per point where the profile's
// pick was not the library's own call:
//
//   collective,transport,nodes,np,bytes,datatype,pick,library_s,profile_s,runs
//   bcast,shm,1,2,4,,knomial(radix=3),2.7e-07,4.6e-07,5
//
// datatype: the element type whose rules chose the pick (a reduction's
// float rules), empty for the rules of every call; library_s and
// profile_s: the medians over the runs of each side, for a pick those at
// the latency level where it did worse (outside_result.hpp; runs: the
// fewer of the two sides' runs there), its profile_s corrected for the
// check's drift at that level, as measured on the points that keep the
// library.
//
// Why: within one tuner process the small calls of every candidate are
// timed 0.3-0.6 us slower than a plain program sees them, by how far
// depends on the process (measured on the project's 2-core VM: the
// library's 4-byte bcast 0.74-0.91 us in the tuner, 0.27-0.67 us from one
// plain process to the next, knomial 0.58 us in the same plain processes
// where the tuner put it level with the library), so the tuner's ratios of
// small calls lie nearer 1 than what users see, and its noise picks
// the project's algorithms where the library is faster.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "cct/registry.hpp"
#include "tuner/results_csv.hpp"

namespace cct::tuner {

struct OutsideFigure {
  std::string collective;
  std::string transport;
  int nodes = 1;
  int np = 0;
  int64_t bytes = 0;
  std::string datatype;  // the element type whose rules chose the pick, or empty
  std::string pick;      // the profile's choice there, as CCT_FORCE names it
  double library_s = 0;  // the library alone, median over the runs
  // Under the interposer with the profile, likewise; a pick's divided by
  // the check's drift (outside_result.hpp, OutsideResult::calibration).
  double profile_s = 0;
  int runs = 0;  // of each side (a pick's: at the level it was judged at)

  // The pick did not win outside by kOutsideWin: the library's own call
  // wins ties (do no harm). Measured here, the picks' ratios outside fall
  // apart into clear wins and losses (of 114 picks of a tune, 56 at 0.9 or
  // less and 53 above 1; 5 between 0.9 and 1), so the few within a few
  // percent are noise either way, and go to the library.
  static constexpr double kOutsideWin = 0.05;
  bool refuted() const { return profile_s > library_s * (1 - kOutsideWin); }
};

// Whether f's pick is the library's own call (CCT_CAP_LIBRARY).
bool keeps_library(const OutsideFigure& f, const Registry& registry);

// The file beside results "<dir>/<fingerprint>.csv": "<dir>/<fingerprint>.outside".
std::string outside_path(const std::string& results);

// The figures of the file, none where it does not exist. Throws
// cct::Error naming the file and line of a malformed one.
std::vector<OutsideFigure> read_outside(const std::string& path);

// Writes the file's figures with `figures` in place of those of the same
// point and pick (a check of a later profile keeps what an earlier one
// refuted, so that its sizes stay given back). Throws cct::Error naming
// the file where it cannot be written.
void merge_outside(const std::string& path, std::span<const OutsideFigure> figures);

// Gives back to the library each point a figure refuted (its pick not the
// library's own call, and slower): there (the figure's collective,
// transport, nodes, np and size; rows of its element type, or the untyped
// rows of every call; no root's own rows), every candidate but the
// library's call counts as no faster than the library's row of the same
// size, stage and count pattern times the ratio measured outside, and at
// least 1 + kOutsideWin (a refuted tie still lost). Not only
// the pick: where the tuner's figures of a size flattered it, they flatter
// the others as much, and none of them was checked from outside. So do
// the sizes the tuner measured between it and the next checked size on
// either side, where that one keeps the library or is refuted too (a
// crossover's bisection sizes, else left as islands of the pick). A size
// without a library row is left as it is. Returns one line per collective
// given sizes back.
std::vector<std::string> give_back_refuted(std::vector<ResultRow>& rows,
                                           std::span<const OutsideFigure> figures,
                                           const Registry& registry);

}  // namespace cct::tuner
