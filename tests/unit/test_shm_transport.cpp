// The shm transport plugin through its C ABI, in launched ranks: p2p
// (ping-pong, all pairs, many messages in flight, tag and size mismatches),
// with and without CMA, shared regions and wait_u64, oversubscription, and
// the failures every rank must agree on. Nothing may be left in /dev/shm.
#include <sys/mman.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#include "cct/abi/transport.h"
#include "cct/launcher.hpp"
#include "shm_entries.hpp"
#include "support/harness.hpp"

namespace {

using Bytes = std::vector<unsigned char>;
using cct::test::expect;

const cct_transport_desc& shm_desc() {
  const cct::TransportEntry* entry = cct::test::registry().find_transport("shm");
  REQUIRE(entry != nullptr);
  return *entry->desc;
}

// How a rank configures the transport before opening it.
struct Mode {
  const char* cma = "1";       // CCT_SHM_CMA
  const char* threshold = "";  // CCT_SHM_CMA_THRESHOLD, "" for the default
};

const Mode kModes[] = {{"1", ""}, {"0", ""}, {"1", "0"}};

// An open instance of the transport, closed at the end of the scope.
class Shm {
 public:
  Shm(const cct_transport_desc& desc, cct::Bootstrap& boot, const Mode& mode = {}) : desc_(desc) {
    ::setenv("CCT_SHM_CMA", mode.cma, 1);
    if (*mode.threshold != '\0') ::setenv("CCT_SHM_CMA_THRESHOLD", mode.threshold, 1);
    cct_error err{};
    if (desc.open(boot.c_view(), &inst_, &err) != CCT_OK)
      throw std::runtime_error(std::string("shm open: ") + err.message);
  }
  ~Shm() { desc_.close(inst_); }
  Shm(const Shm&) = delete;
  Shm& operator=(const Shm&) = delete;

  cct_transport_instance* operator->() const { return inst_; }

  void isend(const Bytes& buf, int peer, uint32_t tag, cct_request& req) const {
    ok(inst_->p2p->isend(inst_, buf.data(), buf.size(), peer, tag, &req), "isend");
  }
  void irecv(Bytes& buf, int peer, uint32_t tag, cct_request& req) const {
    ok(inst_->p2p->irecv(inst_, buf.data(), buf.size(), peer, tag, &req), "irecv");
  }
  cct_status waitall(std::vector<cct_request>& reqs) const {
    return inst_->p2p->waitall(inst_, reqs.data(), reqs.size());
  }
  void send(const Bytes& buf, int peer, uint32_t tag) const {
    std::vector<cct_request> req(1);
    isend(buf, peer, tag, req[0]);
    ok(waitall(req), "waitall(send)");
  }
  cct_status recv(Bytes& buf, int peer, uint32_t tag) const {
    std::vector<cct_request> req(1);
    irecv(buf, peer, tag, req[0]);
    return waitall(req);
  }

  static void ok(cct_status s, const char* what) {
    expect(s == CCT_OK, std::string(what) + " returned status " + std::to_string(s));
  }

 private:
  const cct_transport_desc& desc_;
  cct_transport_instance* inst_ = nullptr;
};

// Contents of message `salt` from src to dst. The i >> 8 term makes the
// pattern aperiodic over a slot, so a fragment landing at a wrong offset
// shows.
unsigned char byte_of(int src, int dst, std::size_t i, unsigned salt) {
  return static_cast<unsigned char>(src * 67 + dst * 13 + i * 7 + (i >> 8) + salt);
}

Bytes message(int src, int dst, std::size_t bytes, unsigned salt) {
  Bytes b(bytes);
  for (std::size_t i = 0; i < bytes; ++i) b[i] = byte_of(src, dst, i, salt);
  return b;
}

void check_message(const Bytes& got, int src, int dst, unsigned salt) {
  for (std::size_t i = 0; i < got.size(); ++i)
    if (got[i] != byte_of(src, dst, i, salt))
      throw std::runtime_error("message " + std::to_string(salt) + " of " +
                               std::to_string(got.size()) + " bytes from rank " +
                               std::to_string(src) + ": byte " + std::to_string(i) + " is wrong");
}

// A value the ranks write and the parent reads after the launch.
class SharedWord {
 public:
  SharedWord()
      : word_(static_cast<uint64_t*>(::mmap(nullptr, sizeof(uint64_t), PROT_READ | PROT_WRITE,
                                            MAP_SHARED | MAP_ANONYMOUS, -1, 0))) {
    REQUIRE(word_ != MAP_FAILED);
  }
  ~SharedWord() { ::munmap(word_, sizeof(uint64_t)); }
  uint64_t& operator*() const { return *word_; }

