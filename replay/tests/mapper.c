/* mapper.c - a program for the recorder's tests of the program's own mappings: anonymous private
 * mmaps and munmaps of its own (some from a second thread, unmapped by the main one), an mremap
 * of a whole mapping, a partial munmap, mappings that are not to be recorded (shared, read-only,
 * of a file) and big mallocs (which glibc serves with its own mmap, the allocator's, not the
 * program's).
 * usage: replay-mapper 1 (0: makes none of these calls, for the tests' baseline run; 2: the
 * same as 1, then forks a child that unmaps one of the mappings it inherited and exits; 3: only
 * 8 rounds of a 1 MiB malloc (glibc maps it, in a 2 MiB region new to the recorder's address map)
 * then a 1 MiB mapping of its own, printing one line "offsets A B ..." of the mappings' addresses
 * modulo 64 KiB: the recorder's own mappings must not change them, as pymalloc's pools depend on them).
 * Always holds: modes 0-2 print one line "expect mmap=N munmap=N mapped_bytes=B partial=N" with
 * the recordable calls they made and the bytes they leave mapped (requested lengths); writes
 * every page it maps, as a program would. */
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#define OWN 20
#define OTHER 5

static long n_mmap, n_munmap, mapped;
static void *theirs[OTHER];

static void *map(size_t n)
{
    void *p = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) {
        perror("replay-mapper: mmap");
        exit(1);
    }
    memset(p, 1, n);
    n_mmap++;
    mapped += (long)n;
    return p;
}

static void unmap(void *p, size_t n)
{
    munmap(p, n);
    n_munmap++;
    mapped -= (long)n;
}

static void *other_thread(void *arg)
{
    (void)arg;
    for (int i = 0; i < OTHER; i++)
        theirs[i] = map(3 * 4096);
    return NULL;
}

/* Calls that must leave no mapping event: a shared, a read-only and a file mapping, big mallocs. */
static void unrecorded(void)
{
    void *s = mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    void *r = mmap(NULL, 8192, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    int fd = open("/proc/self/exe", O_RDONLY);
    void *f = fd >= 0 ? mmap(NULL, 4096, PROT_READ, MAP_PRIVATE, fd, 0) : MAP_FAILED;
    munmap(s, 8192), munmap(r, 8192);
    if (f != MAP_FAILED)
        munmap(f, 4096);
    if (fd >= 0)
        close(fd);
    for (int i = 0; i < 8; i++) {
        char *big = malloc(1 << 20);
        if (big)
            big[0] = 1;
        free(big);
    }
}

/* Mode 3: where its own mappings land, each made just after a block the recorder has to map a
 * new leaf of its address map for. */
static int offsets(void)
{
    printf("offsets");
    for (int i = 0; i < 8; i++) {
        char *block = malloc(1 << 20);
        char *own = map(1 << 20);
        if (!block)
            return 1;
        block[0] = 1;
        printf(" %lu", (unsigned long)((uintptr_t)own % 65536));
    }
    printf("\n");
    return 0;
}

int main(int argc, char **argv)
{
    if (argc >= 2 && atoi(argv[1]) == 3)
        return offsets();
    if (argc < 2 || atoi(argv[1]) == 0) {
        printf("expect mmap=0 munmap=0 mapped_bytes=0 partial=0\n");
        return 0;
    }
    void *own[OWN];
    for (int i = 0; i < OWN; i++) /* 4096 .. 81920 bytes, one of them not a page multiple */
        own[i] = map(i == 7 ? 10000 : (size_t)(i + 1) * 4096);
    for (int i = 0; i < OWN; i += 2)
        unmap(own[i], i == 7 ? 10000 : (size_t)(i + 1) * 4096);
    pthread_t t;
    if (pthread_create(&t, NULL, other_thread, NULL) != 0 || pthread_join(t, NULL) != 0)
        return 1;
    for (int i = 0; i < OTHER; i++) /* cross-thread: made by the other thread */
        unmap(theirs[i], 3 * 4096);
    char *g = map(8192); /* an mremap of a whole mapping: recorded as its munmap and an mmap */
    char *g2 = mremap(g, 8192, 65536, MREMAP_MAYMOVE);
    if (g2 == MAP_FAILED)
        return 1;
    memset(g2, 2, 65536);
    n_munmap++, n_mmap++, mapped += 65536 - 8192;
    char *pm = map(3 * 4096); /* a partial unmap (not recorded), then the rest: one whole munmap */
    munmap(pm + 4096, 4096);
    munmap(pm, 3 * 4096);
    n_munmap++, mapped -= 3 * 4096;
    unrecorded();
    printf("expect mmap=%ld munmap=%ld mapped_bytes=%ld partial=1\n", n_mmap, n_munmap, mapped);
    fflush(stdout);
    if (atoi(argv[1]) == 2) { /* the child holds the 11 mappings left (own[1], own[3] ... and g2) */
        pid_t pid = fork();
        if (pid == 0) {
            munmap(own[1], 2 * 4096);
            exit(0);
        }
        int st;
        if (pid < 0 || waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st) != 0)
            return 1;
    }
    return 0;
}
