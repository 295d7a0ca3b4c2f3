/* touch_table.c - builds the replayer's table of touch records (see touch_table.h).
 * Always holds: open addressing on common/oa_table.h's probe, in a power-of-two table at most 3/4
 * full (every probe ends at an empty slot); a later record of the same object replaces the earlier. */
#include "touch_table.h"

static int add(void *arg, const struct hbt_touch *r)
{
    struct touch_table *tt = arg;
    uint64_t key = touch_key(r->obj);
    struct touch_slot *s = &tt->slots[oa_find(tt->slots, sizeof *tt->slots, tt->mask, touch_home(key), key)];
    if (s->key == 0) {
        if (tt->n >= TOUCH_TABLE_MAX) {
            tt->dropped++;
            return 0;
        }
        tt->n++;
    }
    *s = (struct touch_slot){key, r->resident};
    return 0;
}

int touch_table_build(struct touch_table *tt, const struct hbt_trace *t)
{
    *tt = (struct touch_table){0};
    if (t->touch_records == 0)
        return 0;
    uint64_t want = t->touch_records < TOUCH_TABLE_MAX ? t->touch_records : TOUCH_TABLE_MAX, slots = 16;
    while (slots / 4 * 3 < want)
        slots *= 2;
    tt->slots = hbt_pages(slots * sizeof *tt->slots);
    if (!tt->slots)
        return -1;
    tt->mask = slots - 1;
    if (hbt_touch_each(t, add, tt) != 0) {
        touch_table_free(tt);
        return -1;
    }
    return 0;
}

void touch_table_free(struct touch_table *tt)
{
    if (tt->slots)
        hbt_unpages(tt->slots, (tt->mask + 1) * sizeof *tt->slots);
    *tt = (struct touch_table){0};
}
