// The reduce-scatter library: each algorithm for reduce_scatter_block and
// for reduce_scatter, exported as libcct_reduce_scatter.
#include "reduce_scatter/pairwise.hpp"
#include "reduce_scatter/recursive_halving.hpp"
#include "reduce_scatter/reduce_then_scatter.hpp"
#include "reduce_scatter/ring.hpp"
#include "reduce_scatter/shm_direct.hpp"

namespace rs = cct::plugins::reduce_scatter;

CCT_SDK_EXPORT_ALGORITHMS(rs::RecursiveHalving<CCT_REDUCE_SCATTER_BLOCK>,
                          rs::RecursiveHalving<CCT_REDUCE_SCATTER>,
                          rs::Ring<CCT_REDUCE_SCATTER_BLOCK>, rs::Ring<CCT_REDUCE_SCATTER>,
                          rs::Pairwise<CCT_REDUCE_SCATTER_BLOCK>, rs::Pairwise<CCT_REDUCE_SCATTER>,
                          rs::ReduceThenScatter<CCT_REDUCE_SCATTER_BLOCK>,
                          rs::ReduceThenScatter<CCT_REDUCE_SCATTER>,
                          rs::ShmDirect<CCT_REDUCE_SCATTER_BLOCK>,
                          rs::ShmDirect<CCT_REDUCE_SCATTER>)
