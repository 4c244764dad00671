// The RapidIO simulation engine: packets, timing, priorities, matching,
// switch collectives, counters, determinism, failures and speed.
#include <algorithm>
#include <catch2/catch.hpp>
#include <chrono>
#include <cstdint>
#include <numeric>
#include <stdexcept>
#include <string>
#include <vector>

#include "rapidio_sim/engine/engine.hpp"

namespace {

using cct::rio::Engine;
using cct::rio::FabricSpec;
using cct::rio::Request;
using cct::rio::Time;

FabricSpec fabric(const std::string& preset, bool mst = true) {
  FabricSpec spec = cct::rio::load_fabric(preset);
  spec.mst_routing = mst;
  return spec;
}

std::string failures_text(const std::vector<Engine::Failure>& failures) {
  std::string text;
  for (const auto& f : failures) text += std::to_string(f.rank) + ": " + f.what + "\n";
  return text;
}

void run_ok(Engine& engine, int nranks, const std::function<void(int)>& body) {
  const auto failures = engine.run(nranks, body);
  INFO(failures_text(failures));
  REQUIRE(failures.empty());
}

uint8_t pattern(std::size_t i, int seed) {
  return static_cast<uint8_t>(i * 131 + seed * 7 + 1);
}

std::vector<uint8_t> patterned(std::size_t bytes, int seed) {
  std::vector<uint8_t> v(bytes);
  for (std::size_t i = 0; i < bytes; ++i) v[i] = pattern(i, seed);
  return v;
}

// Serialization of a b-byte packet at the default 2 MHz switch clock.
Time serialize(const FabricSpec& spec, int bytes) {
  const Time cycle = static_cast<Time>(1e12 / spec.switch_clock_hz);
  return (bytes * cycle + spec.max_packet_bytes - 1) / spec.max_packet_bytes;
}

std::vector<int> iota_members(int n) {
  std::vector<int> m(n);
  std::iota(m.begin(), m.end(), 0);
  return m;
}

}  // namespace

TEST_CASE("p2p messages are packetised and reassembled intact", "[rio][engine]") {
  for (std::size_t bytes : {0u, 1u, 250u, 251u, 276u, 500u, 501u, 1u << 20}) {
    Engine engine(fabric("chain:2"));
    std::vector<uint8_t> sent = patterned(bytes, 3), got(bytes, 0);
    run_ok(engine, 5, [&](int rank) {
      Request req;
      if (rank == 0) engine.isend(9, 4, 1, sent.data(), bytes, req);
      if (rank == 4) engine.irecv(9, 0, 1, got.data(), bytes, req);
      if (rank == 0 || rank == 4) engine.waitall(&req, 1);
    });
    INFO("bytes " << bytes);
    CHECK(got == sent);
    const uint64_t packets = std::max<uint64_t>(1, (bytes + 249) / 250);
    CHECK(engine.stats().data_packets == packets);
    CHECK(engine.stats().response_packets == packets);
    CHECK(engine.stats().payload_bytes == bytes);
    // DSP 0 -> switch 0 -> switch 1 -> DSP 4, and the responses back.
    CHECK(engine.stats().packet_hops == 6 * packets);
    CHECK(engine.stats().link_packets.at(0) == 2 * packets);
  }
}

TEST_CASE("one packet over one switch takes the analytic time", "[rio][engine]") {
  FabricSpec spec = fabric("chain:1");
  const int latency_cycles = GENERATE(0, 3);
  spec.switch_latency_cycles = latency_cycles;
  Engine engine(spec);
  std::vector<uint8_t> buf(250, 1);
  Time recv_done = 0, send_done = 0;
  run_ok(engine, 2, [&](int rank) {
    Request req;
    if (rank == 0) engine.isend(0, 1, 0, buf.data(), 250, req);
    if (rank == 1) engine.irecv(0, 0, 0, buf.data(), 250, req);
    engine.waitall(&req, 1);
    (rank == 0 ? send_done : recv_done) = engine.now();
  });
  const Time latency = static_cast<Time>(latency_cycles) * 500000;
  // Injection onto the DSP's link, then the switch's link to the receiver.
  CHECK(recv_done == 2 * serialize(spec, 276) + latency);
  CHECK(recv_done == 1000000 + latency);
  CHECK(send_done == recv_done + 2 * serialize(spec, 26) + latency);
  CHECK(engine.stats().rank_time == std::vector<Time>{send_done, recv_done});
}