 private:
  uint64_t* word_;
};

// Runs body on n ranks; returns the launcher's error ("" on success).
std::string on_ranks(int n, const std::function<void(cct::Bootstrap&)>& body) {
  cct::LaunchResult result =
      cct::launch_local({.ranks = n, .timeout_s = 60}, [&](cct::Bootstrap& boot) {
        body(boot);
        return 0;
      });
  CHECK(cct::test::shm_entries_of_this_process().empty());
  return result.error;
}

const std::size_t kSizes[] = {0, 1, 4095, (std::size_t{1} << 20) + 3};

// Every rank sends every size to every rank (itself included), all in
// flight at once.
void exchange_all_pairs(const Shm& t, int me, int n, unsigned round) {
  std::vector<Bytes> in, out;
  std::vector<cct_request> reqs(2 * n * std::size(kSizes));
  std::size_t k = 0;
  for (int peer = 0; peer < n; ++peer) {
    for (std::size_t s = 0; s < std::size(kSizes); ++s) {
      in.emplace_back(kSizes[s]);
      out.push_back(message(me, peer, kSizes[s], round * 8 + s));
    }
  }
  for (int peer = 0; peer < n; ++peer)
    for (std::size_t s = 0; s < std::size(kSizes); ++s, ++k)
      t.irecv(in[k], peer, static_cast<uint32_t>(s), reqs[k]);
  for (std::size_t j = 0; j < out.size(); ++j)
    t.isend(out[j], static_cast<int>(j / std::size(kSizes)),
            static_cast<uint32_t>(j % std::size(kSizes)), reqs[k + j]);
  Shm::ok(t.waitall(reqs), "waitall(all pairs)");
  for (std::size_t j = 0; j < in.size(); ++j)
    check_message(in[j], static_cast<int>(j / std::size(kSizes)), me,
                  round * 8 + j % std::size(kSizes));
}

}  // namespace

TEST_CASE("shm p2p: ping-pong of 0, 1, 4095 and 1 MiB + 3 bytes", "[shm]") {
  const cct_transport_desc& desc = shm_desc();
  for (const Mode& mode : kModes) {
    SharedWord caps;
    std::string error = on_ranks(2, [&](cct::Bootstrap& boot) {
      Shm t(desc, boot, mode);
      if (boot.rank() == 0) *caps = t->capabilities;
      int me = boot.rank(), other = 1 - me;
      for (std::size_t bytes : kSizes) {
        for (unsigned round = 0; round < 3; ++round) {
          Bytes in(bytes);
          if (me == 0) t.send(message(me, other, bytes, round), other, round);
          Shm::ok(t.recv(in, other, round), "recv");
          if (me == 1) t.send(message(me, other, bytes, round), other, round);
          check_message(in, other, me, round);
        }
      }
    });
    INFO("CCT_SHM_CMA=" << mode.cma << " threshold=" << mode.threshold << ": " << error);
    CHECK(error == "");
    CHECK((*caps & (CCT_CAP_P2P | CCT_CAP_SHM)) == (CCT_CAP_P2P | CCT_CAP_SHM));
    if (std::strcmp(mode.cma, "0") == 0) CHECK((*caps & CCT_CAP_SINGLE_COPY) == 0);
    if (std::strcmp(mode.cma, "1") == 0 && (*caps & CCT_CAP_SINGLE_COPY) == 0)
      WARN("CMA is not permitted here: the single-copy path between processes was not tested");
  }
}

// From two pieces on (shared_copy.hpp) the sender copies pieces into the
// receiver's buffer while the receiver reads others; a sender that is late
// to wait leaves every piece to the receiver. Both must deliver every byte,
// also for a last piece that is short.
TEST_CASE("shm p2p: a large message copied by both sides, or by the receiver alone", "[shm]") {
  const cct_transport_desc& desc = shm_desc();
  for (bool sender_late : {false, true}) {
    std::string error = on_ranks(2, [&](cct::Bootstrap& boot) {
      Shm t(desc, boot);
      for (std::size_t bytes : {std::size_t{256} << 10, (std::size_t{2} << 20) + 5}) {
        std::vector<cct_request> req(1);
        if (boot.rank() == 0) {
          const Bytes out = message(0, 1, bytes, 5);
          t.isend(out, 1, 5, req[0]);
          if (sender_late) ::usleep(20000);
          Shm::ok(t.waitall(req), "waitall(send)");
        } else {
          Bytes in(bytes);
          Shm::ok(t.recv(in, 0, 5), "recv");
          check_message(in, 0, 1, 5);
        }
      }
    });
    INFO((sender_late ? "late sender: " : "waiting sender: ") << error);
    CHECK(error == "");
  }
}

