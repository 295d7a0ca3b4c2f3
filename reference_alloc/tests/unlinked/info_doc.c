/* info_doc.c - prints malloc_info's document for a process with a second thread's arena, for
 * tests/run to compare the element structure under glibc and under refmalloc (LD_PRELOAD).
 * Built at test time without refmalloc, so that the same binary runs on either allocator.
 *
 * Always holds: the main arena and the thread's arena each hold, when malloc_info runs, free
 * chunks in a fastbin (freed past a full tcache bin) and in the unsorted bin (a freed chunk too
 * large for the tcache, kept from the top by an allocated guard); stdout's buffer is static, so
 * printing allocates nothing that would change the heap being described.
 */
#include <malloc.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

enum { ID_SMALL = 10, ID_SMALL_SIZE = 40, ID_LARGE_SIZE = 2000 };

static char id_stdout_buf[1 << 16];
static void *id_keep[2][ID_SMALL + 1];

/* Leaves free chunks in a fastbin and in the unsorted bin of the calling thread's arena. */
static void id_fill(void **keep)
{
    void *small[ID_SMALL];
    for (int i = 0; i < ID_SMALL; i++)
        small[i] = malloc(ID_SMALL_SIZE);
    void *large = malloc(ID_LARGE_SIZE);
    for (int i = 0; i < ID_SMALL; i++)
        keep[i] = malloc(ID_SMALL_SIZE);  /* guards: nothing freed touches the top */
    keep[ID_SMALL] = malloc(ID_SMALL_SIZE);
    for (int i = 0; i < ID_SMALL; i++)
        free(small[i]);
    free(large);
}

/* Fills its own arena and prints the document while it still holds that arena. */
static void *id_thread(void *arg)
{
    (void)arg;
    id_fill(id_keep[1]);
    return (void *)(long)malloc_info(0, stdout);
}

int main(void)
{
    setvbuf(stdout, id_stdout_buf, _IOFBF, sizeof id_stdout_buf);
    id_fill(id_keep[0]);
    pthread_t t;
    void *rc;
    if (pthread_create(&t, NULL, id_thread, NULL) != 0 || pthread_join(t, &rc) != 0) {
        fprintf(stderr, "info_doc: cannot run the second thread\n");
        return 1;
    }
    if (rc != NULL) {
        fprintf(stderr, "info_doc: malloc_info failed\n");
        return 1;
    }
    return fflush(stdout) == 0 ? 0 : 1;
}
