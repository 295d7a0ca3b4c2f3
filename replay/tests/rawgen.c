/* rawgen.c - build/tests/replay-rawgen FILE.hbr: writes a raw recording (rawtrace.h) of two threads
 * whose order a real run makes only by chance: thread 0's realloc of p ends p (its RAW_X_TAKE)
 * before thread 1's malloc gets p back, and its own event comes after that malloc. The post-pass
 * must give the realloc thread 0's own object and thread 1's free thread 1's own: hbconvert then
 * hbtrace show no unknown free and no cross-thread free (replay/tests/run).
 * Always holds: writes FILE and exits 0, or says why it could not and exits 1. */
#include "common/rawtrace.h"

#include <stdio.h>
#include <string.h>

static uint8_t head[RAW_PREFIX + HBT_HEADER_SIZE], buf[2][4096];

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: replay-rawgen FILE.hbr\n");
        return 2;
    }
    struct raw_prefix pre = {.fork_order = RAW_NO_FORK};
    static struct hbt_header h = {.version = HBT_VERSION, .page_size = 4096, .pid = 1, .complete = 1, .threads = 2};
    snprintf(h.command, sizeof h.command, "rawgen");
    raw_prefix_encode(&pre, head);
    hbt_header_encode(&h, head + RAW_PREFIX);
    struct raw_block b[2];
    raw_block_init(&b[0], buf[0], sizeof buf[0], 0);
    raw_block_init(&b[1], buf[1], sizeof buf[1], 1);
    const uint64_t p = 0x10000, q = 0x20000;
    raw_put(&b[0], HBT_THREAD_START, 0, 0, 0, 1, 1, 0, 0, 0);
    raw_put(&b[0], HBT_MALLOC, p, 64, 1, 1, 0, 0, 0, 0);
    raw_put(&b[1], HBT_THREAD_START, 0, 0, 2, 1, 1, 0, 0, 0);
    raw_put(&b[0], RAW_EXT, p, RAW_X_TAKE, 3, 1, 0, 0, 1, 0); /* thread 0's realloc(p) begins: p ends */
    raw_put(&b[1], HBT_MALLOC, p, 32, 4, 1, 0, 0, 0, 0);       /* thread 1 gets p back */
    raw_put(&b[0], HBT_REALLOC, q, 128, 5, 1, 0, 0, 1, p);     /* the realloc returns q */
    raw_put(&b[0], HBT_FREE, q, 0, 6, 1, 0, 0, 0, 0);
    raw_put(&b[1], HBT_FREE, p, 0, 7, 1, 0, 0, 0, 0);
    FILE *f = fopen(argv[1], "wb");
    size_t n0 = raw_block_seal(&b[0]), n1 = raw_block_seal(&b[1]);
    if (!f || fwrite(head, 1, sizeof head, f) != sizeof head || fwrite(buf[0], 1, n0, f) != n0 || fwrite(buf[1], 1, n1, f) != n1 ||
        fclose(f) != 0) {
        perror(argv[1]);
        return 1;
    }
    return 0;
}
