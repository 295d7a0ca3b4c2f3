/* resolve.c - finds the program execvp() would run, before any fork (see resolve.h).
 *
 * Always holds: nothing here allocates, so launch.c may call it with everything prepared
 * before fork().
 */
#include "base/resolve.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* envp's PATH, else the runner's (resolve.h). */
const char *hb_env_path(char *const *envp)
{
    for (; envp && *envp; envp++)
        if (strncmp(*envp, "PATH=", 5) == 0)
            return *envp + 5;
    return getenv("PATH");
}

/* execvp()'s lookup of name in path_var, done before fork (resolve.h). */
int hb_resolve_program(const char *name, const char *path_var, char *out, size_t out_len)
{
    if (strchr(name, '/')) {
        if ((size_t)snprintf(out, out_len, "%s", name) >= out_len)
            return errno = ENAMETOOLONG, -1;
        return 0;
    }
    int err = ENOENT;
    if (!path_var || !*path_var)
        path_var = "/usr/local/bin:/usr/bin:/bin";
    for (const char *p = path_var; *name; p++) {
        size_t len = strcspn(p, ":");
        struct stat st;
        if ((size_t)snprintf(out, out_len, "%.*s/%s", (int)(len ? len : 1), len ? p : ".", name) < out_len &&
            stat(out, &st) == 0 && S_ISREG(st.st_mode)) {
            if (access(out, X_OK) == 0)
                return 0;
            err = EACCES;
        }
        p += len;
        if (!*p)
            break;
    }
    return errno = err, -1;
}
