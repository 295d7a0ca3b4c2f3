/* meta.c - writes meta.json (see meta.h and docs/DATA.md).
 *
 * Always holds: every allocator of the matrix is listed with its status, even when missing;
 * every perf counter is listed as "ok" or with the reason it is unavailable.
 */
#include "cli/meta.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "write/json.h"
#include "measure/perf.h"
#include "base/priority.h"
#include "base/sysinfo.h"
#include "trace.h"
#include "base/version.h"
#include "wl_clock.h"
#include "wl_latmode.h"

/* Writes "key": "value", (value NULL -> null). */
static void hb_meta_kv(FILE *f, const char *key, const char *value)
{
    fprintf(f, "  ");
    hb_json_str(f, key);
    fprintf(f, ": ");
    hb_json_str(f, value);
    fprintf(f, ",\n");
}

/* Writes "key": ["a", "b"], */
static void hb_meta_list(FILE *f, const char *key, const struct hb_strv *sv)
{
    fprintf(f, "  \"%s\": [", key);
    for (size_t i = 0; i < sv->n; i++) {
        fprintf(f, i ? ", " : "");
        hb_json_str(f, sv->v[i]);
    }
    fprintf(f, "],\n");
}

/* Writes a fact from sysinfo and frees it. */
static void hb_meta_fact(FILE *f, const char *key, char *value)
{
    hb_meta_kv(f, key, value);
    free(value);
}

/* The argv as a shell line: words with characters outside [A-Za-z0-9_./:=,+-] single-quoted. */
static char *hb_meta_shell_line(const struct hb_strv *argv)
{
    static const char safe[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_./:=,+-";
    char *line = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&line, &len);
    if (!f)
        return hb_xstrdup("heapbench");
    fputs("heapbench", f);
    for (size_t i = 0; i < argv->n; i++) {
        const char *w = argv->v[i];
        if (*w && strspn(w, safe) == strlen(w)) {
            fprintf(f, " %s", w);
            continue;
        }
        fputs(" '", f);
        for (const char *p = w; *p; p++) {
            if (*p == '\'')
                fputs("'\\''", f); /* close, escaped quote, reopen */
            else
                fputc(*p, f);
        }
        fputc('\'', f);
    }
    fclose(f);
    return line;
}

/* The "allocators" object. */
static void hb_meta_allocators(FILE *f, const struct hb_matrix *m)
{
    fprintf(f, "  \"allocators\": {");
    for (size_t i = 0; i < m->nalloc; i++) {
        struct hb_alloc *a = m->alloc[i];
        hb_registry_identify(a);
        fprintf(f, "%s\n    ", i ? "," : "");
        hb_json_str(f, a->name);
        fprintf(f, ": {\"status\": \"%s\", \"path\": ", a->found ? "found" : "missing");
        hb_json_str(f, a->system ? hb_registry_expected(a) : a->found ? a->lib : a->candidates);
        fprintf(f, ", \"preloaded\": %s, \"version\": ", a->system ? "false" : "true");
        hb_json_str(f, a->version);
        fprintf(f, ", \"sha256\": ");
        hb_json_str(f, a->sha256);
        fprintf(f, ", \"package\": ");
        hb_json_str(f, a->package);
        fprintf(f, ", \"tunables\": ");
        hb_json_str(f, a->tunables);
        fprintf(f, "}");
    }
    fprintf(f, "\n  },\n");
}

/* The "latency" object: the workloads' sampling mode and the clock's cost and step, measured here at start-up
 * with the workloads' own clock code (wl_clock.c); the per-process cost is in latency.csv (clock_ns). */
static void hb_meta_latency(FILE *f, const struct hb_options *o)
{
    fprintf(f, "  \"latency\": {\"mode\": ");
    hb_json_str(f, o->latency);
    int mode = wl_lat_mode_parse(o->latency);
    if (mode != WL_LAT_OFF) {
        wl_clock_init();
        fprintf(f, ", \"every\": %d, \"clock\": ", mode == WL_LAT_ALL ? 1 : WL_LAT_EVERY_DEFAULT);
        hb_json_str(f, wl_clock_info.source);
        fprintf(f, ", \"clock_cost_ns\": %.1f, \"clock_mhz\": %.3f, \"clock_step_ns\": %.3f", wl_clock_info.cost_ns,
                wl_clock_info.mhz, wl_clock_info.step_ns);
    }
    fprintf(f, "},\n");
}

/* The "counters" and "metrics" objects. */
/* The "traces" object: per trace:FILE workload, its file and the recorder's slowdown that heapbench
 * record measured (CPU time recorded over plain; null when not measured or the header is unreadable). */
