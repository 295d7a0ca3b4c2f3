#!/usr/bin/env bash
# stampcost.sh - what one global order stamp costs a recorded event on this machine, for choosing
# how threads that allocate at once number their events: a relaxed fetch-add on one shared counter
# (the recorder's shared mode) alone and from two threads at once, against a TSC read (rdtsc,
# rdtscp, lfence + rdtsc: the last is the one that orders a stamp after the loads before it, which
# a consumer's event needs). CPU ns per stamp (CLOCK_THREAD_CPUTIME_ID over N stamps per thread).
# usage: replay/bench/stampcost.sh [N]   (default 20000000)
# Always holds: compiles and runs one C program in a temporary directory it removes; writes nothing else.
set -eu
source "$(dirname "$0")/progs.sh"
bp_tmp replay-stampcost
cat >"$TMP/stamp.c" <<'C'
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <x86intrin.h>
static long n;
static _Alignas(64) _Atomic unsigned long ctr;
static double cpu(void) { struct timespec t; clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t); return t.tv_sec + t.tv_nsec * 1e-9; }
static volatile unsigned long sink;
#define TIMED(name, expr) do { unsigned aux; (void)aux; double t0 = cpu(); unsigned long s = 0; \
    for (long i = 0; i < n; i++) s += (expr); sink = s; printf("%-26s %6.1f ns\n", name, (cpu() - t0) / n * 1e9); } while (0)
static void *shared(void *a) { (void)a; TIMED("fetch-add, 2 threads", atomic_fetch_add_explicit(&ctr, 1, memory_order_relaxed)); return NULL; }
static void *tsc2(void *a) { (void)a; TIMED("lfence+rdtsc, 2 threads", (_mm_lfence(), __rdtsc())); return NULL; }
static void two(void *(*fn)(void *)) { pthread_t a, b; pthread_create(&a, 0, fn, 0); pthread_create(&b, 0, fn, 0); pthread_join(a, 0); pthread_join(b, 0); }
int main(int argc, char **argv)
{
    n = argc > 1 ? atol(argv[1]) : 20000000;
    TIMED("fetch-add, 1 thread", atomic_fetch_add_explicit(&ctr, 1, memory_order_relaxed));
    TIMED("rdtsc", __rdtsc());
    TIMED("rdtscp", __rdtscp(&aux));
    TIMED("lfence+rdtsc", (_mm_lfence(), __rdtsc()));
    two(shared);
    two(tsc2);
    return 0;
}
C
cc -O2 -o "$TMP/stamp" "$TMP/stamp.c" -lpthread
echo "CPU per stamp:"
"$TMP/stamp" "${1:-20000000}"
bp_load after
