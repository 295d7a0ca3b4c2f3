/* driver.c - runs one glibc test the way glibc's test driver does: the test function in a
 * forked child (its own process group, no core dumps), a timeout in the parent, and glibc's
 * exit-status rules.
 *
 * Always holds: exit 0 = passed, 1 = failed (a failure recorded anywhere, a wrong status or
 * signal, or the timeout), 77 = unsupported. The timeout is TIMEOUT (default 20 s) times the
 * TIMEOUTFACTOR environment variable; on expiry the child's whole process group is killed.
 * With --direct the test function runs in this process (for debugging).
 */
#include "shim.h"

static pid_t hb_child;
static void (*hb_cleanup)(void);

/* SIGALRM in the parent: the test took too long. */
static void hb_timeout(int sig)
{
    (void)sig;
    if (hb_cleanup)
        hb_cleanup();
    kill(-hb_child, SIGKILL);
    kill(hb_child, SIGKILL);
    write_message("Timed out: killed the child process\n");
    _exit(1);
}

/* Runs the test function itself; returns its result. */
static int hb_run(int argc, char **argv, const struct hb_test_config *config)
{
    if (config->test_function_argv)
        return config->test_function_argv(argc, argv);
    return config->test_function();
}

/* The timeout in seconds, scaled by TIMEOUTFACTOR. */
static unsigned hb_timeout_seconds(const struct hb_test_config *config)
{
    unsigned t = config->timeout > 0 ? (unsigned)config->timeout : DEFAULT_TIMEOUT;
    const char *f = getenv("TIMEOUTFACTOR");
    if (f && atoi(f) > 0)
        t *= (unsigned)atoi(f);
    return t;
}

/* The test's exit status from how the child ended (glibc's rules). */
static int hb_verdict(int status, const struct hb_test_config *config)
{
    if (config->expected_signal) {
        if (WIFSIGNALED(status) && WTERMSIG(status) == config->expected_signal)
            return support_report_failure(0);
        printf("Expected signal '%s' from child, got %s\n", strsignal(config->expected_signal),
               WIFSIGNALED(status) ? strsignal(WTERMSIG(status)) : "a normal exit");
        return 1;
    }
    if (WIFSIGNALED(status)) {
        printf("Didn't expect signal from child: got `%s'\n", strsignal(WTERMSIG(status)));
        return 1;
    }
    int code = WEXITSTATUS(status);
    if (code == EXIT_UNSUPPORTED)
        return EXIT_UNSUPPORTED;
    if (config->expected_status && code == config->expected_status)
        return support_report_failure(0);
    if (config->expected_status && code != config->expected_status) {
        printf("Expected status %d from child, got %d\n", config->expected_status, code);
        return 1;
    }
    return support_report_failure(code);
}

int hb_test_main(int argc, char **argv, const struct hb_test_config *config)
{
    setvbuf(stdout, NULL, _IONBF, 0);
    if (config->prepare_function)
        config->prepare_function(argc, argv);
    if (argc > 1 && strcmp(argv[1], "--direct") == 0)
        return support_report_failure(hb_run(argc - 1, argv + 1, config));
    hb_cleanup = config->cleanup_function;
    hb_child = xfork();
    if (hb_child == 0) {
        struct rlimit no_core = {0, 0};
        setrlimit(RLIMIT_CORE, &no_core);
        setpgid(0, 0);
        exit(hb_run(argc, argv, config));
    }
    signal(SIGALRM, hb_timeout);
    alarm(hb_timeout_seconds(config));
    int status;
    xwaitpid(hb_child, &status, 0);
    alarm(0);
    return hb_verdict(status, config);
}
