// ccautotune C++ SDK: write an algorithm as a C++ class, export it as the C
// table of cct/abi/algorithm.h.
//
//   struct MyBcast {
//     static constexpr cct::sdk::Info info{.name = "my_bcast", .doc = "...",
//                                          .collective = CCT_BCAST,
//                                          .required_caps = CCT_CAP_P2P};
//     // optional: the tunable parameters, in the order run() receives them
//     static constexpr std::array<cct_param_desc, 1> params{{...}};
//     // optional: throw cct::sdk::Unsupported("why") when it cannot run
//     static void check(const cct::sdk::Comm&, const cct_coll_args&,
//                       std::span<const int64_t> params);
//     // optional: the cost shape of a call (cct/sdk/cost.hpp)
//     static cct_cost cost(const cct::sdk::Comm&, const cct_coll_args&,
//                          std::span<const int64_t> params);
//     MyBcast(const cct::sdk::Comm&, std::span<const int64_t> params);  // prepare
//     void run(const cct_coll_args&);                                    // one call
//   };
//   CCT_SDK_EXPORT_ALGORITHMS(MyBcast, OtherAlgorithm)
//
// Every exception a class throws is caught at the boundary and returned as
// a status with its message; none crosses into the host.
#pragma once

#include <array>
#include <cstdio>
#include <new>
#include <span>
#include <stdexcept>

#include "cct/abi/export.h"
#include "cct/sdk/comm.hpp"
#include "cct/sdk/cost.hpp"
#include "cct/sdk/datatype.hpp"

namespace cct::sdk {

// What every algorithm declares about itself (see cct_algorithm_desc).
struct Info {
  const char* name = nullptr;
  const char* doc = "";
  cct_collective collective = CCT_BARRIER;
  uint64_t required_caps = CCT_CAP_P2P;
  uint32_t limits = 0;
  int32_t min_ranks = 1;
  int32_t max_ranks = 0;
};

inline void set_error(cct_error* err, const char* message) {
  if (err != nullptr) std::snprintf(err->message, sizeof err->message, "%s", message);
}

// Runs f, turning every exception into a status and a message.
template <class F>
cct_status guarded(cct_error* err, F&& f) noexcept {
  try {
    f();
    return CCT_OK;
  } catch (const Unsupported& e) {
    set_error(err, e.what());
    return CCT_ERR_UNSUPPORTED;
  } catch (const TransportError& e) {
    set_error(err, e.what());
    return e.status;
  } catch (const std::bad_alloc&) {
    set_error(err, "out of memory");
    return CCT_ERR_NO_MEMORY;
  } catch (const std::invalid_argument& e) {
    set_error(err, e.what());
    return CCT_ERR_INVALID_ARG;
  } catch (const std::exception& e) {
    set_error(err, e.what());
    return CCT_ERR_INTERNAL;
  } catch (...) {
    set_error(err, "unknown exception");
    return CCT_ERR_INTERNAL;
  }
}

namespace detail {

template <class A>
constexpr std::span<const cct_param_desc> params_of() {
  if constexpr (requires { A::params; })
    return std::span<const cct_param_desc>(A::params);
  else
    return {};
}

template <class A>
cct_status can_use(const cct_comm* comm, const cct_coll_args* args, const int64_t* params,
                   cct_error* why) noexcept {
  return guarded(why, [&] {
    if constexpr (requires { A::check(Comm(comm), *args, std::span<const int64_t>()); })
      A::check(Comm(comm), *args, std::span<const int64_t>(params, params_of<A>().size()));
  });
}

template <class A>
cct_status prepare(const cct_comm* comm, const int64_t* params, void** plan,
                   cct_error* err) noexcept {
  return guarded(err, [&] {
    *plan = new A(Comm(comm), std::span<const int64_t>(params, params_of<A>().size()));
  });
}

template <class A>
cct_status run(void* plan, const cct_coll_args* args, cct_error* err) noexcept {
  return guarded(err, [&] { static_cast<A*>(plan)->run(*args); });
}

template <class A>
void destroy(void* plan) noexcept {
  guarded(nullptr, [&] { delete static_cast<A*>(plan); });
}

template <class A>
cct_status cost(const cct_comm* comm, const cct_coll_args* args, const int64_t* params,
                cct_cost* out, cct_error* why) noexcept {
  return guarded(why, [&] {
    *out = A::cost(Comm(comm), *args, std::span<const int64_t>(params, params_of<A>().size()));
  });
}

// The cost entry of A: NULL where A states no cost.
template <class A>
constexpr auto cost_of() {
  using Fn =
      cct_status (*)(const cct_comm*, const cct_coll_args*, const int64_t*, cct_cost*, cct_error*);
  if constexpr (requires { A::cost(Comm(nullptr), cct_coll_args{}, std::span<const int64_t>()); })
    return static_cast<Fn>(&cost<A>);
  else
    return static_cast<Fn>(nullptr);
}

template <class A>
constexpr cct_algorithm_desc make_desc() {
  constexpr auto params = params_of<A>();
  return cct_algorithm_desc{
      .struct_size = sizeof(cct_algorithm_desc),
      .abi_version = CCT_ABI_VERSION,
      .name = A::info.name,
      .doc = A::info.doc,
      .collective = A::info.collective,
      .required_caps = A::info.required_caps,
      .limits = A::info.limits,
      .min_ranks = A::info.min_ranks,
      .max_ranks = A::info.max_ranks,
      .params = params.data(),
      .nparams = static_cast<uint32_t>(params.size()),
      .can_use = &can_use<A>,
      .prepare = &prepare<A>,
      .run = &run<A>,
      .destroy = &destroy<A>,
      .cost = cost_of<A>(),
  };
}

}  // namespace detail

// The C descriptor of algorithm class A, constant-initialised: loading the
// library runs no code to build it.
template <class A>
inline constexpr cct_algorithm_desc desc_of = detail::make_desc<A>();

}  // namespace cct::sdk

// Exports the listed algorithm classes as this library's cct_algorithms_v2.
#define CCT_SDK_EXPORT_ALGORITHMS(...)                                                \
  namespace {                                                                         \
  template <class... A>                                                               \
  constexpr std::array<const cct_algorithm_desc*, sizeof...(A)> cct_sdk_list_of() {   \
    return {&cct::sdk::desc_of<A>...};                                                \
  }                                                                                   \
  constexpr auto cct_sdk_list = cct_sdk_list_of<__VA_ARGS__>();                       \
  constexpr cct_algorithm_set cct_sdk_set{sizeof(cct_algorithm_set), CCT_ABI_VERSION, \
                                          static_cast<uint32_t>(cct_sdk_list.size()), \
                                          cct_sdk_list.data()};                       \
  }                                                                                   \
  CCT_EXPORT_ALGORITHMS(cct_sdk_set)
