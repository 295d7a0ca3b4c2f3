/* test_csvrow.c - unit tests of CSV row building and parsing (runner/write/csvrow.c).
 * Always holds: every check compares against values computed here, not recorded output.
 */
#include <stdlib.h>
#include <string.h>

#include "write/csvrow.h"
#include "tcheck.h"

/* Builds one row of awkward fields and parses it back. */
static void test_roundtrip(void)
{
    const char *fields[] = {"plain", "with,comma", "with \"quote\"", "multi\nline", "", "--ops=1 --x=2"};
    struct hb_csv row = {0};
    for (size_t i = 0; i < 6; i++)
        hb_csv_str(&row, fields[i]);
    hb_csv_end(&row);
    TCHECK("csv row ends with one newline", row.len > 0 && row.buf[row.len - 1] == '\n');
    TCHECK("csv quotes only what needs it", strncmp(row.buf, "plain,\"with,comma\",\"with \"\"quote\"\"\"", 35) == 0);
    struct hb_strv back = {0};
    size_t pos = 0;
    TCHECK("csv parse reads the record", hb_csv_parse(row.buf, &pos, &back) == 0);
    TCHECK("csv parse field count", back.n == 6);
    int same = back.n == 6;
    for (size_t i = 0; same && i < 6; i++)
        same = strcmp(back.v[i], fields[i]) == 0;
    TCHECK("csv parse gives back every field exactly", same);
    TCHECK("csv parse consumed the whole row", pos == row.len);
    TCHECK("csv parse at end returns -1", hb_csv_parse(row.buf, &pos, &back) == -1);
    hb_strv_free(&back);
    hb_csv_free(&row);
}

/* Numbers, empties and line resets. */
static void test_numbers(void)
{
    struct hb_csv row = {0};
    hb_csv_long(&row, -42);
    hb_csv_num(&row, 0.125);
    hb_csv_empty(&row);
    hb_csv_num(&row, 1e-7);
    hb_csv_end(&row);
    hb_csv_long(&row, 7);
    hb_csv_end(&row);
    TCHECK("csv numbers and empty field", strcmp(row.buf, "-42,0.125,,1e-07\n7\n") == 0);
    hb_csv_reset(&row);
    TCHECK("csv reset empties the row", row.len == 0 && row.buf[0] == '\0');
    hb_csv_free(&row);
}

/* Several records with CRLF endings. */
static void test_multi(void)
{
    const char *text = "a,b\r\n1,\"x,y\"\r\n";
    struct hb_strv f = {0};
    size_t pos = 0;
    hb_csv_parse(text, &pos, &f);
    hb_csv_parse(text, &pos, &f);
    TCHECK("csv parses CRLF records", f.n == 4 && strcmp(f.v[1], "b") == 0 && strcmp(f.v[3], "x,y") == 0);
    hb_strv_free(&f);
}

/* Runs every check above; the exit status says whether one failed. */
int main(void)
{
    test_roundtrip();
    test_numbers();
    test_multi();
    return tcheck_summary();
}
