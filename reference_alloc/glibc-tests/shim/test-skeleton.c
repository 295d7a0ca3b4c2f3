/* test-skeleton.c - glibc's legacy test skeleton (tests include "../test-skeleton.c"): there,
 * TEST_FUNCTION is an expression such as "do_test ()", here turned into a function for the driver.
 * Always holds: includes the headers the legacy skeleton provided, then support/test-driver.c.
 */
#include <assert.h>
#include <fcntl.h>
#include <malloc.h>
#include <stdint.h>
#include <time.h>
#include "shim.h"

#ifdef TEST_FUNCTION
static int hb_legacy_test(void) { return TEST_FUNCTION; }
#undef TEST_FUNCTION
#define TEST_FUNCTION hb_legacy_test
#endif
#include "support/test-driver.c"
