"""inventory.py - every checkable claim of the five articles, read from the articles' own text, and where each stands here.

A checkable claim is a statement of an article that a measurement on this kind of machine (Linux,
x86-64) could confirm or refute: a figure, a comparison, or a behaviour of an allocator. Each entry
names where it stands in its article (the section, as the article titles it, in English), the claim
in our words, and its status:
- ROW: the ids of the rows of CLAIMS (claims.py) that test it;
- NOT_HERE: why it cannot be tested on this machine (a macOS figure, a glibc version we do not
  have, hardware we lack, a source constant with no behaviour to observe);
- TODO: it could be tested here and no row tests it yet (CLAIMS.md counts these).
Always holds: ids are unique and start with their article's number; every row of an article in
CLAIMS is named by exactly one entry (tests/test_inventory.py), every id a ROW entry names is a row
of CLAIMS, and CLAIMS.md states the counts that status() gives.
"""
ROW, NOT_HERE, TODO = "row", "not here", "todo"


def c(cid, where, text, status, detail=()):
    """One inventory entry: detail is the row ids (ROW) or the reason (NOT_HERE)."""
    return dict(id=cid, article=cid[:3], where=where, text=text, status=status, detail=detail)


def row(*ids):
    """The ROW status with its row ids."""
    return ROW, tuple(ids)


def not_here(reason):
    """The NOT_HERE status with its reason."""
    return NOT_HERE, reason


MACOS = "a figure measured on the article's macOS machine with macOS's allocator (malloc_size); glibc's own form has its row"
GLIBC_NEW = "a behaviour of glibc 2.42-2.44; this machine has glibc 2.36 (Debian 12)"
SOURCE = "a constant of glibc's source with no behaviour of its own that a program sees"
GOOGLE_TCMALLOC = "Google's tcmalloc (per-CPU caches, rseq); Debian ships gperftools' tcmalloc, another design"
CORES16 = "contention of 16 vCPUs; this machine has 2 (CLAIMS.md: what 2 cores can show)"
NO_LOCK = ("an uncontended lock leaves nothing a tool here counts: glibc 2.36 inlines its arena lock (no "
           "function call for callgrind), takes no system call without contention (strace), and this VM exposes "
           "no hardware counters for locked instructions")
NO_HW = "needs hardware performance counters, which this VM does not expose"
MACHINE = "an absolute figure of the article's machine"

