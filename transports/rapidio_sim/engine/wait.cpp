// What a blocked fiber waits for, in words, for deadlock reports.
#include <string>

#include "rapidio_sim/engine/impl.hpp"

namespace cct::rio {

std::string describe_wait(const WaitInfo& w) {
  auto n = [](uint64_t v) { return std::to_string(v); };
  switch (w.what) {
    case WaitInfo::What::kRecv:
      return "a message from DSP " + n(w.a) + " (tag " + n(w.b) + ", context " + n(w.c) + ")";
    case WaitInfo::What::kSend:
      return "the responses to its message to DSP " + n(w.a) + " (tag " + n(w.b) + ", context " +
             n(w.c) + ")";
    case WaitInfo::What::kBcast:
      return "bcast " + n(w.b) + " of context " + n(w.a) + " from DSP " + n(w.d);
    case WaitInfo::What::kGather:
      return "gather " + n(w.b) + " of context " + n(w.a) + " to DSP " + n(w.d);
    case WaitInfo::What::kReduce:
      return "reduce " + n(w.b) + " of context " + n(w.a) + " to DSP " + n(w.d);
    case WaitInfo::What::kCounterReply:
      return "the reply to fetch_add on counter " + n(w.b) + " of context " + n(w.a);
    case WaitInfo::What::kCounterValue:
      return "counter " + n(w.b) + " of context " + n(w.a) + " to reach " + n(w.c);
    case WaitInfo::What::kRendezvous:
      return "rendezvous " + n(w.a) + " (" + n(w.b) + " of " + n(w.c) + " arrived)";
    case WaitInfo::What::kQuiet: return "the network to fall idle, to end quiet meeting " + n(w.a);
    case WaitInfo::What::kCompute: return "its compute time";
  }
  return "an unknown event";
}

}  // namespace cct::rio