TEST_CASE("shm p2p: all pairs exchange every size at once", "[shm]") {
  const cct_transport_desc& desc = shm_desc();
  for (int n : {1, 4}) {
    for (const Mode& mode : kModes) {
      std::string error = on_ranks(n, [&](cct::Bootstrap& boot) {
        Shm t(desc, boot, mode);
        for (unsigned round = 0; round < 2; ++round) exchange_all_pairs(t, boot.rank(), n, round);
      });
      INFO(n << " ranks, CCT_SHM_CMA=" << mode.cma << " threshold=" << mode.threshold << ": "
             << error);
      CHECK(error == "");
    }
  }
}

TEST_CASE("shm p2p: hundreds of messages in flight stay in posting order", "[shm]") {
  const cct_transport_desc& desc = shm_desc();
  constexpr int kCount = 300;  // beyond the initial 64 per peer and direction
  auto size_of = [](int i) -> std::size_t { return i % 50 == 49 ? 40000 + i : (i * 37) % 3000; };
  std::string error = on_ranks(2, [&](cct::Bootstrap& boot) {
    Shm t(desc, boot);
    int me = boot.rank(), other = 1 - me;
    std::vector<Bytes> in, out;
    for (int i = 0; i < kCount; ++i) {
      in.emplace_back(size_of(i));
      out.push_back(message(me, other, size_of(i), i));
    }
    std::vector<cct_request> reqs(2 * kCount);
    for (int i = 0; i < kCount; ++i) t.isend(out[i], other, i, reqs[i]);
    for (int i = 0; i < kCount; ++i) t.irecv(in[i], other, i, reqs[kCount + i]);
    int done = 0;
    while (!done) Shm::ok(t->p2p->test(t.operator->(), &reqs.back(), &done), "test");
    Shm::ok(t.waitall(reqs), "waitall");
    for (int i = 0; i < kCount; ++i) check_message(in[i], other, me, i);
  });
  CHECK(error == "");
}

TEST_CASE("shm p2p: a tag or size mismatch is an error, and the message stays", "[shm]") {
  const cct_transport_desc& desc = shm_desc();
  std::string error = on_ranks(2, [&](cct::Bootstrap& boot) {
    Shm t(desc, boot);
    if (boot.rank() == 0) {
      t.send(message(0, 1, 8, 5), 1, 5);
      t.send(message(0, 1, 16, 6), 1, 6);
      return;
    }
    Bytes eight(8), nine(9), sixteen(16);
    expect(t.recv(eight, 0, 7) == CCT_ERR_INVALID_ARG, "tag mismatch not reported");
    const std::string why = t->last_error.message;
    expect(why.find("tag") != std::string::npos, "last_error does not name the tag: " + why);
    expect(t.recv(nine, 0, 5) == CCT_ERR_INVALID_ARG, "size mismatch not reported");
    Shm::ok(t.recv(eight, 0, 5), "recv after mismatches");
    check_message(eight, 0, 1, 5);
    Shm::ok(t.recv(sixteen, 0, 6), "second recv");
    check_message(sixteen, 0, 1, 6);
    cct_request req;
    expect(t->p2p->isend(t.operator->(), nullptr, 0, 2, 0, &req) == CCT_ERR_INVALID_ARG,
           "send to a rank that does not exist");
  });
  CHECK(error == "");
}

