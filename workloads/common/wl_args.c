/* wl_args.c - parses a workload's --key=value command line (see wl_args.h).
 * Always holds: after wl_args_parse() returns, every parameter has a valid value (integer in
 * range, word among its choices); anything else has already exited 2 with one line on stderr. */
#include "wl_args.h"
#include "wl_latency.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int wl_quick;
unsigned long long wl_seed = 1;
static struct wl_prog *wl_the_prog;

/* Prints one usage-error line, "<prog>: <what> '<arg>'; run <prog> --help ...", and exits 2. */
static void wl_usage_error(const char *what, const char *arg)
{
    fprintf(stderr, "%s: %s '%s'; run %s --help for the parameters\n", wl_the_prog->name, what, arg,
            wl_the_prog->name);
    exit(2);
}

/* The usage error for a bad value arg of parameter p: names the allowed words, or the integer range
 * after range_words (e.g. "--ops needs an integer in [1, 10], got '0'"). */
static void wl_param_error(const struct wl_param *p, const char *range_words, const char *arg)
{
    char what[160];
    if (p->choices)
        snprintf(what, sizeof what, "--%s must be one of %s, got", p->name, p->choices);
    else
        snprintf(what, sizeof what, "--%s %s [%lld, %lld], got", p->name, range_words, p->min, p->max);
    wl_usage_error(what, arg);
}

/* 1 when word is one of the '|'-separated choices. */
static int wl_is_choice(const char *choices, const char *word)
{
    size_t len = strlen(word);
    for (const char *c = choices; c && *c;) {
        const char *bar = strchr(c, '|');
        size_t clen = bar ? (size_t)(bar - c) : strlen(c);
        if (clen == len && strncmp(c, word, len) == 0)
            return 1;
        c = bar ? bar + 1 : NULL;
    }
    return 0;
}

/* Sets p from text or exits 2 (not a number, out of range, not a listed choice). */
static void wl_set(struct wl_param *p, const char *text)
{
    if (p->choices) {
        if (!wl_is_choice(p->choices, text))
            wl_param_error(p, NULL, text);
        p->word = text;
        return;
    }
    char *end = NULL;
    errno = 0;
    long long v = strtoll(text, &end, 10);
    if (errno || end == text || *end != '\0' || v < p->min || v > p->max)
        wl_param_error(p, "needs an integer in", text);
    p->num = v;
}

/* Sets the latency sampler from --latency/--latency-every, else HEAPBENCH_LATENCY and
 * HEAPBENCH_LATENCY_EVERY, else off and the default period; a bad value is a usage error. */
static void wl_latency_args(const char *mode, const char *every)
{
    const char *m = mode ? mode : getenv("HEAPBENCH_LATENCY");
    const char *e = every ? every : getenv("HEAPBENCH_LATENCY_EVERY");
    long long n = WL_LAT_EVERY_DEFAULT;
    if (e && *e) {
        char *end = NULL;
        errno = 0;
        n = strtoll(e, &end, 10);
        if (errno || end == e || *end || wl_lat_configure(wl_lat_mode_names[WL_LAT_OFF], n) != 0)
            wl_usage_error("--latency-every (or HEAPBENCH_LATENCY_EVERY) needs an integer >= 1, got", e);
    }
    if (wl_lat_configure(m && *m ? m : wl_lat_mode_names[WL_LAT_OFF], n) != 0)
        wl_usage_error("--latency (or HEAPBENCH_LATENCY) must be " WL_LAT_MODE_WORDS ", got", m);
}

/* Prints `name<TAB>default<TAB>description<TAB>accepts` for each parameter, then seed; accepts is
 * `MIN..MAX` for an integer parameter, the choices `a|b|c` for a word one (what wl_set takes). */
static void wl_describe(const struct wl_prog *prog)
{
    for (size_t i = 0; i < prog->nparams; i++) {
        const struct wl_param *p = &prog->params[i];
        printf("%s\t%s\t%s", p->name, p->def, p->desc);
        if (p->choices)
            printf(" (%s)", p->choices);
        if (p->quick)
            printf(" (--quick: %s)", p->quick);
        if (p->choices)
            printf("\t%s\n", p->choices);
        else
            printf("\t%lld..%lld\n", p->min, p->max);
    }
    if (prog->long_form) /* a flag: stands alone, takes no value */
        printf("long\t-\tthe long form: stands for %s\tflag\n", prog->long_form);
    printf("seed\t1\tseed of the random generator (same seed, same run)\t0..%llu\n", ~0ULL);
}

/* The flags every workload takes besides its parameters (not in --describe: they are no cell axis). */
static void wl_help_flags(void)
{
    printf("\nflags of every workload:\n"
           "  --latency=" WL_LAT_MODE_BAR "  time malloc-API calls into latency histograms (default off, or\n"
           "                             $HEAPBENCH_LATENCY); all times every call and distorts throughput\n"
           "  --latency-every=N          sampled: time about one call in N of each kind (default %d, or\n"
           "                             $HEAPBENCH_LATENCY_EVERY)\n", WL_LAT_EVERY_DEFAULT);
}

