/* sysinfo.h - facts about the machine and the project for meta.json, and running a helper command.
 *
 * Always holds: every function returns a new string (never NULL; "unknown" when a fact
 * cannot be read), so callers can store it without checks.
 */
#ifndef HEAPBENCH_SYSINFO_H
#define HEAPBENCH_SYSINFO_H

/* First line of the stdout of argv (run without a shell, stderr discarded), or "" when it
 * fails or prints nothing. */
char *hb_capture(char *const argv[]);
/* All of the stdout of argv (same rules as hb_capture). */
char *hb_capture_all(char *const argv[]);
/* The sha256 of the file at path as 64 hex digits (coreutils' sha256sum), "" when it cannot be read. */
char *hb_sha256_file(const char *path);

char *hb_sys_host(void);        /* gethostname */
char *hb_sys_cpu_model(void);   /* /proc/cpuinfo "model name" */
int hb_sys_cores(void);         /* online CPUs */
char *hb_sys_kernel(void);      /* uname release */
char *hb_sys_thp(void);         /* the [selected] word of transparent_hugepage/enabled */
char *hb_sys_glibc(void);       /* gnu_get_libc_version() */
long long hb_sys_mem_kb(void);  /* physical memory in KiB (0 when unknown) */
char *hb_sys_virt(void);        /* "vm" when /proc/cpuinfo has the hypervisor flag, else "none" */
char *hb_sys_libc_path(void);   /* realpath of the libc.so.6 this runner uses */
char *hb_sys_now_iso(void);     /* current local time, ISO-8601 with offset */

#endif
