/* spin.h - the recorder's spin lock, for the tables that its rare paths share between threads
 * (map_table.c, record_touch.c, the global order's take-over in record.c).
 * Always holds: no allocation and no system call but sched_yield while another thread holds it;
 * take is an acquire, drop a release. */
#ifndef HEAPBENCH_SPIN_H
#define HEAPBENCH_SPIN_H

#include <sched.h>
#include <stdatomic.h>

static inline void spin_take(atomic_flag *f)
{
    while (atomic_flag_test_and_set_explicit(f, memory_order_acquire))
        sched_yield();
}

static inline void spin_drop(atomic_flag *f) { atomic_flag_clear_explicit(f, memory_order_release); }

#endif