/* Prints the usage text: summary, synopsis and the parameters. */
static void wl_help(const struct wl_prog *prog)
{
    printf("%s - %s\n\nusage: %s [--quick] [--seed=N] [--key=value ...] | --describe | --help\n\n",
           prog->name, prog->summary, prog->name);
    printf("parameters (name, default, description):\n");
    wl_describe(prog);
    if (prog->long_form)
        printf("\n--long stands for: %s\n", prog->long_form);
    wl_help_flags();
    printf("\nphase records go to the fd in HEAPBENCH_PHASE_FD, or to stdout when it is unset.\n");
}

/* The declared parameter called name, or NULL. */
static struct wl_param *wl_find(const char *name, size_t len)
{
    for (size_t i = 0; i < wl_the_prog->nparams; i++) {
        struct wl_param *p = &wl_the_prog->params[i];
        if (strlen(p->name) == len && strncmp(p->name, name, len) == 0)
            return p;
    }
    return NULL;
}

static const char *wl_arg_lat_mode, *wl_arg_lat_every; /* --latency=, --latency-every= (wl_latency.h) */

/* Applies one --key=value argument (or --seed=N, --latency=, --latency-every=) or exits 2. */
static void wl_apply(const char *a)
{
    const char *eq = strchr(a, '=');
    if (strncmp(a, "--", 2) != 0 || !eq)
        wl_usage_error("arguments are --key=value (or --quick, --describe, --help), got", a);
    if (strncmp(a, "--seed=", 7) == 0) {
        char *end = NULL;
        errno = 0;
        wl_seed = strtoull(eq + 1, &end, 10);
        if (errno || end == eq + 1 || *end || eq[1] == '-')
            wl_usage_error("--seed needs a non-negative integer, got", a);
        return;
    }
    if (strncmp(a, "--latency=", 10) == 0 || strncmp(a, "--latency-every=", 16) == 0) {
        *(a[9] == '=' ? &wl_arg_lat_mode : &wl_arg_lat_every) = eq + 1;
        return;
    }
    struct wl_param *p = wl_find(a + 2, (size_t)(eq - a - 2));
    if (!p)
        wl_usage_error("unknown parameter", a);
    wl_set(p, eq + 1);
}

/* Applies the space-separated words of the program's long form (kept in a static copy, since
 * word parameters point into it). */
static void wl_apply_long(const struct wl_prog *prog)
{
    static char words[512];
    if (!prog->long_form)
        wl_usage_error("this workload has no long form, got", "--long");
    snprintf(words, sizeof words, "%s", prog->long_form);
    char *save = NULL;
    for (char *w = strtok_r(words, " ", &save); w; w = strtok_r(NULL, " ", &save))
        wl_apply(w);
}

/* Scans for the flags that end the run or change the defaults; returns 1 when --long was given. */
static int wl_flags(struct wl_prog *prog, int argc, char **argv)
{
    int want_long = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--describe") == 0) {
            wl_describe(prog);
            exit(0);
        }
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            wl_help(prog);
            exit(0);
        }
        wl_quick |= strcmp(argv[i], "--quick") == 0;
        want_long |= strcmp(argv[i], "--long") == 0;
    }
    return want_long;
}

/* Flags first (--quick changes the defaults), then defaults, then the long form, then --key=value. */
void wl_args_parse(struct wl_prog *prog, int argc, char **argv)
{
    wl_the_prog = prog;
    int want_long = wl_flags(prog, argc, argv);
    for (size_t i = 0; i < prog->nparams; i++) {
        struct wl_param *p = &prog->params[i];
        wl_set(p, wl_quick && p->quick ? p->quick : p->def);
    }
    if (want_long)
        wl_apply_long(prog);
    for (int i = 1; i < argc; i++)
        if (strcmp(argv[i], "--quick") != 0 && strcmp(argv[i], "--long") != 0)
            wl_apply(argv[i]);
    wl_latency_args(wl_arg_lat_mode, wl_arg_lat_every);
}

/* Looks a parameter up by name; a name the program never declared is a programming error. */
static const struct wl_param *wl_get(const char *name)
{
    const struct wl_param *p = wl_find(name, strlen(name));
    if (!p) {
        fprintf(stderr, "%s: internal error: parameter %s not declared\n", wl_the_prog->name, name);
        abort();
    }
    return p;
}

/* Integer value of a declared parameter. */
long long wl_arg(const char *name)
{
    return wl_get(name)->num;
}

/* Word value of a declared parameter. */
const char *wl_word(const char *name)
{
    return wl_get(name)->word;
}
