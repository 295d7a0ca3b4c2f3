/* test_program.c - unit tests of program definitions (runner/plan/program.c): parse errors, and which
 * `requires` entries count as installed (bare names on PATH; paths only when executable files).
 * Always holds: the files and PATH used are made here, so every expectation follows from them.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "plan/program.h"
#include "tcheck.h"

/* Parses a definition whose only other line is "requires = <req>"; returns its missing entry
 * ("" when none, "parse error" when the text did not parse), as a new string. */
static char *missing_of(const char *req)
{
    struct hb_program p;
    char err[256];
    char *text = hb_xasprintf("requires = %s\ncommand = true\n", req);
    char *out = hb_program_parse(&p, "t", text, err, sizeof err) != 0 ? hb_xstrdup("parse error")
                                                                    : hb_xstrdup(p.missing ? p.missing : "");
    hb_program_free(&p);
    free(text);
    return out;
}

/* 1 when missing_of(req) equals want. */
static int missing_is(const char *req, const char *want)
{
    char *got = missing_of(req);
    int ok = strcmp(got, want) == 0;
    if (!ok)
        printf("# requires = %s: missing '%s', want '%s'\n", req, got, want);
    free(got);
    return ok;
}

/* Runs every check above; the exit status says whether one failed. */
int main(void)
{
    char dir[] = "/tmp/hb-test-program.XXXXXX";
    if (!mkdtemp(dir))
        return 2;
    char *tool = hb_xasprintf("%s/hbtool", dir), *plain = hb_xasprintf("%s/hbplain", dir);
    close(open(tool, O_WRONLY | O_CREAT, 0755));
    close(open(plain, O_WRONLY | O_CREAT, 0644));
    chmod(tool, 0755);
    chmod(plain, 0644);
    setenv("PATH", dir, 1);

    TCHECK("a bare name found on PATH is installed", missing_is("hbtool", ""));
    TCHECK("a bare name not on PATH is missing", missing_is("hbtool hb-no-such-tool", "hb-no-such-tool"));
    TCHECK("a bare name on PATH without x bit is missing", missing_is("hbplain", "hbplain"));
    TCHECK("an absolute path to an executable file is installed", missing_is(tool, ""));
    char *both = hb_xasprintf("%s %s", tool, plain);
    TCHECK("an absolute path to a file without x bit is missing (access X_OK)", missing_is(both, plain));
    char *ghost = hb_xasprintf("%s/no-such-bin", dir);
    TCHECK("an absolute path that does not exist is missing", missing_is(ghost, ghost));
    TCHECK("an absolute path to a directory is missing", missing_is(dir, dir));
    TCHECK("the first missing entry is reported", missing_is("/no/such/a /no/such/b", "/no/such/a"));

    struct hb_program p;
    char err[256] = "";
    TCHECK("no command line: parse error", hb_program_parse(&p, "t", "requires = sh\n", err, sizeof err) == -1 &&
                                               strstr(err, "no 'command"));
    hb_program_free(&p);
    TCHECK("unknown key: parse error naming the line",
           hb_program_parse(&p, "t", "command = x\nbogus = 1\n", err, sizeof err) == -1 && strstr(err, "line 2"));
    hb_program_free(&p);
    struct hb_strv many = {0};
    for (int i = 0; i <= HB_PROGRAM_REQUIRES_MAX; i++)
        hb_strv_push(&many, "sh");
    char *reqs = hb_strv_join(&many, " "), *text = hb_xasprintf("command = x\nrequires = %s\n", reqs);
    TCHECK("more than HB_PROGRAM_REQUIRES_MAX requirements: parse error naming the line",
           hb_program_parse(&p, "t", text, err, sizeof err) == -1 && strstr(err, "line 2") && strstr(err, "required"));
    hb_program_free(&p);
    free(text), free(reqs), hb_strv_free(&many);

    unlink(tool), unlink(plain), rmdir(dir);
    free(tool), free(plain), free(both), free(ghost);
    return tcheck_summary();
}
