#include "run_again.hpp"

#include <optional>
#include <ostream>

#include "cct/error.hpp"
#include "datatype_layout.hpp"

namespace cct::interposer {

[[gnu::tls_model(
    "initial-exec")]] constinit thread_local PreparedCall prepared_calls[CCT_COLLECTIVE_COUNT]{};
[[gnu::tls_model("initial-exec")]] constinit thread_local cct_coll_args converted_call{
    .collective = CCT_COLLECTIVE_COUNT};

namespace {

// A side of no datatype (a collective without it, or one not significant
// on this rank) or of a predefined one: never freed, so its handle never
// names another type.
bool predefined(MPI_Datatype type) {
  if (type == MPI_DATATYPE_NULL) return true;
  const std::optional<Layout> one = layout_of(1, type);
  return one && one->predefined;
}

// Where the conversion's buffer `converted` came from; nothing where it is
// the conversion's own (packed into scratch).
std::optional<BufferFrom> origin(const void* converted, const void* sendbuf, const void* recvbuf) {
  if (converted == nullptr || converted == CCT_IN_PLACE) return BufferFrom::kConversion;
  if (converted == sendbuf) return BufferFrom::kSendbuf;
  if (converted == recvbuf) return BufferFrom::kRecvbuf;
  return std::nullopt;
}

const void* from(BufferFrom origin, const void* converted, const void* sendbuf,
                 const void* recvbuf) {
  switch (origin) {
    case BufferFrom::kSendbuf: return sendbuf;
    case BufferFrom::kRecvbuf: return recvbuf;
    case BufferFrom::kConversion: break;
  }
  return converted;
}

}  // namespace

void remember(const Runtime& rt, cct_collective c, CallKey key, const void* sendbuf,
              const void* recvbuf) {
  key.in_place = in_place_of(sendbuf, recvbuf);
  const cct_coll_args args = converted_call;
  converted_call.collective = CCT_COLLECTIVE_COUNT;  // taken: a later call converts its own
  // Both MPI buffers at one address (erroneous but for MPI_IN_PLACE)
  // would not say which side the runtime's buffer came from.
  if (args.collective != c || rt.logs_every_call() || rt.device_transport() != nullptr ||
      (sendbuf != nullptr && sendbuf == recvbuf) || !predefined(key.send.type) ||
      !predefined(key.recv.type))
    return;
  const std::optional<BufferFrom> send = origin(args.sendbuf, sendbuf, recvbuf);
  const std::optional<BufferFrom> recv = origin(args.recvbuf, sendbuf, recvbuf);
  if (!send || !recv) return;
  prepared_calls[c] = {rt.serial(), key, args, *send, *recv};
}

cct_coll_args with_buffers(const PreparedCall& call, const void* sendbuf, void* recvbuf) {
  cct_coll_args args = call.args;
  args.sendbuf = from(call.send, args.sendbuf, sendbuf, recvbuf);
  args.recvbuf = const_cast<void*>(from(call.recv, args.recvbuf, sendbuf, recvbuf));
  return args;
}

void print_run_again(std::ostream& out) {
  RunAgain sum;
  PerThread<RunAgain>::for_each([&](const RunAgain& r) {
    for (int c = 0; c < CCT_COLLECTIVE_COUNT; ++c) sum.calls[c] += r.calls[c];
  });
  bool header = false;
  for (int c = 0; c < CCT_COLLECTIVE_COUNT; ++c) {
    if (sum.calls[c] == 0) continue;
    if (!header)
      out << "cct: calls run again as the same call before, not converted again (rank 0)\n";
    header = true;
    out << "  " << collective_name(static_cast<cct_collective>(c)) << ": " << sum.calls[c]
        << " call(s)\n";
  }
}

}  // namespace cct::interposer
