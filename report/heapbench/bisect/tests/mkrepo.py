"""mkrepo.py - makes a git repository of a small C program whose allocation pattern changes at one commit, for bisect's tests and benchmark.

Usage: mkrepo.py DIR COMMITS CHANGE KIND [BROKEN,...]
  COMMITS commits (1..COMMITS); from commit CHANGE on the program does 5% more page faults
  (KIND=faults: it writes 5% more freshly malloc'd pages) or 10% more work (KIND=time: a run of
  ~20 ms, nearly all of it a loop, whose loop is 10% longer), or (KIND=cache) the same instructions
  and pages with a chase through 4 MiB (more than a core's L2) that walks it line by line before CHANGE
  and jumps across it from CHANGE on (cache misses: ~10% more CPU time of a run of ~20-40 ms, which
  only time shows; the 4 MiB's page faults and a short loop are the rest of the run), or, KIND=alloc, not a program but a tiny allocator library, libtiny.so
  (tiny.c over glibc's __libc_malloc and its kin), whose every block is 256 bytes longer from CHANGE on; each commit numbered in BROKEN does not build (an #error in its config.h).
  Prints the hashes of commit 1 (good) and COMMITS (bad), and of CHANGE, one per line.
Always holds: every commit changes config.h (so each commit is a distinct tree); the program is
built by `make` with the repository's own Makefile; nothing outside DIR is written.
"""
import os
import subprocess
import sys

PROG = r'''#include <stdlib.h>
#include <string.h>
#include "config.h"
int main(void)
{
    volatile unsigned long sink = 0;
    for (long i = 0; i < PAGES; i++) {
        char *p = malloc(4096);
        if (!p) return 1;
        memset(p, (int)i, 4096);
        sink += (unsigned long)p[7];
    }
    for (long i = 0; i < WORK; i++)
        sink = sink * 6364136223846793005UL + 1442695040888963407UL;
    return (int)(sink & 0);
}
'''
# KIND=cache: one program for every commit; only the stride of the chase (read through a volatile, so
# that the code and its instructions are the same) changes
CACHE_PROG = r'''#include <stdlib.h>
#include <string.h>
#include "config.h"
volatile unsigned long stride_v = STRIDE;
int main(void)
{
    const unsigned long n = 1UL << 20, mask = n - 1, stride = stride_v;
    unsigned *arr = malloc(n * sizeof *arr);
    volatile unsigned long sink = 0;
    if (!arr) return 1;
    memset(arr, 0, n * sizeof *arr);
    unsigned long p = 0;
    for (long i = 0; i < CHASE; i++)
        p = ((p + stride) & mask) + arr[p];
    sink += p;
    for (long i = 0; i < WORK; i++)
        sink = sink * 6364136223846793005UL + 1442695040888963407UL;
    return (int)(sink & 0);
}
'''
MAKEFILE = "prog: prog.c config.h\n\tcc -O1 -o prog prog.c\n"
# KIND=alloc: a tiny allocator library over glibc's own entry points, every block PAD bytes longer
TINY = r'''#include <errno.h>
#include <stddef.h>
#include "config.h"
extern void *__libc_malloc(size_t);
extern void __libc_free(void *);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void *__libc_memalign(size_t, size_t);
void *malloc(size_t n) { return __libc_malloc(n + PAD); }
void free(void *p) { __libc_free(p); }
void *calloc(size_t k, size_t n) { return n && k > ((size_t)-1 - PAD) / n ? NULL : __libc_calloc(1, k * n + PAD); }
void *realloc(void *p, size_t n) { return __libc_realloc(p, n + PAD); }
void *memalign(size_t a, size_t n) { return __libc_memalign(a, n + PAD); }
void *aligned_alloc(size_t a, size_t n) { return __libc_memalign(a, n + PAD); }
int posix_memalign(void **out, size_t a, size_t n)
{
    void *p = __libc_memalign(a, n + PAD);
    if (!p) return ENOMEM;
    *out = p;
    return 0;
}
'''
TINY_MAKEFILE = "libtiny.so: tiny.c config.h\n\tcc -O2 -shared -fPIC -o libtiny.so tiny.c\n"
SIZES = {"faults": (4000, 25_000_000), "time": (400, 20_000_000)}  # (pages, loop steps) of each kind: the
# time kind's run is the loop's ~20 ms (400 pages take ~2 ms), so that 10% more loop is ~10% more time


def config(n, change, kind, broken):
    """config.h of commit n."""
    if kind == "alloc":
        return f"/* commit {n} */\n#define PAD {256 if n >= change else 0}\n" + ("#error no build\n" if n in broken else "")
    if kind == "cache":
        text = f"/* commit {n} */\n#define STRIDE {2654435 if n >= change else 16}UL\n#define CHASE 40000L\n#define WORK 3000000L\n"
        return text + ("#error this commit does not build\n" if n in broken else "")
    pages, work = SIZES[kind]
    pages = pages * 105 // 100 if kind == "faults" and n >= change else pages
    work = work * 110 // 100 if kind == "time" and n >= change else work
    text = f"/* commit {n} */\n#define PAGES {pages}L\n#define WORK {work}L\n"
    return text + ("#error this commit does not build\n" if n in broken else "")


def git(directory, *args):
    """git -C directory ARGS, its output."""
    env = dict(os.environ, GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@example.org", GIT_COMMITTER_NAME="t",
               GIT_COMMITTER_EMAIL="t@example.org")
    return subprocess.run(["git", "-C", directory, *args], check=True, stdout=subprocess.PIPE, text=True,
                          env=env).stdout.strip()


def make(directory, commits, change, kind, broken=()):
    """Makes the repository; returns (good hash, bad hash, change hash)."""
    os.makedirs(directory)
    git(directory, "init", "-q", "-b", "main")
    files = ({"tiny.c": TINY, "Makefile": TINY_MAKEFILE} if kind == "alloc" else
             {"prog.c": CACHE_PROG if kind == "cache" else PROG, "Makefile": MAKEFILE})
    for name, text in files.items():
        with open(os.path.join(directory, name), "w") as f:
            f.write(text)
    hashes = {}
    for n in range(1, commits + 1):
        with open(os.path.join(directory, "config.h"), "w") as f:
            f.write(config(n, change, kind, set(broken)))
        git(directory, "add", "-A")
        git(directory, "commit", "-q", "-m", f"commit {n}")
        hashes[n] = git(directory, "rev-parse", "HEAD")
    return hashes[1], hashes[commits], hashes[change]


if __name__ == "__main__":
    if len(sys.argv) not in (5, 6):
        sys.exit(__doc__)
    broken = [int(x) for x in sys.argv[5].split(",") if x] if len(sys.argv) == 6 else []
    for h in make(sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4], broken):
        print(h)
