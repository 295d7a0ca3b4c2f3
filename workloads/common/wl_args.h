/* wl_args.h - the command line of every workload: --key=value parameters, --quick, --describe, --help.
 * Always holds: every parameter has a default and (optionally) a smaller --quick default; an
 * explicit --key=value wins over both; --seed (default 1) and --latency=off|sampled|all,
 * --latency-every=N (the latency sampler, wl_latency.h) are always accepted; --describe prints
 * `name<TAB>default<TAB>description<TAB>accepts` per parameter (accepts: `MIN..MAX` or `a|b|c`,
 * exactly what the parser takes) and exits 0; --help prints usage and exits 0;
 * any bad argument prints one line on stderr (what was wrong, what to do) and exits 2; --long is
 * accepted only by a program that declares a long form (it stands for that form's --key=value
 * words, applied over the defaults and under explicit --key=value arguments). */
#ifndef WL_ARGS_H
#define WL_ARGS_H

#include <stddef.h>

/* One parameter. Integer parameters have choices == NULL and take [min, max];
 * word parameters list their allowed values in choices as "a|b|c". */
struct wl_param {
    const char *name;
    const char *def;     /* default, as text */
    const char *quick;   /* default under --quick; NULL: same as def */
    const char *choices; /* "a|b|c" for a word parameter, NULL for an integer one */
    long long min, max;  /* range of an integer parameter */
    const char *desc;
    /* filled by wl_args_parse() */
    long long num;
    const char *word;
};

#define WL_INT(name, def, quick, min, max, desc) {name, def, quick, NULL, min, max, desc, 0, NULL}
#define WL_WORD(name, def, choices, desc) {name, def, NULL, choices, 0, 0, desc, 0, NULL}

struct wl_prog {
    const char *name;    /* the workload's name, e.g. "thread-churn" */
    const char *summary; /* one line: what it does and which claim it checks */
    struct wl_param *params;
    size_t nparams;
    const char *long_form; /* "--key=value ..." that --long stands for; NULL: no --long */
};

/* A struct wl_prog initialiser for a program whose parameters are the array params. */
#define WL_PROG(name, summary, params) {name, summary, params, sizeof(params) / sizeof((params)[0]), NULL}

/* The same for a program with a long form: --long stands for the words of long_form. */
#define WL_PROG_LONG(name, summary, params, long_form)                                              \
    {name, summary, params, sizeof(params) / sizeof((params)[0]), long_form}

/* 1 when --quick was given (after wl_args_parse). */
extern int wl_quick;
/* The --seed value (default 1). */
extern unsigned long long wl_seed;

/* Parses argv into prog->params (and wl_quick, wl_seed); handles --describe and --help (exit 0)
 * and bad arguments (one line on stderr, exit 2). Keeps prog for wl_arg/wl_word. */
void wl_args_parse(struct wl_prog *prog, int argc, char **argv);

/* The value of the integer parameter called name (a name the program did not declare aborts). */
long long wl_arg(const char *name);

/* The value of the word parameter called name (a name the program did not declare aborts). */
const char *wl_word(const char *name);

#endif