static void hb_meta_traces(FILE *f, const struct hb_matrix *m)
{
    fprintf(f, "  \"traces\": {");
    int first = 1;
    for (size_t g = 0; g < m->ng; g++) {
        const struct hb_workload *w = m->g[g].wl;
        if (strncmp(w->name, "trace:", 6) != 0 || w->args.n == 0 || (g > 0 && m->g[g - 1].wl == w))
            continue;
        const char *file = strncmp(w->args.v[0], "--trace=", 8) == 0 ? w->args.v[0] + 8 : w->args.v[0];
        struct hbt_header h;
        char err[256];
        double slow = hbt_header_read(file, &h, err, sizeof err) == 0 ? hbt_recorder_slowdown(&h) : 0.0;
        fprintf(f, "%s\n    ", first ? "" : ",");
        hb_json_str(f, w->name);
        fprintf(f, ": {\"file\": ");
        hb_json_str(f, file);
        if (slow > 0)
            fprintf(f, ", \"recorder_cpu_slowdown\": %.4f, \"plain_cpu_s\": %.6f, \"recorded_cpu_s\": %.6f}", slow,
                    (double)h.orig_cpu_ns / 1e9, (double)h.rec_cpu_ns / 1e9);
        else
            fprintf(f, ", \"recorder_cpu_slowdown\": null}");
        first = 0;
    }
    fprintf(f, "%s},\n", first ? "" : "\n  ");
}

static void hb_meta_counters(FILE *f, const struct hb_meta *meta)
{
    fprintf(f, "  \"counters\": {");
    for (int c = 0; c < HB_CTR_COUNT; c++) {
        fprintf(f, "%s\n    \"%s\": ", c ? "," : "", hb_counter_names[c]);
        hb_json_str(f, hb_counter_reason[c] ? hb_counter_reason[c] : "ok");
    }
    fprintf(f, "\n  },\n  \"metrics\": {");
    for (size_t i = 0; i < meta->nmetrics; i++) {
        fprintf(f, "%s", i ? ", " : "");
        hb_json_str(f, meta->metrics[i].name);
        fprintf(f, ": \"%s\"", meta->metrics[i].higher ? "higher" : "lower");
    }
    fprintf(f, "},\n");
}

/* mem_limit_how (which mechanism holds --mem-limit), containment (how no measured process
 * outlives its run or the runner) and cgroup (the run's cgroup directory, null when none). */
static void hb_meta_limits(FILE *f, const struct hb_options *o, const struct hb_runcg *cg)
{
    int limited = cg && cg->limited;
    const char *src = o->mem_limit_set ? "--mem-limit" : "default: 3/4 of physical memory";
    char *how = !o->mem_limit ? hb_xstrdup("none (--mem-limit none)")
                : limited     ? hb_xasprintf("%s (%s)", cg->how, src)
                              : hb_xasprintf("RLIMIT_DATA of each measured process (%s)", src);
    hb_meta_kv(f, "mem_limit_how", how);
    hb_meta_kv(f, "containment", cg ? cg->how : "process groups, PR_SET_PDEATHSIG and the subreaper");
    hb_meta_kv(f, "cgroup", cg && cg->version ? cg->dir : NULL);
    free(how);
}

/* A number of the machine object, or null when unavailable. */
static void hb_meta_num(FILE *f, const char *key, int ok, double v)
{
    if (ok)
        fprintf(f, "\"%s\": %.6g", key, v);
    else
        fprintf(f, "\"%s\": null", key);
}

/* "machine": the load averages, other runnable tasks and CPU frequency at the start (and at the
 * end), steal and iowait over the whole run once it has ended (machstate.h). */
static void hb_meta_machine(FILE *f, const struct hb_meta *meta)
{
    const struct hb_mach_snap *a = &meta->mach0;
    struct hb_mach_snap b;
    struct hb_mach_state st;
    if (meta->end)
        hb_mach_snap(&b, 1);
    hb_mach_between(a, meta->end ? &b : a, &st);
    fprintf(f, "  \"machine\": {\"load_start\": ");
    if (a->load_ok)
        fprintf(f, "[%.2f, %.2f, %.2f]", a->load[0], a->load[1], a->load[2]);
    else
        fprintf(f, "null");
    fprintf(f, ", \"load_end\": ");
    if (meta->end && b.load_ok)
        fprintf(f, "[%.2f, %.2f, %.2f]", b.load[0], b.load[1], b.load[2]);
    else
        fprintf(f, "null");
    fprintf(f, ", ");
    hb_meta_num(f, "others_runnable_start", a->procs_running > 0, (double)(a->procs_running - 1));
    fprintf(f, ", ");
    hb_meta_num(f, "steal_pct", meta->end && st.steal_ok, st.steal_pct);
    fprintf(f, ", ");
    hb_meta_num(f, "iowait_pct", meta->end && st.iowait_ok, st.iowait_pct);
    fprintf(f, ", ");
    hb_meta_num(f, "cpu_mhz", a->mhz_ok, a->mhz);
    fprintf(f, ", \"cpu_mhz_source\": ");
    hb_json_str(f, a->mhz_source);
    fprintf(f, "},\n");
}