TEST_CASE("shm regions: alloc, zeroed parts, wait_u64 and free", "[shm]") {
  const cct_transport_desc& desc = shm_desc();
  std::string error = on_ranks(4, [&](cct::Bootstrap& boot) {
    Shm t(desc, boot);
    int me = boot.rank(), n = boot.size();
    cct_shm_region small{}, large{}, empty{};
    cct_error err{};
    for (auto [region, bytes] : {std::pair{&small, 1000}, {&large, 5000}, {&empty, 0}})
      expect(t->shm->alloc(t.operator->(), bytes, region, &err) == CCT_OK, err.message);
    expect(small.bytes_per_rank == 1024 && large.bytes_per_rank == 5120, "rounding to 128 B");
    for (const cct_shm_region* region : {&small, &large}) {
      auto* part = static_cast<unsigned char*>(region->peer[me]);
      for (std::size_t i = 0; i < region->bytes_per_rank; ++i) expect(part[i] == 0, "not zeroed");
      for (int r = 1; r < n; ++r)
        expect(static_cast<char*>(region->peer[r]) - static_cast<char*>(region->peer[r - 1]) >=
                   static_cast<std::ptrdiff_t>(region->bytes_per_rank),
               "parts overlap");
    }
    // Each rank writes its part of the small region, then raises its flag.
    auto* mine = static_cast<unsigned char*>(small.peer[me]);
    for (std::size_t i = 0; i < 1016; ++i) mine[i] = byte_of(me, 0, i, 1);
    __atomic_store_n(reinterpret_cast<uint64_t*>(mine + 1016), 1, __ATOMIC_RELEASE);
    auto* flag = static_cast<uint64_t*>(large.peer[me]);
    __atomic_store_n(flag, 42 + me, __ATOMIC_RELEASE);
    for (int r = 0; r < n; ++r) {
      auto* part = static_cast<unsigned char*>(small.peer[r]);
      t->shm->wait_u64(t.operator->(), reinterpret_cast<uint64_t*>(part + 1016), 1, CCT_WAIT_GE);
      for (std::size_t i = 0; i < 1016; ++i) expect(part[i] == byte_of(r, 0, i, 1), "region data");
      t->shm->wait_u64(t.operator->(), static_cast<uint64_t*>(large.peer[r]), 42 + r, CCT_WAIT_EQ);
    }
    boot.barrier();  // nobody still reads a region when it is freed
    t->shm->free(t.operator->(), &large);
    t->shm->free(t.operator->(), &small);
    t->shm->free(t.operator->(), &empty);
    expect(small.handle == nullptr && small.peer == nullptr, "free clears the region");
  });
  CHECK(error == "");
}

TEST_CASE("shm: 8 ranks on fewer cores exchange quickly", "[shm]") {
  const cct_transport_desc& desc = shm_desc();
  auto start = std::chrono::steady_clock::now();
  std::string error = on_ranks(8, [&](cct::Bootstrap& boot) {
    Shm t(desc, boot);
    int me = boot.rank(), n = boot.size();
    for (unsigned round = 0; round < 20; ++round) {
      std::vector<Bytes> in(n, Bytes(70000)), out;
      std::vector<cct_request> reqs(2 * n);
      for (int p = 0; p < n; ++p) out.push_back(message(me, p, 70000, round));
      for (int p = 0; p < n; ++p) t.irecv(in[p], p, round, reqs[p]);
      for (int p = 0; p < n; ++p) t.isend(out[p], p, round, reqs[n + p]);
      Shm::ok(t.waitall(reqs), "waitall");
      for (int p = 0; p < n; ++p) check_message(in[p], p, me, round);
      for (int p = 1; p < n; ++p) {  // a ring of small messages: latency bound
        Bytes token(8), mine = message(me, 0, 8, p);
        cct_request ring[2];
        t.irecv(token, (me + n - p) % n, 1000 + p, ring[0]);
        t.isend(mine, (me + p) % n, 1000 + p, ring[1]);
        Shm::ok(t->p2p->waitall(t.operator->(), ring, 2), "ring");
      }
    }
  });
  std::chrono::duration<double> took = std::chrono::steady_clock::now() - start;
  CHECK(error == "");
  CHECK(took.count() < 10);
}

TEST_CASE("shm: probe refuses ranks on several nodes", "[shm]") {
  const cct_transport_desc& desc = shm_desc();
  cct_bootstrap boot{};
  boot.struct_size = sizeof boot;
  boot.abi_version = CCT_ABI_VERSION;
  boot.size = 4;
  boot.nodes = 2;
  boot.job_key = "cct-probe";
  cct_error err{};
  CHECK(desc.probe(&boot, &err) == CCT_ERR_UNSUPPORTED);
  CHECK_THAT(err.message, Catch::Contains("2 nodes"));
  boot.nodes = 1;
  CHECK(desc.probe(&boot, &err) == CCT_OK);
  CHECK(desc.probe(nullptr, &err) == CCT_ERR_INVALID_ARG);
}

TEST_CASE("shm: a failure on one rank fails open on every rank", "[shm]") {
  const cct_transport_desc& desc = shm_desc();
  std::string error = on_ranks(3, [&](cct::Bootstrap& boot) {
    Mode mode{"1", boot.rank() == 1 ? "lots" : ""};
    try {
      Shm t(desc, boot, mode);
    } catch (const std::exception& e) {
      expect(std::strstr(e.what(), "failed on rank 1") != nullptr, e.what());
      expect(std::strstr(e.what(), "CCT_SHM_CMA_THRESHOLD") != nullptr, e.what());
      return;
    }
    throw std::runtime_error("open succeeded despite rank 1's bad setting");
  });
  CHECK(error == "");
}
