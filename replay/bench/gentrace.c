/* gentrace.c - writes a synthetic allocation trace of any length, for replay/bench/stream.sh: the
 * replayer's memory against the trace's length without recording a program for minutes.
 * usage: replay-gentrace FILE EVENTS [VERSION [THREADS]]. THREADS (1 or 2, default 2) threads,
 * their events alternating in the global order; each keeps a ring of 1,024 live blocks of 16-1,024 bytes (a fixed pseudo-random
 * sequence): it mallocs a block and frees the one made 1,024 mallocs before, and every 64th
 * block of thread 0 is freed by thread 1 instead when there are two (a cross-thread free, made
 * at once after it exists). VERSION 2 writes the older format (no order, no thread events), which a replayer
 * before format 3 reads.
 * Always holds: the trace goes through the one trace writer (contract/trace.c); the file is whole
 * (complete, with its event count) or the program exits non-zero. */
#include "trace.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#define RING 1024u

static FILE *out;

struct gen {
    struct hbt_chunk c;
    uint8_t buf[64 << 10];
    uint64_t ring[RING];      /* seqs of the live blocks, oldest first at pos */
    uint64_t made, pos;
    unsigned x;
};

static void put(struct gen *g, struct hbt_event e, uint64_t *order, uint64_t *seq)
{
    if (!hbt_chunk_has_room(&g->c)) {
        size_t n = hbt_chunk_seal(&g->c);
        if (fwrite(g->c.buf, 1, n, out) != n)
            exit(1);
        hbt_chunk_reset(&g->c);
    }
    e.order = (*order)++;
    e.ns = e.order;
    uint64_t s = hbt_chunk_put(&g->c, &e);
    if (seq)
        *seq = s;
}

int main(int argc, char **argv)
{
    if (argc < 3 || argc > 5) {
        fprintf(stderr, "usage: replay-gentrace FILE EVENTS [VERSION [THREADS]]\n");
        return 2;
    }
    int nt = argc == 5 ? atoi(argv[4]) : 2;
    uint64_t want = strtoull(argv[2], NULL, 10), order = 0, ops = 0;
    uint32_t version = argc >= 4 ? (uint32_t)atoi(argv[3]) : HBT_VERSION;
    static struct gen g[2];
    struct hbt_header h = {.page_size = 4096, .pid = 1, .complete = 1, .threads = (uint64_t)nt};
    snprintf(h.command, sizeof h.command, "replay-gentrace %s", argv[2]);
    out = fopen(argv[1], "w");
    if (!out || version < 2 || version > HBT_VERSION || nt < 1 || nt > 2)
        return fprintf(stderr, "replay-gentrace: cannot write %s (or VERSION not 2..%u, or THREADS not 1 or 2)\n", argv[1], HBT_VERSION), 1;
    uint8_t hdr[HBT_HEADER_SIZE];
    fwrite(hdr, 1, sizeof hdr, out); /* written again at the end */
    for (int t = 0; t < nt; t++) {
        hbt_chunk_init(&g[t].c, g[t].buf, sizeof g[t].buf, (uint16_t)t);
        g[t].c.version = version;
        g[t].x = 7u + (unsigned)t;
        if (version >= 3)
            put(&g[t], (struct hbt_event){.kind = HBT_THREAD_START}, &order, NULL), ops++;
    }
    uint64_t cross_pending = HBT_NONE;
    while (ops + 4 <= want) {
        for (int t = 0; t < nt; t++) {
            struct gen *me = &g[t];
            me->x = me->x * 1103515245u + 12345u;
            uint64_t seq;
            put(me, (struct hbt_event){.kind = HBT_MALLOC, .size = 16 + (me->x >> 16) % 1009}, &order, &seq);
            ops++;
            if (t == 1 && cross_pending != HBT_NONE) { /* thread 1 frees thread 0's block */
                put(me, (struct hbt_event){.kind = HBT_FREE, .ref_thread = 0, .ref_seq = cross_pending}, &order, NULL);
                cross_pending = HBT_NONE;
                ops++;
            }
            if (nt == 2 && t == 0 && seq % 64 == 63) { /* handed over: not in the ring */
                cross_pending = seq;
                continue;
            }
            if (me->made >= RING) {
                put(me, (struct hbt_event){.kind = HBT_FREE, .ref_thread = (uint16_t)t, .ref_seq = me->ring[me->pos]}, &order, NULL);
                ops++;
            }
            me->ring[me->pos] = seq;
            me->pos = (me->pos + 1) % RING;
            me->made++;
        }
    }
    for (int t = 0; t < nt; t++) {
        size_t n = hbt_chunk_seal(&g[t].c);
        if (n && fwrite(g[t].c.buf, 1, n, out) != n)
            return 1;
    }
    h.ops = ops;
    hbt_header_encode(&h, hdr);
    hdr[8] = (uint8_t)version;
    uint32_t crc = (uint32_t)crc32(crc32(0L, Z_NULL, 0), hdr, HBT_HEADER_SIZE - 4);
    for (int i = 0; i < 4; i++)
        hdr[HBT_HEADER_SIZE - 4 + i] = (uint8_t)(crc >> (8 * i));
    if (fseek(out, 0, SEEK_SET) != 0 || fwrite(hdr, 1, sizeof hdr, out) != sizeof hdr || fclose(out) != 0)
        return fprintf(stderr, "replay-gentrace: writing %s failed (disk full?)\n", argv[1]), 1;
    printf("%llu\n", (unsigned long long)ops);
    return 0;
}
