// AddressSanitizer's view of the fibers' stacks. Boost.Context's default
// switch (fcontext) moves between stacks without telling the sanitizer,
// which then takes a throw inside a fiber for one on an unknown stack and
// leaves the frames it unwinds poisoned, and keeps a freed fiber stack's
// poison for whatever is mapped at that address next (a later fiber's
// stack, a plugin file the registry maps): both end in false reports of
// stack-buffer-overflow or stack-use-after-scope (CI of 2026-12-01,
// rio_seed_claims; cct_rio_tests). The functions below are the sanitizer's
// fiber interface; without -fsanitize=address they do nothing.
#pragma once

#include <cstddef>

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/asan_interface.h>
#include <sanitizer/common_interface_defs.h>
#endif

namespace cct::rio {

struct StackRange {
  const void* bottom = nullptr;  // lowest address
  std::size_t size = 0;
};

// Right before this thread switches to the stack `to`. `fake` receives
// what the sanitizer keeps of the stack being left, for after_switch when
// it is resumed; nullptr says the stack is left for good.
inline void before_switch(void** fake, StackRange to) {
#if defined(__SANITIZE_ADDRESS__)
  __sanitizer_start_switch_fiber(fake, to.bottom, to.size);
#else
  (void)fake, (void)to;
#endif
}

// First thing on the stack just switched to, with what before_switch kept
// when this stack was left (nullptr on a fiber's first run). Returns the
// stack the switch came from.
inline StackRange after_switch(void* fake) {
  StackRange from;
#if defined(__SANITIZE_ADDRESS__)
  __sanitizer_finish_switch_fiber(fake, &from.bottom, &from.size);
#else
  (void)fake;
#endif
  return from;
}

// A stack about to be unmapped: whatever is mapped there later starts
// clean (the frames a fiber ends in are never popped).
inline void forget_stack(StackRange stack) {
#if defined(__SANITIZE_ADDRESS__)
  ASAN_UNPOISON_MEMORY_REGION(stack.bottom, stack.size);
#else
  (void)stack;
#endif
}

}  // namespace cct::rio
