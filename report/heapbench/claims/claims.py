"""claims.py - every numeric claim of the five articles, in table order, the articles' headings, and our own findings.

Always holds: every claim id is unique; each claim's article is a key of ARTICLES; the rows under
"own" are findings of ours beside the claims, never counted as an article's claim.
"""
from heapbench.claims import a000, a001, a002, a003, a004, glibc, other, own

ARTICLES = {
    "000": "Article 000: fragmentation, the arena list and glibc's internals (macOS)",
    "001": "Article 001: threads (16 vCPUs, an older glibc)",
    "002": "Article 002: a fixed-size pool",
    "003": "Article 003: a log parser with an arena",
    "004": "Article 004: glibc's tunables, the teaching allocators, the operating system's costs",
    "own": "Our own findings (no article claims these)",
}

CLAIMS = a000.CLAIMS + other.CLAIMS + glibc.CLAIMS + a001.CLAIMS + a002.CLAIMS + a003.CLAIMS + a004.CLAIMS + own.CLAIMS
