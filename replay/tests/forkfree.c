/* forkfree.c - a program for the post-pass's tests: a fork child that frees what its parent
 * allocated. Allocates 200 blocks (and 2 more from a second thread that has ended), forks; the child
 * frees 100 of them and the 2, allocates 10, and exits; the parent waits and frees the rest.
 * Always holds: prints "expect child_frees=102 child_mallocs=10 inherited=202" (blocks of its own);
 * exits 0 only when the child did. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

static void *side[2];
void *kept[10]; /* the child's own blocks, left live */

static void *second(void *arg)
{
    (void)arg;
    side[0] = malloc(24);
    side[1] = malloc(5000);
    return NULL;
}

int main(void)
{
    static void *p[200];
    pthread_t th;
    for (int i = 0; i < 200; i++)
        p[i] = malloc((size_t)(16 + 8 * i));
    if (pthread_create(&th, NULL, second, NULL) != 0 || pthread_join(th, NULL) != 0)
        return 1;
    printf("expect child_frees=102 child_mallocs=10 inherited=202\n");
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        for (int i = 0; i < 200; i += 2)
            free(p[i]);
        free(side[0]);
        free(side[1]);
        for (int i = 0; i < 10; i++)
            kept[i] = malloc(100);
        exit(0); /* a normal exit: the recorder writes the child's trace */
    }
    int st;
    if (pid < 0 || waitpid(pid, &st, 0) != pid)
        return 1;
    for (int i = 1; i < 200; i += 2)
        free(p[i]);
    return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : 1;
}
