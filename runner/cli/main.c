/* main.c - build/heapbench: dispatches the subcommands (run, exec, list, check, doctor, record, trace in C; report, compare,
 * ci, merge, tune, history, advise, explain, bisect in Python under /usr/bin/python3, through python.c's table).
 *
 * Always holds: an unknown subcommand or a missing one exits 2 with one line; the Python
 * subcommands get HEAPBENCH_ROOT, HEAPBENCH_BIN and PYTHONPATH in their environment (python.h);
 * output that could not be written (a full disk, /dev/full) is one line and exit 2, never a silent 0
 * (a closed pipe ends quietly).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/check.h"
#include "cli/doctor.h"
#include "cli/list.h"
#include "plan/options.h"
#include "cli/python.h"
#include "measure/runcg.h"
#include "cli/runcmd.h"
#include "cli/tracecmd.h"
#include "base/util.h"
#include "base/version.h"


/* Dispatches argv[1]; returns its exit status. */
static int dispatch(int argc, char **argv)
{
    if (argc < 2)
        hb_usage("no command given; try heapbench run --quick, or heapbench --help");
    const char *cmd = argv[1];
    if (strcmp(cmd, "--version") == 0 || strcmp(cmd, "-V") == 0) {
        printf("heapbench %s (commit %s)\n", hb_version(), hb_commit());
        return 0;
    }
    if (strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0 || strcmp(cmd, "help") == 0) {
        hb_options_usage(HB_CMD_NONE, stdout);
        return 0;
    }
    if (strcmp(cmd, "cgroup-guard") == 0) /* started by the runner itself (runcg.h), not in --help */
        return hb_runcg_guard_main(argc > 2 ? argv[2] : NULL);
    if (strcmp(cmd, "run") == 0)
        return hb_cmd_run(HB_CMD_RUN, argc - 1, argv + 1);
    if (strcmp(cmd, "exec") == 0)
        return hb_cmd_run(HB_CMD_EXEC, argc - 1, argv + 1);
    if (strcmp(cmd, "list") == 0)
        return hb_cmd_list(argc - 1, argv + 1);
    if (strcmp(cmd, "record") == 0)
        return hb_cmd_record(argc - 1, argv + 1);
    if (strcmp(cmd, "trace") == 0)
        return hb_cmd_trace(argc - 1, argv + 1);
    if (strcmp(cmd, "check") == 0)
        return hb_cmd_check(argc - 1, argv + 1);
    if (strcmp(cmd, "doctor") == 0)
        return hb_cmd_doctor(argc - 1, argv + 1);
    if (hb_python_is_subcommand(cmd))
        hb_python_exec(argc - 1, argv + 1);
    hb_usage("unknown command '%s'; valid: run, exec, list, check, doctor, record, trace, report, compare, ci, merge, tune, history, advise, explain, bisect (see heapbench --help)",
             cmd);
}

/* rc, or 2 with one line when what the command printed could not all be written. */
static int stdout_written(const char *cmd, int rc)
{
    if (fflush(stdout) == 0 && !ferror(stdout))
        return rc;
    if (errno == EPIPE) /* a reader that stopped early (| head) */
        return rc;
    fprintf(stderr, "heapbench %s: cannot write its output: %s (a full disk?); give it a writable place\n", cmd,
            strerror(errno));
    return 2;
}

int main(int argc, char **argv)
{
    int rc = dispatch(argc, argv);
    return stdout_written(argv[1], rc);
}
