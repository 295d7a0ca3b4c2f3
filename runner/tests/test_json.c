/* test_json.c - unit tests of meta.json's JSON strings (runner/write/json.c): what hb_json_str()
 * writes reads back exactly through the cJSON-based readers, which see top-level keys only.
 * Always holds: every expected value is a string written in this file.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "write/json.h"
#include "tcheck.h"

/* JSON strings written by hb_json_str read back by hb_json_get_str/_strv. */
static void test_json(void)
{
    char *doc = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&doc, &len);
    fprintf(f, "{\"name\": ");
    hb_json_str(f, "a \"q\" \\ b\n\tc");
    fprintf(f, ", \"argv\": [");
    hb_json_str(f, "run");
    fprintf(f, ", ");
    hb_json_str(f, "--env=A=1 B=\"2\"");
    fprintf(f, "]}");
    fclose(f);
    char *name = hb_json_get_str(doc, "name");
    TCHECK("json string round trip", name && strcmp(name, "a \"q\" \\ b\n\tc") == 0);
    struct hb_strv argv = {0};
    TCHECK("json array found", hb_json_get_strv(doc, "argv", &argv) == 0);
    TCHECK("json array round trip", argv.n == 2 && strcmp(argv.v[1], "--env=A=1 B=\"2\"") == 0);
    TCHECK("json absent key", hb_json_get_str(doc, "nope") == NULL);
    TCHECK("json key nested in a value is not top-level",
           hb_json_get_str("{\"a\": {\"run_id\": \"x\"}}", "run_id") == NULL);
    TCHECK("json key inside a string is not a key", hb_json_get_str("{\"a\": \"\\\"run_id\\\": \\\"x\\\"\"}", "run_id") == NULL);
    TCHECK("json malformed document reads as absent", hb_json_get_str("{\"run_id\": \"x\"", "run_id") == NULL);
    struct hb_strv none = {0};
    TCHECK("json non-array is not an array", hb_json_get_strv("{\"argv\": \"run\"}", "argv", &none) == -1 && none.n == 0);
    hb_strv_free(&argv);
    free(name);
    free(doc);
}

/* Runs every check above; the exit status says whether one failed. */
int main(void)
{
    test_json();
    return tcheck_summary();
}
