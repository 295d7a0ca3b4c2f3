/* forkexec.c - a program for the recorder's tests: allocates, forks, and the child execs this
 * same program with the argument "child", which allocates and frees 1000 blocks.
 * Always holds: the parent waits for the child and exits 0 only when the child did. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* 1000 blocks made and freed; returns 0. */
static int churn(void)
{
    static void *p[1000];
    for (int i = 0; i < 1000; i++)
        p[i] = malloc((size_t)(8 + i));
    for (int i = 0; i < 1000; i++)
        free(p[i]);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "child") == 0)
        return churn();
    churn();
    pid_t pid = fork();
    if (pid == 0) {
        execl("/proc/self/exe", argv[0], "child", (char *)NULL);
        _exit(127);
    }
    int st;
    if (pid < 0 || waitpid(pid, &st, 0) != pid)
        return 1;
    return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : 1;
}
