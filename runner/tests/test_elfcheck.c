/* test_elfcheck.c - tests elfcheck.c: hb_preload_impossible() on dynamic, static, set-id, script
 * and foreign-class programs, and hb_is_shared_object() on libraries and non-libraries.
 * Always holds: the static program is really built here with `gcc -static` (SKIP line when gcc or
 * libc.a is missing); the set-id case really is a set-uid file owned by another user. */
#include <dlfcn.h>
#include <elf.h>
#include <sys/stat.h>

#include "tcheck.h"
#include "base/elfcheck.h"
#include "test_launch_util.h"

/* Writes text to path with the given mode; returns 0 or -1. */
static int te_write(const char *path, const void *text, size_t len, mode_t mode)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return -1;
    int ok = fwrite(text, 1, len, f) == len;
    ok &= fclose(f) == 0;
    return ok && chmod(path, mode) == 0 ? 0 : -1;
}

/* Builds a static "int main(){return 0;}" into dir/static; returns 0, or -1 (printing SKIP). */
static int te_build_static(const char *dir, char *out, size_t len)
{
    char src[256], cmd[700];
    snprintf(src, sizeof src, "%s/static.c", dir);
    snprintf(out, len, "%s/static", dir);
    if (te_write(src, "int main(void){return 0;}\n", 26, 0644) != 0)
        return -1;
    snprintf(cmd, sizeof cmd, "gcc -static -o %s %s 2>/dev/null", out, src);
    if (system(cmd) != 0) {
        printf("SKIP static binary checks: `gcc -static` failed (needs gcc and libc6-dev's libc.a)\n");
        return -1;
    }
    return 0;
}

/* Static binaries, and scripts whose interpreter is one, are flagged; dynamic ones are not. */
static void te_test_static(const char *dir)
{
    char why[256] = "", stat_bin[256], script[256], text[300];
    TCHECK("dynamic /bin/sh: preload possible", hb_preload_impossible("/bin/sh", why, sizeof why) == 0);
    TCHECK("name looked up in PATH: sh possible", hb_preload_impossible("sh", why, sizeof why) == 0);
    TCHECK("missing file: not called impossible", hb_preload_impossible("/nonexistent/x", why, sizeof why) == 0);
    if (te_build_static(dir, stat_bin, sizeof stat_bin) != 0)
        return;
    TCHECK("static binary: impossible", hb_preload_impossible(stat_bin, why, sizeof why) == 1);
    TCHECK("static binary: reason", !strcmp(why, "statically linked: LD_PRELOAD has no effect"));
    snprintf(script, sizeof script, "%s/script", dir);
    int n = snprintf(text, sizeof text, "#! %s -x\nexit 0\n", stat_bin);
    why[0] = '\0';
    TCHECK("script with a static interpreter: impossible",
           te_write(script, text, (size_t)n, 0755) == 0 && hb_preload_impossible(script, why, sizeof why) == 1 &&
               strstr(why, "statically linked"));
    TCHECK("static binary: not a shared object", hb_is_shared_object(stat_bin, why, sizeof why) == 0);
}

/* A set-uid program owned by another user (nobody) is flagged; needs root to chown. */
static void te_test_setuid(const char *dir)
{
    char why[256] = "", copy[256], cmd[300];
    snprintf(copy, sizeof copy, "%s/suid-true", dir);
    snprintf(cmd, sizeof cmd, "cp /bin/true %s", copy);
    if (system(cmd) != 0 || chown(copy, 65534, (gid_t)-1) != 0 || chmod(copy, 04755) != 0) {
        printf("SKIP setuid check: cannot make a set-uid file owned by uid 65534 (not root?)\n");
        return;
    }
    TCHECK("setuid binary: impossible", hb_preload_impossible(copy, why, sizeof why) == 1);
    TCHECK("setuid binary: reason", !strcmp(why, "setuid/setgid: the loader ignores LD_PRELOAD"));
}

/* A 64-byte ELF header of the other class: foreign, so neither preloadable nor a library. */
static void te_test_foreign_class(const char *dir)
{
    unsigned char eh[64] = {ELFMAG0, ELFMAG1, ELFMAG2, ELFMAG3, sizeof(void *) == 8 ? ELFCLASS32 : ELFCLASS64,
                            ELFDATA2LSB, EV_CURRENT};
    char path[256], why[256] = "";
    snprintf(path, sizeof path, "%s/foreign", dir);
    TCHECK("foreign class: written", te_write(path, eh, sizeof eh, 0755) == 0);
    TCHECK("foreign class: preload impossible", hb_preload_impossible(path, why, sizeof why) == 1 && strstr(why, "-bit ELF"));
    TCHECK("foreign class: not a shared object", hb_is_shared_object(path, why, sizeof why) == 0 && strstr(why, "-bit ELF"));
}

/* hb_is_shared_object accepts the real libc and refuses executables, text and missing files. */
static void te_test_shared_object(void)
{
    Dl_info info;
    char why[256] = "";
    int found = dladdr((void *)printf, &info) != 0 && info.dli_fname;
    TCHECK("libc (from dladdr) is a shared object", found && hb_is_shared_object(info.dli_fname, why, sizeof why) == 1);
    TCHECK("PIE executable /bin/sh is refused",
           hb_is_shared_object("/bin/sh", why, sizeof why) == 0 && strstr(why, "position-independent executable"));
    TCHECK("text file is refused", hb_is_shared_object("/etc/passwd", why, sizeof why) == 0 && !strcmp(why, "not an ELF file"));
    TCHECK("missing file is refused", hb_is_shared_object("/nonexistent/lib.so", why, sizeof why) == 0 &&
                                          !strcmp(why, "cannot open /nonexistent/lib.so: No such file or directory"));
}

/* Runs every elfcheck test in a temporary directory and prints the closing count. */
int main(void)
{
    const char *dir = tl_tmpdir();
    char cmd[128];
    TCHECK("temporary directory", dir[0] != '\0');
    te_test_static(dir);
    te_test_setuid(dir);
    te_test_foreign_class(dir);
    te_test_shared_object();
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    if (system(cmd) != 0)
        printf("note: could not remove %s\n", dir);
    return tcheck_summary();
}
