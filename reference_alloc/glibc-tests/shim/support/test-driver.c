/* support/test-driver.c - the main() of a glibc test built against heapbench's shim: the test
 * file includes this last, after defining do_test (or TEST_FUNCTION / TEST_FUNCTION_ARGV) and
 * optionally TIMEOUT, EXPECTED_SIGNAL, EXPECTED_STATUS, PREPARE, CLEANUP_HANDLER.
 *
 * Always holds: the macros mean what glibc's test-driver.c documents; the work is done by
 * hb_test_main in driver.c (fork, timeout, exit-status rules).
 */
#include "../shim.h"

int main(int argc, char **argv)
{
    struct hb_test_config config;
    memset(&config, 0, sizeof config);
#if defined TEST_FUNCTION_ARGV
    config.test_function_argv = TEST_FUNCTION_ARGV;
#elif defined TEST_FUNCTION
    config.test_function = TEST_FUNCTION;
#else
    config.test_function = do_test;
#endif
#ifdef PREPARE
    config.prepare_function = PREPARE;
#endif
#ifdef CLEANUP_HANDLER
    config.cleanup_function = CLEANUP_HANDLER;
#endif
#ifdef EXPECTED_SIGNAL
    config.expected_signal = EXPECTED_SIGNAL;
#endif
#ifdef EXPECTED_STATUS
    config.expected_status = EXPECTED_STATUS;
#endif
#ifdef TIMEOUT
    config.timeout = TIMEOUT;
#endif
    return hb_test_main(argc, argv, &config);
}