/* "own_allocator": {workload: the allocators of its own found in its runs ('+'-separated)}, the
 * workloads with none left out (an empty object when no run found one). */
static void hb_meta_own(FILE *f, const struct hb_matrix *m)
{
    fprintf(f, "  \"own_allocator\": {");
    const char *sep = "";
    for (size_t g = 0; g < m->ng; g++) {
        const struct hb_workload *w = m->g[g].wl;
        int first = 1;
        for (size_t k = 0; k < g && first; k++)
            first = m->g[k].wl != w;
        if (!first || !w->own_allocator[0])
            continue;
        fprintf(f, "%s", sep);
        hb_json_str(f, w->name);
        fprintf(f, ": ");
        hb_json_str(f, w->own_allocator);
        sep = ", ";
    }
    fprintf(f, "},\n");
}

/* Builds the document in memory and replaces meta.json with it. */
int hb_meta_write(const struct hb_results *r, const struct hb_meta *meta)
{
    const struct hb_options *o = meta->opts;
    const struct hb_matrix *m = meta->matrix;
    char *doc = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&doc, &len);
    if (!f)
        return -1;
    fprintf(f, "{\n  \"schema\": 1,\n");
    hb_meta_kv(f, "run_id", r->run_id);
    hb_meta_kv(f, "host", r->host);
    hb_meta_fact(f, "cpu_model", hb_sys_cpu_model());
    fprintf(f, "  \"cores\": %d,\n", hb_sys_cores());
    hb_meta_fact(f, "kernel", hb_sys_kernel());
    hb_meta_fact(f, "thp", hb_sys_thp());
    hb_meta_fact(f, "glibc_version", hb_sys_glibc());
    fprintf(f, "  \"mem_total_kb\": %lld,\n", hb_sys_mem_kb());
    hb_meta_fact(f, "virtualization", hb_sys_virt());
    hb_meta_kv(f, "heapbench_version", hb_version());
    hb_meta_kv(f, "git_commit", hb_commit());
    hb_meta_kv(f, "tested_commit", o->tested_commit);
    hb_meta_fact(f, "command_line", hb_meta_shell_line(&o->argv));
    hb_meta_list(f, "argv", &o->argv);
    hb_meta_kv(f, "start", meta->start);
    hb_meta_kv(f, "end", meta->end);
    fprintf(f, "  \"complete\": %s,\n  \"interrupted\": %s,\n  \"quick\": %s,\n",
            meta->complete ? "true" : "false", meta->interrupted ? "true" : "false", o->quick ? "true" : "false");
    fprintf(f, "  \"reps\": %d,\n  \"warmup\": %d,\n  \"timeout_s\": %g,\n  \"interval_ms\": %d,\n",
            m->reps, m->warmup, o->timeout_s, o->interval_ms);
    fprintf(f, "  \"order\": \"interleaved\",\n  \"shard\": \"%d/%d\",\n", m->shard_i, m->shard_n);
    hb_meta_kv(f, "shard_source", o->shard_source);
    size_t shard_groups = 0;
    for (size_t g = 0; g < m->ng; g++)
        shard_groups += hb_matrix_in_shard(m, g);
    fprintf(f, "  \"shard_cells\": %zu,\n", shard_groups * m->nalloc);
    hb_meta_kv(f, "pin", o->have_pin ? o->pin_text : NULL);
    hb_meta_kv(f, "priority", hb_prio_name(o->priority));
    fprintf(f, "  \"mem_limit_bytes\": %llu,\n", o->mem_limit);
    hb_meta_limits(f, o, meta->cgroup);
    hb_meta_list(f, "workloads", &m->workloads);
    hb_meta_list(f, "envs", &m->envs);
    fprintf(f, "  \"cells\": %zu,\n  \"hyperfine\": %s,\n", m->ng * m->nalloc, o->hyperfine ? "true" : "false");
    hb_meta_allocators(f, m);
    hb_meta_own(f, m);
    hb_meta_traces(f, m);
    hb_inputs_write(f, meta->inputs);
    hb_meta_latency(f, o);
    hb_meta_counters(f, meta);
    hb_meta_kv(f, "instrumented", o->count == HB_COUNT_ALLOC     ? "valgrind callgrind (--count-alloc-instructions)"
                                  : o->count == HB_COUNT_PROGRAM ? "valgrind cachegrind (--count-instructions)"
                                                                 : NULL);
    hb_meta_machine(f, meta);
    fprintf(f, "  \"subcommand\": \"%s\"\n}\n", o->cmd == HB_CMD_EXEC ? "exec" : "run");
    if (fclose(f) != 0) {
        free(doc);
        return -1;
    }
    char *path = hb_results_path(r, "meta.json");
    int rc = hb_write_file_atomic(path, doc, len);
    free(path);
    free(doc);
    return rc;
}