TEST_CASE("a DSP whose bus is slower than its link injects at the bus rate", "[rio][engine]") {
  FabricSpec spec = fabric("chain:1");
  spec.dsp_clock_hz = 1e6;  // 8 MB/s from memory, far below the 552 MB/s link
  Engine engine(spec);
  std::vector<uint8_t> buf(250, 1);
  Time recv_done = 0;
  run_ok(engine, 2, [&](int rank) {
    Request req;
    if (rank == 0) engine.isend(0, 1, 0, buf.data(), 250, req);
    if (rank == 1) engine.irecv(0, 0, 0, buf.data(), 250, req);
    engine.waitall(&req, 1);
    if (rank == 1) recv_done = engine.now();
  });
  // 276 bytes at 8 bytes per microsecond leave the DSP; the switch forwards
  // at the link rate.
  CHECK(recv_done == 34500000 + serialize(spec, 276));
}

TEST_CASE("responses overtake queued data, shorter data leaves first", "[rio][engine]") {
  const FabricSpec spec = fabric("chain:1");
  SECTION("a response behind data packets of its own size") {
    Engine engine(spec);
    std::vector<uint8_t> small(10);
    Time small_done = 0;
    run_ok(engine, 2, [&](int rank) {
      // Twenty header-only messages queue on DSP 1's port, each packet as
      // short as a response: only priority lets the response pass them.
      Request empty[20], req;
      for (Request& r : empty) {
        if (rank == 1) engine.isend(0, 0, 0, nullptr, 0, r);
        if (rank == 0) engine.irecv(0, 1, 0, nullptr, 0, r);
      }
      if (rank == 1) engine.irecv(0, 0, 1, small.data(), small.size(), req);
      if (rank == 0) {
        engine.isend(0, 1, 1, small.data(), small.size(), req);
        engine.waitall(&req, 1);
        small_done = engine.now();
      } else {
        engine.waitall(&req, 1);
      }
      engine.waitall(empty, 20);
    });
    // It waits at most for the packet being sent on each of its two ports.
    CHECK(small_done <= 2 * serialize(spec, 36) + 4 * serialize(spec, 26));
    CHECK(engine.stats().rank_time[1] >= 20 * serialize(spec, 26));
  }
  SECTION("a short message overtakes the rest of a longer one") {
    Engine engine(spec);
    std::vector<uint8_t> a = patterned(500, 1), b = patterned(10, 2);
    std::vector<uint8_t> got_a(500), got_b(10);
    Time b_done = 0, a_done = 0;
    run_ok(engine, 2, [&](int rank) {
      Request reqs[2];
      if (rank == 0) {
        engine.isend(0, 1, 1, a.data(), a.size(), reqs[0]);
        engine.isend(0, 1, 2, b.data(), b.size(), reqs[1]);
        engine.waitall(reqs, 2);
        return;
      }
      engine.irecv(0, 0, 1, got_a.data(), got_a.size(), reqs[0]);
      engine.irecv(0, 0, 2, got_b.data(), got_b.size(), reqs[1]);
      engine.waitall(&reqs[1], 1);
      b_done = engine.now();
      engine.waitall(reqs, 1);
      a_done = engine.now();
    });
    // a's first packet leaves at once; b (36 bytes) then passes a's second
    // packet on the DSP's port and reaches the switch port while a's first
    // packet still occupies it.
    CHECK(b_done == 2 * serialize(spec, 276) + serialize(spec, 36));
    CHECK(a_done > b_done);
    CHECK(got_a == a);
    CHECK(got_b == b);
  }
}