ENTRIES = [
    # --- 000: glibc internals and fragmentation (macOS measurements, glibc 2.44 source) ---
    c("000-sizes-macos", "fragmentation: the malloc_size table", "macOS's size classes (16-byte quanta, 112, 224, ...)",
      *not_here(MACOS)),
    c("000-chunk-sizes", "opening; chunks", "malloc(1) to malloc(24) take a 32-byte chunk, malloc(25) 48: the header "
      "costs 8 bytes per chunk on 64-bit (the next chunk's prev_size is user data), minimum 32, alignment 16",
      *row("sizes")),
    c("000-calloc-mmap", "calloc and realloc", "calloc skips zeroing for mmap'd chunks, so calloc can beat malloc + "
      "memset for large zeroed arrays", *row("calloc")),
    c("000-calloc-top", "calloc and realloc", "calloc clears only the part of a chunk that is not freshly sbrk'd "
      "top", *row("calloc/top")),
    c("000-realloc-inplace", "calloc and realloc", "realloc grows in place when the next chunk is free or the top",
      *row("realloc/in-place")),
    c("000-realloc-mremap", "calloc and realloc", "realloc of an mmap'd chunk goes through mremap, without copying",
      *row("realloc-mremap")),
    c("000-realloc-amortise", "calloc and realloc", "growing by a factor (x1.5, x2) amortises realloc's cost",
      *row("realloc-grow")),
    c("000-bins", "bins", "128 bins; small bins below 1,024 bytes; large bins in logarithmic spans", *not_here(SOURCE)),
    c("000-unsorted", "bins", "freed chunks go to the unsorted bin first and get one chance before binning",
      *not_here(SOURCE)),
    c("000-top-shrink", "bins; fragmentation", "the heap shrinks only from the top chunk: one live chunk near the "
      "end keeps all the free space below it resident", *row("frag/pin")),
    c("000-tcache-count", "tcache; summary", "tcache keeps 7 chunks per size (16 from glibc 2.43), sizes up to "
      "1,032 bytes", *row("tcache/count")),
    c("000-tcache-lockfree", "tcache", "a tcache hit takes no lock", *not_here(NO_LOCK)),
    c("000-fastbins-gone", "tcache", "fastbins are removed in glibc 2.43 (mxfast has no effect)", *not_here(GLIBC_NEW)),
    c("000-tcache-large", "tcache", "tcache caches large blocks when tcache_max is raised (glibc 2.42)",
      *not_here(GLIBC_NEW)),
    c("000-safe-linking", "tcache", "tcache's next pointers are masked with ASLR randomness (safe-linking)",
      *row("tcache/safe-linking")),
    c("000-double-free", "tcache", "tcache's key field detects a double free", *row("tcache/double-free")),
    c("000-heap-64m", "arenas", "non-main arenas reserve their heaps in 64 MiB aligned units, touching only what "
      "they use", *row("arenas/heap-64m")),
    c("000-arena-cap", "arenas; summary", "the arena count is capped at 8 x cores (glibc up to 2.43), after "
      "arena_test (8) arenas", *row("arenas/cap")),
    c("000-arena-cap-244", "arenas; summary", "glibc 2.44 caps the arenas at the core count", *not_here(GLIBC_NEW)),
    c("000-arena-max-rss", "arenas", "MALLOC_ARENA_MAX=2 lowers a multithreaded server's RSS", *row("arenas/arena-max")),
    c("000-mmap-threshold", "mmap threshold", "requests of 128 KiB or more are mmap'd; freeing a larger block "
      "raises the threshold, so later blocks of that size come from the heap", *row("mmap-threshold")),
    c("000-mmap-threshold-max", "mmap threshold", "the threshold rises to 32 MiB at most on 64-bit", *row("mmap-threshold/max")),
    c("000-mmap-threshold-fixed", "mmap threshold", "setting M_MMAP_THRESHOLD stops its dynamic adjustment", *row("mmap-threshold/fixed")),
    c("000-mmap-free", "mmap threshold", "an mmap'd block's free returns it to the system at once (munmap)", *row("mmap-free")),
    c("000-trim-threshold", "mmap threshold", "M_TRIM_THRESHOLD (128 KiB): free shrinks the heap when the top "
      "chunk exceeds it", *row("frag/trim-threshold")),
    c("000-frag-199", "fragmentation", "200,000 x 1 KiB all freed: RSS stays at ~199 MB, and glibc does the same",
      *row("frag")),
    c("000-frag-half", "fragmentation", "RSS is unchanged after freeing every other block", *row("frag/half")),
    c("000-trim", "fragmentation", "malloc_trim(0) helps little when the top chunk is not contiguous",
      *row("frag/trim")),
    c("000-lower-mmap-threshold", "fragmentation", "lowering M_MMAP_THRESHOLD returns memory (large blocks "
      "through mmap)", *row("frag/lower-mmap-threshold")),
    c("000-background-madvise", "fragmentation", "jemalloc and tcmalloc return memory with background "
      "madvise(MADV_DONTNEED)", *row("background/jemalloc", "background/tcmalloc")),
    c("000-jemalloc-defaults", "jemalloc", "jemalloc's defaults: 4 x CPUs arenas, tcache_max 32 KiB, "
      "dirty_decay_ms 10 s, muzzy_decay_ms 0", *row("jemalloc-defaults")),
    c("000-tcmalloc-percpu", "tcmalloc", "tcmalloc runs per-CPU caches by default, 8 KiB pages, 60-80 size classes",
      *not_here(GOOGLE_TCMALLOC)),
    c("000-mimalloc-page", "mimalloc", "mimalloc's pages are usually 64 KiB, each of one size class",
      *row("mimalloc/pages")),
    c("000-mimalloc-meta", "mimalloc", "mimalloc's metadata overhead is about 0.2%", *row("mimalloc/meta")),
    c("000-list-total", "not using a general allocator", "2 M 16-byte nodes: the arena ~8x faster in total",
      *row("list/total")),
    c("000-list-alloc", "not using a general allocator", "allocation 7x faster with the arena", *row("list/alloc")),
    c("000-list-free", "not using a general allocator", "free 61 ms with malloc, ~0 with the arena",
      *row("list/free")),
    c("000-list-traverse", "not using a general allocator", "the arena's list is traversed slower than malloc's "
      "(8.0 against 5.6 ms)", *row("list/traverse")),
    c("000-mallinfo2-main", "measuring", "mallinfo2() reports the main arena only", *row("arenas/mallinfo2")),
    c("000-mallinfo-overflow", "measuring", "mallinfo()'s int fields overflow past 4 GB", *row("mallinfo/overflow")),
    c("000-massif-defaults", "measuring", "massif's defaults: --time-unit i, --stacks no, --pages-as-heap no, "
      "--detailed-freq 10, --max-snapshots 100", *not_here("a tool's option defaults, not an allocator's "
      "behaviour (valgrind --tool=massif --help shows them)")),
    c("000-macos-zero-on-free", "measuring on macOS", "MallocZeroOnFree is the default from macOS 13",
      *not_here(MACOS)),
    # --- 001: threads (AWS c5.4xlarge, 16 vCPUs) ---
    c("001-8x5", "1 (the opening)", "glibc: 8 threads about 5x slower than 1", *row("thread-churn/8")),
    c("001-libc-malloc", "1 (the opening)", "with 8 threads, 90% of the time is in __libc_malloc",
      *row("thread-churn/libc-malloc")),
    c("001-arena-get", "1 (the opening)", "above 4 threads, the wait in arena_get grows exponentially",
      *not_here(CORES16)),
    c("001-arena-count", "2.1", "64-bit: arenas = 8 x cores; 32-bit: 2 x cores", *row("arenas/count")),
    c("001-arena-limit", "2.1", "malloc's latency jumps once threads exceed the arena limit (16 cores)",
      *row("latency/arena-limit")),
    c("001-l1-misses", "2.2", "high L1-dcache-load-misses in arena binding", *not_here(NO_HW)),
    c("001-mmap-lock", "2.2", "90% of a stress test's time in mmap's down_write lock", *not_here(CORES16)),
    c("001-table", "3.1", "the table: 1.2, 3.8, 8.5, 22.1, 59.7 s at 1, 4, 8, 16, 32 threads",
      *row("thread-churn/table")),
    c("001-user-share", "3.2", "at 1 thread, 90% of the time is in user space", *row("user-share")),
    c("001-lock-wait", "3.2", "at 16 threads, 75% of the time is in __lll_lock_wait", *row("thread-churn/lock-wait")),
    c("001-mmap-share", "3.2", "at 32 threads, 60% of the time is in mmap", *row("thread-churn/mmap")),
    c("001-mmap-calls", "3.2", "under high concurrency mmap is called 10x more often", *row("thread-churn/mmap-calls")),
    c("001-32-threads", "4.1-4.2", "32 threads: ptmalloc 59.7 s, tcmalloc 7.2, jemalloc 6.8, mimalloc 5.4",
      *row("thread-churn/32-jemalloc", "thread-churn/32-tcmalloc", "thread-churn/32-mimalloc")),
    c("001-frag-rates", "4.1-4.2; 6.2", "fragmentation rates (mapped - allocated) / mapped: ptmalloc 8%, tcmalloc "
      "15%, jemalloc 5%, mimalloc 3%", *row("fragmentation-rates")),
    c("001-jemalloc-footprint", "4.1", "jemalloc's initial memory footprint is larger", *row("jemalloc-footprint")),
    c("001-jemalloc-stable", "4.1", "jemalloc's latency is more stable", *row("latency/stable")),
    c("001-mimalloc-large", "4.1", "mimalloc is slower on large objects", *not_here(
      "no reference is given (slower than which allocator, from which size); and a large block's time here is "
      "mmap, munmap and page faults, kernel time at this VM's cost, which no count here stands for")),
    c("001-batch", "4.3", "allocating one block for 1,000 x 32 bytes is faster than 1,000 mallocs", *row("batch")),
    c("001-faults", "7", "32 threads: page faults x50", *row("thread-churn/faults")),
    c("001-numa", "7", "cross-NUMA-node access up to 3x slower", *not_here("one NUMA node on this machine")),
    c("001-bitmap-pool", "8", "a lock-free bitmap pool: 20x lower latency than jemalloc at 128 threads",
      *row("latency/bitmap-pool")),
    # --- 002: a fixed-size pool (Ubuntu 22 VM, i5-11400) ---
    c("002-pool", "extra: performance", "1 M x 256 B at -O0: pool 41.5 ms against malloc 90.2 ms", *row("pool")),
    c("002-setup", "extra: performance", "the pool's set-up takes 49 ms", *not_here(MACHINE)),
    c("002-no-sbrk", "extra: performance (discussion)", "without sbrk's cost the gap narrows (the heap already "
      "faulted in)", *row("pool/no-sbrk")),
    c("002-pool-constant", "comparison 2", "the pool's time per call is constant; malloc's allocation time varies "
      "and its free time nearly does not", *row("pool/constant")),
    c("002-no-mutex", "comparison 2", "malloc takes no mutex outside critical conditions (one thread)",
      *not_here(NO_LOCK)),
    c("002-fragmented", "extra: performance (discussion)", "a fragmented heap makes malloc slower", *row("pool/fragmented")),
    # --- 003: an arena in a log parser ---
    c("003-nodes", "what hurt", "a day file: 2.3 M lines, ~11.9 M nodes", *row("parser/nodes")),
    c("003-run-time", "what hurt", "a run took 1.42 s", *not_here(MACHINE)),
    c("003-profile", "what hurt", "32.1% _int_malloc, 18.7% _int_free, 6.2% malloc_consolidate",
      *row("parser/profile")),
    c("003-mask", "alignment", "the modulo offset cost 4% of the run; the mask does it in two instructions",
      *not_here("a 4% share of a run's time that is a division's latency: instruction counts do not weigh "
                "latency, and 4% of a parse whose time is mostly page faults here (~15 us each even idle) lies "
                "inside this VM's run-to-run noise; the instruction count of the mask is a compiler's output, not "
                "an allocator's behaviour")),
    c("003-block-align", "alignment", "sizeof(Block) is 24, so mem[] is 8- but not 16-byte aligned",
      *not_here("the layout of the article's own struct, fixed by the x86-64 ABI at compile time: no run decides "
                "it (our arena's block declares its data 16-aligned, workloads/common/wl_arena.c); malloc's part, "
                "16-byte alignment, is glibc's MALLOC_ALIGNMENT")),
    c("003-x9", "what came out", "the arena is 9x faster", *row("parser/arena")),
    c("003-calls", "what came out", "malloc calls fall from ~11 M to ~1.5 k (one per block)",
      *not_here("a row would hold by construction: one malloc per node against one per block is the design, and "
                "the block count is the file's bytes over a block size the article does not give (ours, 300 KiB, "
                "was chosen to give its ~1.5 k, row parser/arena)")),
    c("003-reset-rss", "what I missed", "without a reset RSS grows file by file to ~1.5 GB over 30 files",
      *row("parser/reset")),
    c("003-reset-time", "what I missed", "the reset costs 13 ms", *row("parser/reset-time")),
    # --- 004: malloc under the hood, teaching allocators ---
    c("004-syscall", "the opening; brk and sbrk", "an empty system call costs 575 ns", *row("os/syscall")),
    c("004-brk-only", "brk and sbrk", "malloc(16) x 1000 makes only brk calls", *row("os/brk-only")),
    c("004-break-distance", "address space", "the program break and libc's printf lie 23.4 TiB apart",
      *not_here("an address of one run under ASLR, not a figure a run repeats")),
    c("004-sbrk", "toy bump allocator", "sbrk(16) costs 610 ns", *row("os/sbrk", "os/sbrk-vs-syscall")),
    c("004-malloc16", "toy bump allocator", "malloc(16) costs 26.9 ns, 22.7x cheaper than sbrk(16)",
      *row("os/malloc", "os/malloc-vs-sbrk")),
    c("004-coalesce", "chunks and headers", "freeing adjacent a and b coalesces them into one 352-byte chunk, from "
      "which d is carved", *not_here(
      "a trial run of the article's own teaching allocator, whose code is not given, nor are the sizes of a, b "
      "and d (352 is their two chunks, headers included); ours (allocators/teach/core.c) was written from the "
      "article's rule, so a row would check our code against the rule it was written from; glibc's coalescing of "
      "free neighbours is article 000's (row frag/trim-threshold: 200 MB of freed blocks coalesce into the top)")),
    c("004-lazy", "demand paging", "after sbrk of 1 GiB RSS is 1,308 KiB", *row("os/sbrk-rss")),
    c("004-faults", "demand paging", "each 256 MiB written costs 65,536 page faults", *row("os/faults")),
    c("004-trim", "returning memory", "trim lowers the break when the top free chunk reaches 128 KiB, keeping "
      "64 KiB", *not_here(
      "a rule of the article's own teaching allocator, whose code is not given; ours (allocators/teach/trim.c) "
      "was written from this rule, so a row would check our code against the rule it was written from")),
    c("004-munmap", "large blocks with mmap", "munmap returns an mmap'd block at once, whatever lies beside it", *row("teach/munmap")),
    c("004-reuse-no-fault", "large blocks with mmap", "a reused sbrk chunk costs no page fault", *row("reuse-no-fault")),
    c("004-teach-live", "performance table", "10.3 MiB live at the end; RSS with live blocks: bump 1425, freelist "
      "17.8, trim 14.5, mmap 11.2, glibc 19.0 MiB", *row("teach/live")),
    c("004-teach-bump", "performance table", "the bump allocator keeps 1425 MiB", *row("teach/bump")),
    c("004-teach-freelist", "performance table", "the freelist allocator never returns memory",
      *row("teach/freelist")),
    c("004-teach-release", "performance table", "trim and mmap keep ~0.19 MiB after freeing all",
      *row("teach/release")),
    c("004-teach-time", "performance table", "11.7, 25.1, 11.2, 11.8 us per step against glibc's 0.0789",
      *row("teach/time")),
    c("004-teach-trim", "performance table", "trim is 142x slower than glibc", *row("teach/trim")),
    c("004-glibc", "performance table", "glibc: 19.0 MiB with the live blocks and after freeing all (tcache "
      "pins the top)", *row("churn-random/glibc")),
    c("004-glibc-time", "performance table", "glibc: 0.0789 us per step", *row("churn-random/glibc-time")),
    c("004-tcache0-time", "tunables table", "tcache_count=0: 0.121 us per step, 1.5x slower",
      *row("churn-random/tcache0-time")),
    c("004-tcache0-rss", "tunables table", "tcache_count=0: 0.250 MiB after freeing all",
      *row("churn-random/tcache0-rss")),
    c("004-mmap-threshold", "tunables table", "mmap_threshold=131072: 0.843 us per step, 12.1 and 5.85 MiB",
      *row("churn-random/mmap")),
]


def status():
    """(checkable claims, with a row, cannot be tested here, testable with no row yet)."""
    n = {s: sum(1 for e in ENTRIES if e["status"] == s) for s in (ROW, NOT_HERE, TODO)}
    return len(ENTRIES), n[ROW], n[NOT_HERE], n[TODO]
