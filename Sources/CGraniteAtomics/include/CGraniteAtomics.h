// Atomic loads, stores and fences on 64-bit words of memory that several processes map (the shared index,
// `DB-shm`). Swift's standard library has no atomics on raw pointers, so these wrap the compiler's
// `__atomic` builtins; every function is `static inline`, so a call compiles to one instruction.
#ifndef CGRANITE_ATOMICS_H
#define CGRANITE_ATOMICS_H

#include <stdint.h>

/// Loads the word at `address` with acquire ordering: later loads cannot move before it.
static inline uint64_t granite_atomic_load_acquire(const uint64_t *address) {
    return __atomic_load_n(address, __ATOMIC_ACQUIRE);
}

/// Loads the word at `address` with no ordering of its own (inside a sequence-lock read).
static inline uint64_t granite_atomic_load_relaxed(const uint64_t *address) {
    return __atomic_load_n(address, __ATOMIC_RELAXED);
}

/// Stores `value` at `address` with release ordering: earlier stores cannot move after it.
static inline void granite_atomic_store_release(uint64_t *address, uint64_t value) {
    __atomic_store_n(address, value, __ATOMIC_RELEASE);
}

/// Stores `value` at `address` with no ordering of its own (inside a sequence-lock write).
static inline void granite_atomic_store_relaxed(uint64_t *address, uint64_t value) {
    __atomic_store_n(address, value, __ATOMIC_RELAXED);
}

/// Orders the loads before it before the loads after it (the reader's side of a sequence lock).
static inline void granite_atomic_fence_acquire(void) {
    __atomic_thread_fence(__ATOMIC_ACQUIRE);
}

/// Orders the stores before it before the stores after it (the writer's side of a sequence lock).
static inline void granite_atomic_fence_release(void) {
    __atomic_thread_fence(__ATOMIC_RELEASE);
}

#endif