TEST_CASE("p2p matching is FIFO per source, mismatches throw MatchError", "[rio][engine]") {
  Engine engine(fabric("tree:4"));
  SECTION("FIFO, also for messages that arrive before the receive") {
    std::vector<std::vector<uint8_t>> got(3, std::vector<uint8_t>(600));
    run_ok(engine, 16, [&](int rank) {
      if (rank == 15) {
        std::vector<std::vector<uint8_t>> out{patterned(600, 0), patterned(600, 1),
                                              patterned(600, 2)};
        Request reqs[3];
        for (int i = 0; i < 3; ++i) engine.isend(4, 2, 8, out[i].data(), 600, reqs[i]);
        engine.waitall(reqs, 3);
      } else if (rank == 2) {
        engine.compute(1e6);  // every message is unexpected by now
        Request reqs[3];
        for (int i = 0; i < 3; ++i) engine.irecv(4, 15, 8, got[i].data(), 600, reqs[i]);
        engine.waitall(reqs, 3);
      }
    });
    for (int i = 0; i < 3; ++i) CHECK(got[i] == patterned(600, i));
  }
  SECTION("tag and size mismatches") {
    std::string tag_error, size_error;
    run_ok(engine, 2, [&](int rank) {
      std::vector<uint8_t> buf(100);
      Request req;
      if (rank == 0) {
        engine.isend(1, 1, 7, buf.data(), 100, req);
        engine.waitall(&req, 1);
        try {  // the later of the two calls finds the mismatch
          engine.isend(2, 1, 7, buf.data(), 100, req);
        } catch (const cct::rio::MatchError& e) {
          size_error = e.what();
        }
        return;
      }
      try {
        engine.irecv(1, 0, 8, buf.data(), 100, req);
      } catch (const cct::rio::MatchError& e) {
        tag_error = e.what();
      }
      try {
        engine.irecv(2, 0, 7, buf.data(), 99, req);
      } catch (const cct::rio::MatchError& e) {
        size_error = e.what();
      }
    });
    CHECK_THAT(tag_error, Catch::Contains("tag 7") && Catch::Contains("tag 8"));
    CHECK_THAT(size_error, Catch::Contains("100 bytes") && Catch::Contains("99 bytes"));
  }
}

TEST_CASE("broadcast replication reaches every member exactly once", "[rio][engine]") {
  const std::string preset = GENERATE(std::string("ring:8"), std::string("mesh:4"),
                                      std::string("mesh:9"), std::string("tree:4"));
  const bool mst = GENERATE(false, true);
  Engine engine(fabric(preset, mst));
  const int dsps = engine.fabric().dsps();
  const std::size_t bytes = 1000;
  const uint64_t packets = 4;
  SECTION("all DSPs, several roots") {
    for (int root : {0, dsps / 2 + 1, dsps - 1}) {
      const uint64_t hops_before = engine.stats().packet_hops;
      const std::vector<uint64_t> links_before = engine.stats().link_packets;
      const uint64_t payload_before = engine.stats().payload_bytes;
      std::vector<std::vector<uint8_t>> bufs(dsps, std::vector<uint8_t>(bytes));
      bufs[root] = patterned(bytes, root);
      const std::vector<int> members = iota_members(dsps);
      run_ok(engine, dsps,
             [&](int rank) { engine.mcast_bcast(3, members, root, bufs[rank].data(), bytes); });
      INFO(preset << (mst ? " MST" : " shortest paths") << ", root " << root);
      for (int r = 0; r < dsps; ++r) CHECK(bufs[r] == patterned(bytes, root));
      CHECK(engine.stats().payload_bytes - payload_before == (dsps - 1) * bytes);
      const std::vector<int>& used = engine.routing().used_links();
      for (std::size_t l = 0; l < links_before.size(); ++l) {
        const uint64_t on_link = engine.stats().link_packets[l] - links_before[l];
        const bool is_used = std::find(used.begin(), used.end(), l) != used.end();
        // At most once per direction: the seen-set stops copies that come
        // back around a cycle.
        CHECK(on_link <= (is_used ? 2 * packets : 0));
        if (mst) CHECK(on_link == (is_used ? packets : 0));
      }
      CHECK(engine.stats().packet_hops - hops_before <= packets * (dsps + 2 * used.size()));
    }
  }
  SECTION("a subset of the DSPs; non-members receive nothing") {
    std::vector<int> members;
    for (int d = dsps - 1; d >= 0; d -= 3) members.push_back(d);
    std::vector<std::vector<uint8_t>> bufs(dsps, std::vector<uint8_t>(bytes, 0));
    const int root = static_cast<int>(members.size()) / 2;
    bufs[members[root]] = patterned(bytes, 5);
    run_ok(engine, dsps, [&](int rank) {
      if (std::find(members.begin(), members.end(), rank) == members.end()) return;
      engine.mcast_bcast(1, members, root, bufs[rank].data(), bytes);
    });
    for (int d = 0; d < dsps; ++d) {
      const bool member = std::find(members.begin(), members.end(), d) != members.end();
      CHECK(bufs[d] == (member ? patterned(bytes, 5) : std::vector<uint8_t>(bytes, 0)));
    }
    CHECK(engine.stats().payload_bytes == (members.size() - 1) * bytes);
  }
}

