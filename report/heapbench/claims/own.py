"""own.py - findings of our own beside the articles' claims: what the other allocators keep after free-all.

No article claims these for these allocators; they are measured with the claims' cells because
they answer the question the claims raise (which allocator keeps freed memory), and each row
says which claim it stands beside.
Always holds: RSS figures from one run (they do not depend on the load); a row here is never
counted as an article's claim.
"""
from heapbench.claims import verdict as V
from heapbench.claims.a000 import FRAG_DIFF, FRAG_P, FRAG_SETUP
from heapbench.claims.figures import claim, fmt, mib, ratio, rss
from heapbench.claims.measure import Spec

FRAG_ALLOCATORS = ["jemalloc", "tcmalloc", "mimalloc", "tbbmalloc"]
FRAG = Spec("frag", FRAG_ALLOCATORS, params=(FRAG_P,), reps=1, warmup=0)


def judge_frag(alloc):
    """RSS of one allocator after free-all against after alloc: "keeps" is at least 3/4."""
    def judge(rows):
        r = rows[0]
        a, after, trim = (rss(r, p, allocator=alloc, params=FRAG_P) for p in ("alloc", "free-all", "trim"))
        return (f"{alloc}: RSS after alloc {fmt(mib(a), ' MiB', 1)}, after free-all {fmt(mib(after), ' MiB', 1)}, "
                f"after malloc_trim {fmt(mib(trim), ' MiB', 1)}", V.decide(V.exact(ratio(after, a)), lo=0.75))
    return judge


CLAIMS = [
    claim(f"own/frag-{a}", "own", f"(beside frag) {a} keeps the ~199 MB after everything is freed", FRAG_SETUP,
          "RSS at the end of `free-all` against `alloc`, nothing allocated above the blocks", FRAG_DIFF, [FRAG],
          judge_frag(a)) for a in FRAG_ALLOCATORS
]
