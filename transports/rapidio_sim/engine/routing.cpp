// Routing tables of the switch fabric: shortest paths by hop count over a
// set of links (all of them, or Prim's spanning tree), with every tie broken
// the same way so that a fabric always routes alike.
#include <algorithm>
#include <numeric>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

#include "rapidio_sim/engine/fabric.hpp"

namespace cct::rio {
namespace {

struct Hop {
  int neighbour, port, link;
};

// Each switch's hops over `links`, sorted by (neighbour, port): the first
// hop that gets closer to a target is then the tie-break's choice.
std::vector<std::vector<Hop>> adjacency(const FabricSpec& spec, const std::vector<int>& links) {
  std::vector<std::vector<Hop>> hops(spec.switches());
  for (const int i : links) {
    const SwitchLink& l = spec.links.at(i);
    hops.at(l.a_switch).push_back({l.b_switch, l.a_port, i});
    hops.at(l.b_switch).push_back({l.a_switch, l.b_port, i});
  }
  for (auto& out : hops)
    std::sort(out.begin(), out.end(), [](const Hop& x, const Hop& y) {
      return std::pair{x.neighbour, x.port} < std::pair{y.neighbour, y.port};
    });
  return hops;
}

// Hop counts from `from` to every switch (-1 where it cannot reach).
std::vector<int> bfs_distances(const std::vector<std::vector<Hop>>& hops, int from) {
  std::vector<int> dist(hops.size(), -1);
  std::vector<int> queue = {from};
  dist[from] = 0;
  for (size_t next = 0; next < queue.size(); ++next)
    for (const Hop& h : hops[queue[next]])
      if (dist[h.neighbour] < 0) {
        dist[h.neighbour] = dist[queue[next]] + 1;
        queue.push_back(h.neighbour);
      }
  return dist;
}

void check_pair(int switches, int a, int b, const char* what) {
  if (a < 0 || a >= switches || b < 0 || b >= switches)
    throw std::out_of_range(std::string(what) + ": switch pair (" + std::to_string(a) + ", " +
                            std::to_string(b) + ") out of range (0.." +
                            std::to_string(switches - 1) + ")");
}

}  // namespace

// Shortest routes (by hop count) using only `links`: the one routing
// algorithm, which the MST restricts to the tree's links.
Routing routes_over(const FabricSpec& spec, const std::vector<int>& links) {
  const int n = spec.switches();
  const auto hops = adjacency(spec, links);
  Routing r;
  r.switches_ = n;
  r.port_.assign(static_cast<size_t>(n) * n, -1);
  r.hops_.assign(static_cast<size_t>(n) * n, 0);
  std::vector<bool> used(spec.links.size(), false);
  for (int to = 0; to < n; ++to) {
    // The links are undirected, so distances from `to` are distances to it.
    const std::vector<int> dist = bfs_distances(hops, to);
    for (int from = 0; from < n; ++from) {
      if (dist[from] < 0)
        throw std::runtime_error("fabric '" + spec.name + "': switch " + std::to_string(to) +
                                 " cannot be reached from switch " + std::to_string(from));
      r.hops_[from * n + to] = dist[from];
      if (from == to) continue;
      const Hop& step = *std::find_if(hops[from].begin(), hops[from].end(), [&](const Hop& h) {
        return dist[h.neighbour] == dist[from] - 1;
      });
      r.port_[from * n + to] = step.port;
      used[step.link] = true;
    }
  }
  for (int i = 0; i < static_cast<int>(used.size()); ++i)
    if (used[i]) r.used_links_.push_back(i);
  return r;
}

Routing Routing::shortest_paths(const FabricSpec& spec) {
  std::vector<int> all(spec.links.size());
  std::iota(all.begin(), all.end(), 0);
  return routes_over(spec, all);
}

Routing Routing::minimum_spanning_tree(const FabricSpec& spec) {
  return routes_over(spec, prim_mst(spec));
}

int Routing::route_port(int from_switch, int to_switch) const {
  check_pair(switches_, from_switch, to_switch, "route_port");
  if (from_switch == to_switch)
    throw std::out_of_range("route_port: no route from switch " + std::to_string(from_switch) +
                            " to itself");
  return port_[from_switch * switches_ + to_switch];
}

int Routing::hops(int a, int b) const {
  check_pair(switches_, a, b, "hops");
  return hops_[a * switches_ + b];
}

std::vector<int> prim_mst(const FabricSpec& spec) {
  const auto key = [&](int i) {
    const SwitchLink& l = spec.links[i];
    return std::tuple{l.weight, std::min(l.a_switch, l.b_switch), std::max(l.a_switch, l.b_switch),
                      i};
  };
  std::vector<bool> in_tree(spec.switches(), false);
  in_tree[0] = true;
  std::vector<int> tree;
  // O(switches * links) is plenty for boards of a few hundred switches.
  for (int grown = 1; grown < spec.switches(); ++grown) {
    int best = -1;
    for (int i = 0; i < static_cast<int>(spec.links.size()); ++i) {
      const SwitchLink& l = spec.links[i];
      if (in_tree[l.a_switch] != in_tree[l.b_switch] && (best < 0 || key(i) < key(best))) best = i;
    }
    if (best < 0)
      throw std::runtime_error("fabric '" + spec.name + "' is disconnected: no spanning tree");
    tree.push_back(best);
    in_tree[spec.links[best].a_switch] = in_tree[spec.links[best].b_switch] = true;
  }
  std::sort(tree.begin(), tree.end());
  return tree;
}

}  // namespace cct::rio