namespace {

// Gathers and reduces on `members` for several roots in one run, checking
// the root's data.
void check_aggregation(Engine& engine, const std::vector<int>& members) {
  const int n = static_cast<int>(members.size());
  const std::size_t block = 300;  // two packets per member
  const std::size_t count = 130;  // int32: three packets of 62, 62, 6 elements
  for (int root : {0, n - 1, n / 2}) {
    std::vector<uint8_t> gathered(n * block);
    std::vector<int32_t> reduced(count);
    std::vector<double> maxed(count);
    run_ok(engine, engine.fabric().dsps(), [&](int rank) {
      auto it = std::find(members.begin(), members.end(), rank);
      if (it == members.end()) return;
      const int me = static_cast<int>(it - members.begin());
      const std::vector<uint8_t> mine = patterned(block, me);
      std::vector<uint8_t> gather_out(me == root ? n * block : 0);
      engine.aggregate_gather(2, members, root, mine.data(), gather_out.data(), block);
      std::vector<int32_t> ints(count);
      std::vector<double> reals(count);
      for (std::size_t i = 0; i < count; ++i) {
        ints[i] = static_cast<int32_t>(me * 1000 + i) * (i % 2 ? -1 : 1);
        reals[i] = static_cast<double>((me * 37 + i * 11) % 101);
      }
      std::vector<int32_t> ints_out(count);
      std::vector<double> reals_out(count);
      engine.aggregate_reduce(2, members, root, ints.data(), ints_out.data(), count, CCT_INT32,
                              CCT_SUM);
      engine.aggregate_reduce(2, members, root, reals.data(), reals_out.data(), count, CCT_DOUBLE,
                              CCT_MAX);
      if (me == root) {
        gathered = gather_out;
        reduced = ints_out;
        maxed = reals_out;
      }
    });
    INFO(n << " members, root " << root);
    for (int m = 0; m < n; ++m) {
      CHECK(std::vector<uint8_t>(gathered.begin() + m * block,
                                 gathered.begin() + (m + 1) * block) == patterned(block, m));
    }
    for (std::size_t i = 0; i < count; ++i) {
      int32_t sum = 0;
      double max = 0;
      for (int m = 0; m < n; ++m) {
        sum += static_cast<int32_t>(m * 1000 + i) * (i % 2 ? -1 : 1);
        max = std::max(max, static_cast<double>((m * 37 + i * 11) % 101));
      }
      CHECK(reduced[i] == sum);
      CHECK(maxed[i] == max);
    }
  }
}

}  // namespace

