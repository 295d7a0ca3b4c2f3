"""claims.py - every numeric claim of the five articles, in table order, and the articles' headings.

Always holds: every claim id is unique; each claim's article is a key of ARTICLES ("" for the
claims of issue 3 whose article the notes do not name).
"""
from heapbench.claims import a000, a001, a002, a003, a004, other

ARTICLES = {
    "000": "Article 000: fragmentation and the arena list (macOS)",
    "001": "Article 001: threads (16 vCPUs, an older glibc)",
    "002": "Article 002: a fixed-size pool",
    "003": "Article 003: a log parser with an arena",
    "004": "Article 004: glibc's tunables, the teaching allocators, the operating system's costs",
    "": "Claims of issue 3 whose article the notes do not name",
}

CLAIMS = a000.CLAIMS + a001.CLAIMS + a002.CLAIMS + a003.CLAIMS + a004.CLAIMS + other.CLAIMS