TEST_CASE("gather aggregation and in-switch reduction give the right data", "[rio][engine]") {
  const std::string preset = GENERATE(std::string("tree:4"), std::string("chain:4"));
  Engine engine(fabric(preset));
  SECTION("the first n DSPs") {
    for (int n = 1; n <= 16; ++n) check_aggregation(engine, iota_members(n));
  }
  SECTION("subsets in scrambled order") {
    check_aggregation(engine, {13, 2, 7, 8});
    check_aggregation(engine, {15, 11, 3, 1, 6, 9, 12});
    check_aggregation(engine, {5});
  }
  SECTION("with shortest-path routes on a mesh") {
    Engine mesh(fabric("mesh:4", false));
    check_aggregation(mesh, {0, 5, 10, 15, 4, 9});
  }
}

TEST_CASE("a counter barrier releases nobody before the last arrives", "[rio][engine]") {
  Engine engine(fabric("tree:4"));
  const std::vector<int> members = iota_members(16);
  std::vector<Time> arrived(16), released(16);
  std::vector<uint64_t> old(16);
  run_ok(engine, 16, [&](int rank) {
    engine.compute(1000.0 * ((rank * 7) % 16));
    arrived[rank] = engine.now();
    old[rank] = engine.fetch_add(5, members, 3, 1);
    engine.wait_ge(5, members, 3, 16);
    released[rank] = engine.now();
  });
  CHECK(*std::min_element(released.begin(), released.end()) >
        *std::max_element(arrived.begin(), arrived.end()));
  std::sort(old.begin(), old.end());
  for (uint64_t i = 0; i < 16; ++i) CHECK(old[i] == i);
  CHECK(engine.stats().control_packets == 4 * 16);
  CHECK(engine.stats().data_packets == 0);
}

TEST_CASE("rendezvous and compute", "[rio][engine]") {
  Engine engine(fabric("chain:1"));
  std::vector<std::vector<int>> seen(4, std::vector<int>(4));
  run_ok(engine, 4, [&](int rank) {
    engine.compute(1000.0 * rank);  // 1 us per 1000 cycles at 1 GHz
    const int value = rank * 10;
    engine.rendezvous(42, rank, 4, &value, seen[rank].data(), sizeof value);
  });
  for (const auto& s : seen) CHECK(s == std::vector<int>{0, 10, 20, 30});
  CHECK(engine.stats().packet_hops == 0);
  CHECK(engine.stats().rank_time == std::vector<Time>(4, 3000000));
}

// quiesce: every rank resumes once nothing moves (the message in flight
// delivered, its responses back), at one virtual time, in rank order
// whatever the order of arrival.
TEST_CASE("quiesce: one time for all, once the network is idle, in rank order", "[rio][engine]") {
  Engine engine(fabric("chain:1"));
  std::vector<Time> resumed(4);
  std::vector<int> order;
  std::vector<uint8_t> out = patterned(10000, 0), in(10000);
  Time posted = 0;
  run_ok(engine, 4, [&](int rank) {
    Request req;
    if (rank == 0) engine.isend(1, 3, 0, out.data(), out.size(), req);
    if (rank == 3) engine.irecv(1, 0, 0, in.data(), in.size(), req);
    if (rank == 0) posted = engine.now();
    engine.compute(1000.0 * (3 - rank));  // arrive last to first
    engine.quiesce(uint64_t{1} << 63, 4);
    resumed[rank] = engine.now();
    order.push_back(rank);
    if (rank == 0 || rank == 3) CHECK(engine.test(req));  // complete, both sides
  });
  CHECK(in == out);
  CHECK(order == std::vector<int>{0, 1, 2, 3});
  CHECK(resumed == std::vector<Time>(4, resumed[0]));
  // After the last arrival (3 us of compute) and after the transfer.
  CHECK(resumed[0] >= 3000000);
  CHECK(resumed[0] > posted + serialize(engine.fabric(), 10000));
}

namespace {

void mixed_job(Engine& engine) {
  const int n = engine.fabric().dsps();
  const std::vector<int> members = iota_members(n);
  run_ok(engine, n, [&](int rank) {
    std::vector<uint8_t> out = patterned(700, rank), in(700), bcast(3000, 0);
    Request reqs[2];
    engine.isend(1, (rank + 1) % n, 0, out.data(), out.size(), reqs[0]);
    engine.irecv(1, (rank + n - 1) % n, 0, in.data(), in.size(), reqs[1]);
    engine.waitall(reqs, 2);
    engine.mcast_bcast(2, members, 3, bcast.data(), bcast.size());
    std::vector<uint8_t> all(rank == 1 ? n * 100 : 0);
    engine.aggregate_gather(2, members, 1, out.data(), all.data(), 100);
    int64_t sum = rank, total = 0;
    engine.aggregate_reduce(2, members, 2, &sum, &total, 1, CCT_INT64, CCT_SUM);
    engine.fetch_add(2, members, 0, 1);
    engine.wait_ge(2, members, 0, n);
  });
}

}  // namespace

TEST_CASE("the same job gives the same times and statistics", "[rio][engine]") {
  Engine a(fabric("mesh:9", false)), b(fabric("mesh:9", false));
  mixed_job(a);
  mixed_job(b);
  CHECK(a.stats().rank_time == b.stats().rank_time);
  CHECK(a.stats().link_packets == b.stats().link_packets);
  CHECK(a.stats().events == b.stats().events);
  CHECK(a.stats_yaml() == b.stats_yaml());
  CHECK_THAT(a.stats_yaml(), Catch::Contains("average_system_flow_bytes_per_s"));
  // Statistics accumulate; rank times are the last run's.
  const uint64_t hops = a.stats().packet_hops;
  mixed_job(a);
  CHECK(a.stats().packet_hops == 2 * hops);
  CHECK(a.stats().rank_time == b.stats().rank_time);
}

TEST_CASE("256 ranks broadcast and gather quickly", "[rio][engine]") {
  Engine engine(fabric("tree:64"));
  const std::vector<int> members = iota_members(256);
  std::vector<std::vector<uint8_t>> bufs(256, std::vector<uint8_t>(64 * 1024));
  bufs[0] = patterned(64 * 1024, 9);
  std::vector<uint8_t> all(256 * 1024);
  const auto start = std::chrono::steady_clock::now();
  run_ok(engine, 256, [&](int rank) {
    engine.mcast_bcast(1, members, 0, bufs[rank].data(), bufs[rank].size());
    engine.aggregate_gather(1, members, 0, bufs[rank].data(), rank == 0 ? all.data() : nullptr,
                            1024);
  });
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  CHECK(seconds < 1.0);
  for (int r = 0; r < 256; ++r) CHECK(bufs[r] == patterned(64 * 1024, 9));
  for (int r = 0; r < 256; ++r) {
    CHECK(std::equal(all.begin() + r * 1024, all.begin() + (r + 1) * 1024, bufs[0].begin()));
  }
}

TEST_CASE("deadlocks and exceptions become failures", "[rio][engine]") {
  Engine engine(fabric("chain:2"));
  const auto failures = engine.run(4, [&](int rank) {
    if (rank == 1) {
      uint8_t byte;
      Request req;
      engine.irecv(6, 3, 11, &byte, 1, req);
      engine.waitall(&req, 1);
    }
    if (rank == 2) throw std::runtime_error("algorithm exploded");
  });
  REQUIRE(failures.size() == 2);
  CHECK(failures[0].rank == 1);
  CHECK_THAT(failures[0].what, Catch::StartsWith("deadlock: waits for") &&
                                   Catch::Contains("message from DSP 3") &&
                                   Catch::Contains("tag 11"));
  CHECK(failures[1].rank == 2);
  CHECK(failures[1].what == "algorithm exploded");
  // The engine is usable after a failed run.
  run_ok(engine, 2, [&](int rank) {
    int v = rank, w = 0;
    Request req;
    if (rank == 0) engine.isend(0, 1, 0, &v, sizeof v, req);
    if (rank == 1) engine.irecv(0, 0, 0, &w, sizeof w, req);
    engine.waitall(&req, 1);
  });
}
