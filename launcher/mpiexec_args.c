/* mpiexec_args.c: mpiexec's command line, MPMD sections, -configfile and environment options. */
#include "mpiexec.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void MPIEXEC_usage(FILE *f)
{
    fprintf(f,
            "usage: mpiexec [global options] [local options] program [args...]\n"
            "               [: [local options] program [args...]]...\n"
            "       mpiexec [global options] -configfile FILE\n"
            "global options:\n"
            "  -hosts LIST      comma-separated hosts, each with an optional :slots count\n"
            "  -f FILE          hosts from a file, one host[:slots] per line, # comments\n"
            "  -ppn N           ranks per host and turn (overrides the slot counts)\n"
            "  -launcher STYLE  ssh: the remote command is one shell string (ssh, rsh);\n"
            "                   exec: it is separate words (ip netns exec, srun ...);\n"
            "                   default: ssh if the launcher command's name has ssh or rsh\n"
            "  -launcher-exec CMD  command that runs a program on a host: CMD HOST ...\n"
            "                   (default ssh; -bootstrap/-bootstrap-exec are the same)\n"
            "  -localhost ADDR  address the remote ranks reach this mpiexec at (default: found\n"
            "                   from the route toward the first remote host)\n"
            "  -genv K V        set K=V in every rank's environment\n"
            "  -genvlist A,B    pass these variables of mpiexec's environment to every rank\n"
            "                   (ranks started here inherit all of it; ssh carries none)\n"
            "  -gwdir DIR       working directory of every section without -wdir\n"
            "  -l, -prepend-rank  prefix every output line with \"[rank] \"\n"
            "  -bind-to core|none  bind each rank started here to one core (default none;\n"
            "                   not done when the node has more ranks than cores)\n"
            "  -configfile FILE the sections, one per line (local options, program, args)\n"
            "  -disable-auto-cleanup  keep the other ranks running when one fails\n"
            "  -v               print every PMI line exchanged on stderr\n"
            "  --version        print mpiexec's version and exit\n"
            "local options (one MPMD section; sections are separated by ':'):\n"
            "  -n, -np N        start N ranks (default 1, or with hosts and one section every\n"
            "                   slot of them; at most %d in all)\n"
            "  -env K V         set K=V in this section's ranks' environment\n"
            "  -envlist A,B     pass these variables to this section's ranks\n"
            "  -wdir DIR        run this section's ranks in DIR\n"
            "Every option may also be written with two dashes (--np 4, --bind-to core).\n"
            "-oversubscribe and -allow-run-as-root (Open MPI's) are accepted: Ferry allows\n"
            "both anyway.  This program is also installed as mpirun.\n"
            "Hosts named localhost or like this machine run their ranks here; the others\n"
            "are started with the launcher command and reach the PMI server over TCP.\n"
            "environment: MPIEXEC_TIMEOUT=SEC kills the job after SEC seconds (exit 124)\n",
            MAX_RANKS);
}

static int parse_count(const char *opt, const char *s, int *n_p)
{
    char *end;
    long v;

    errno = 0;
    v = s ? strtol(s, &end, 10) : 0;
    if (s == NULL || end == s || *end != '\0' || errno != 0 || v < 1 || v > MAX_RANKS) {
        fprintf(stderr, "mpiexec: %s %s: the number of ranks must be an integer from 1 to %d\n",
                opt, s ? s : "(missing)", MAX_RANKS);
        return -1;
    }
    *n_p = (int)v;
    return 0;
}

/* The value of an option that takes one; NULL after a message if missing. */
static const char *opt_value(int argc, char **argv, int i)
{
    if (i + 1 >= argc || argv[i + 1][0] == '\0') {
        fprintf(stderr, "mpiexec: %s needs a value\n", argv[i]);
        return NULL;
    }
    return argv[i + 1];
}

/* Checks "-env NAME VALUE" at argv[i] and appends the pair; -1 after a message. */
static int add_env(int argc, char **argv, int i, char ***env_p, int *nenv_p)
{
    const char *a = argv[i];
    if (i + 2 >= argc) {
        fprintf(stderr, "mpiexec: %s needs a NAME and a VALUE\n", a);
        return -1;
    }
    if (argv[i + 1][0] == '\0' || strchr(argv[i + 1], '=')) {
        fprintf(stderr, "mpiexec: %s %s: not a valid environment variable name\n", a, argv[i + 1]);
        return -1;
    }
    char **env = realloc(*env_p, (size_t)(*nenv_p + 2) * sizeof(char *));
    if (env == NULL) {
        fprintf(stderr, "mpiexec: out of memory for %s\n", a);
        return -1;
    }
    env[(*nenv_p)++] = argv[i + 1];
    env[(*nenv_p)++] = argv[i + 2];
    *env_p = env;
    return 0;
}

/* An option's name as the tables below spell it: every option may also be written with two
 * dashes (--np 4, --bind-to core), as Hydra takes them.  "--" alone is not an option. */
static const char *opt_name(const char *word)
{
    return word[0] == '-' && word[1] == '-' && word[2] != '\0' ? word + 1 : word;
}

/* "-genvlist A,B" at argv[i]: appends each listed variable that mpiexec's own environment has,
 * with its value (Hydra's option: what ssh would not carry to remote ranks); -1 after a
 * message. */
static int add_envlist(int argc, char **argv, int i, char ***env_p, int *nenv_p)
{
    const char *v = opt_value(argc, argv, i);
    char *list = v ? strdup(v) : NULL, *save = NULL;
    if (!list)
        return v ? (fprintf(stderr, "mpiexec: out of memory for %s\n", argv[i]), -1) : -1;
    for (char *name = strtok_r(list, ",", &save); name; name = strtok_r(NULL, ",", &save)) {
        if (strchr(name, '=')) {
            fprintf(stderr, "mpiexec: %s %s: '%s' is not a variable name\n", argv[i], v, name);
            return -1;
        }
        const char *value = getenv(name);
        if (!value)
            continue;
        char **env = realloc(*env_p, (size_t)(*nenv_p + 2) * sizeof(char *));
        if (env == NULL) {
            fprintf(stderr, "mpiexec: out of memory for %s\n", argv[i]);
            return -1;
        }
        env[(*nenv_p)++] = name;
        env[(*nenv_p)++] = (char *)value;
        *env_p = env;
    }
    return 0; /* list stays allocated: the names point into it */
}

static MPIEXEC_app_t *new_app(opts_t *o)
{
    MPIEXEC_app_t *apps = realloc(o->apps, (size_t)(o->napps + 1) * sizeof(*apps));
    if (apps == NULL) {
        fprintf(stderr, "mpiexec: out of memory for %d program sections\n", o->napps + 1);
        return NULL;
    }
    o->apps = apps;
    memset(&apps[o->napps], 0, sizeof(apps[0]));
    apps[o->napps].n = 1;
    return &apps[o->napps++];
}

static int read_configfile(const char *path, opts_t *o);

/* A global option at argv[i]: returns how many words it took (1 or more), 0 if
 * a is not one, -1 after a message. */
static int global_option(int argc, char **argv, int i, opts_t *o, int in_configfile)
{
    const char *a = opt_name(argv[i]);
    const char *v;

    if (strcmp(a, "-ppn") == 0) {
        if (parse_count(argv[i], i + 1 < argc ? argv[i + 1] : NULL, &o->ppn) != 0)
            return -1;
        return 2;
    } else if (strcmp(a, "-hosts") == 0 || strcmp(a, "-host") == 0) {
        if (!(v = opt_value(argc, argv, i)) || MPIEXEC_hosts_add_list(&job.hosts, v, a) != 0)
            return -1;
        return 2;
    } else if (strcmp(a, "-f") == 0 || strcmp(a, "-hostfile") == 0 ||
               strcmp(a, "-machinefile") == 0) {
        if (!(v = opt_value(argc, argv, i)) || MPIEXEC_hosts_add_file(&job.hosts, v) != 0)
            return -1;
        return 2;
    } else if (strcmp(a, "-launcher") == 0 || strcmp(a, "-bootstrap") == 0) {
        if (!(v = opt_value(argc, argv, i)))
            return -1;
        if (strcmp(v, "ssh") && strcmp(v, "rsh") && strcmp(v, "exec")) {
            fprintf(stderr, "mpiexec: %s %s: use ssh (or rsh) or exec\n", a, v);
            return -1;
        }
        o->launcher = v;
        return 2;
    } else if (strcmp(a, "-launcher-exec") == 0 || strcmp(a, "-bootstrap-exec") == 0) {
        return (o->launcher_exec = opt_value(argc, argv, i)) ? 2 : -1;
    } else if (strcmp(a, "-localhost") == 0) {
        return (o->localhost = opt_value(argc, argv, i)) ? 2 : -1;
    } else if (strcmp(a, "-gwdir") == 0) {
        return (o->gwdir = opt_value(argc, argv, i)) ? 2 : -1;
    } else if (strcmp(a, "-disable-auto-cleanup") == 0) {
        job.disable_cleanup = 1;
        return 1;
    } else if (strcmp(a, "-genv") == 0) {
        return add_env(argc, argv, i, &o->genv, &o->ngenv) ? -1 : 3;
    } else if (strcmp(a, "-genvlist") == 0) {
        return add_envlist(argc, argv, i, &o->genv, &o->ngenv) ? -1 : 2;
    } else if (strcmp(a, "-l") == 0 || strcmp(a, "-prepend-rank") == 0) {
        job.prepend_rank = 1;
        return 1;
    } else if (strcmp(a, "-bind-to") == 0) {
        if (!(v = opt_value(argc, argv, i)))
            return -1;
        if (strcmp(v, "core") == 0) {
            o->bind = MPIEXEC_BIND_CORE;
        } else if (strcmp(v, "none") == 0) {
            o->bind = MPIEXEC_BIND_NONE;
        } else {
            fprintf(stderr, "mpiexec: -bind-to %s: use core or none\n", v);
            return -1;
        }
        return 2;
    } else if (strcmp(a, "-configfile") == 0) {
        if (in_configfile) {
            fprintf(stderr, "mpiexec: -configfile inside a configfile\n");
            return -1;
        }
        if (!(v = opt_value(argc, argv, i)) || read_configfile(v, o) != 0)
            return -1;
        return 2;
    } else if (strcmp(a, "-v") == 0) {
        job.verbose = 1;
        return 1;
    } else if (strcmp(a, "-oversubscribe") == 0 || strcmp(a, "-allow-run-as-root") == 0) {
        return 1; /* Open MPI's permissions: Ferry gives both without being asked */
    } else if (strcmp(a, "-version") == 0) {
        printf("mpiexec (%s) %s\n", PACKAGE_NAME, PACKAGE_VERSION);
        printf("PMI-1 server: PMI_FD (ranks here), PMI_PORT (other hosts)\n");
        exit(0);
    } else if (strcmp(a, "-h") == 0 || strcmp(a, "-help") == 0) {
        MPIEXEC_usage(stdout);
        exit(0);
    }
    return 0;
}

/* Parses words (argv[first..argc)) into o: global options, then sections
 * separated by ":" words.  A section's options end at its program's name; the
 * words after it, up to the next ":", are the program's arguments.  Global
 * options may stand in any section. */
static int parse_words(int argc, char **argv, int first, opts_t *o, int in_configfile)
{
    int cur = -1; /* index of the section being parsed; -1 before its first word */
    int i = first;

    while (i <= argc) {
        if (i == argc || strcmp(argv[i], ":") == 0) {
            if (cur >= 0 && o->apps[cur].argv == NULL) {
                fprintf(stderr, "mpiexec: no program to run%s\n",
                        i < argc ? " before ':'" : (o->napps > 1 ? " after the last ':'" : ""));
                return -1;
            }
            if (i < argc && cur < 0) {
                fprintf(stderr, "mpiexec: a ':' with no program before it\n");
                return -1;
            }
            cur = -1;
            i++;
            continue;
        }
        const char *a = opt_name(argv[i]);
        int took = a[0] == '-' ? global_option(argc, argv, i, o, in_configfile) : 0;
        if (took < 0)
            return -1;
        if (took > 0) {
            i += took;
            continue;
        }
        if (cur < 0) {
            if (!new_app(o))
                return -1;
            cur = o->napps - 1;
        }
        MPIEXEC_app_t *app = &o->apps[cur];
        if (a[0] != '-' || strcmp(a, "--") == 0) {
            /* The program and its arguments, up to the next ':'. */
            i += strcmp(a, "--") == 0;
            int end = i;
            while (end < argc && strcmp(argv[end], ":") != 0)
                end++;
            if (end == i)
                continue; /* "--" right before ':' or the end: reported there */
            app->argv = calloc((size_t)(end - i + 1), sizeof(char *));
            if (app->argv == NULL) {
                fprintf(stderr, "mpiexec: out of memory for the program's arguments\n");
                return -1;
            }
            memcpy(app->argv, argv + i, (size_t)(end - i) * sizeof(char *));
            i = end;
        } else if (strcmp(a, "-n") == 0 || strcmp(a, "-np") == 0) {
            if (parse_count(argv[i], i + 1 < argc ? argv[i + 1] : NULL, &app->n) != 0)
                return -1;
            app->n_given = 1;
            i += 2;
        } else if (strcmp(a, "-env") == 0) {
            if (add_env(argc, argv, i, &app->env, &app->nenv) != 0)
                return -1;
            i += 3;
        } else if (strcmp(a, "-envlist") == 0) {
            if (add_envlist(argc, argv, i, &app->env, &app->nenv) != 0)
                return -1;
            i += 2;
        } else if (strcmp(a, "-wdir") == 0 || strcmp(a, "-dir") == 0) {
            if (!(app->wdir = opt_value(argc, argv, i)))
                return -1;
            i += 2;
        } else {
            fprintf(stderr, "mpiexec: unknown option %s\n", argv[i]);
            MPIEXEC_usage(stderr);
            return -1;
        }
    }
    return 0;
}

/* Splits one configfile line into words: blanks separate them, single and
 * double quotes group them, '#' at a word's start begins a comment. */
static int split_line(char *line, const char *path, int lineno, char ***words_p, int *n_p)
{
    char *out = line; /* words are rewritten in place, unquoted */
    char *p = line;

    for (;;) {
        while (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n')
            p++;
        if (*p == '\0' || *p == '#')
            return 0;
        char *word = out;
        while (*p && *p != ' ' && *p != '\t' && *p != '\r' && *p != '\n') {
            if (*p == '\'' || *p == '"') {
                char q = *p++;
                while (*p && *p != q)
                    *out++ = *p++;
                if (*p != q) {
                    fprintf(stderr, "mpiexec: %s line %d: unterminated %c quote\n", path, lineno,
                            q);
                    return -1;
                }
                p++;
            } else {
                *out++ = *p++;
            }
        }
        int at_end = *p == '\0';
        *out++ = '\0';
        if (!at_end)
            p++;
        char **w = realloc(*words_p, (size_t)(*n_p + 2) * sizeof(char *));
        if (w == NULL) {
            fprintf(stderr, "mpiexec: out of memory reading %s\n", path);
            return -1;
        }
        w[(*n_p)++] = word;
        *words_p = w;
        if (at_end)
            return 0;
    }
}

/* -configfile FILE: each non-empty line is one section, as if the lines were
 * joined with ':'; the words persist for the whole run (argv points at them). */
static int read_configfile(const char *path, opts_t *o)
{
    FILE *f = fopen(path, "r");
    char **words = NULL;
    int n = 0, lineno = 0;
    char *line = NULL;
    size_t cap = 0;

    if (f == NULL) {
        fprintf(stderr, "mpiexec: -configfile %s: %s\n", path, strerror(errno));
        return -1;
    }
    while (getline(&line, &cap, f) >= 0) {
        int before = n;
        lineno++;
        if (split_line(line, path, lineno, &words, &n) != 0)
            goto fn_fail;
        if (n > before) {
            /* The line's words now belong to words[]; keep its buffer. */
            line = NULL;
            cap = 0;
            char **w = realloc(words, (size_t)(n + 2) * sizeof(char *));
            if (w == NULL)
                goto fn_fail;
            words = w;
            words[n++] = ":";
        }
    }
    fclose(f);
    free(line);
    if (n == 0) {
        fprintf(stderr, "mpiexec: -configfile %s has no program line\n", path);
        return -1;
    }
    words[--n] = NULL; /* the last ':' */
    return parse_words(n, words, 0, o, 1);

fn_fail:
    fclose(f);
    free(line);
    return -1;
}

int MPIEXEC_parse_args(int argc, char **argv, opts_t *o)
{
    if (parse_words(argc, argv, 1, o, 0) != 0)
        return -1;
    if (o->napps == 0) {
        fprintf(stderr, "mpiexec: no program to run\n");
        MPIEXEC_usage(stderr);
        return -1;
    }
    long total = 0;
    for (int k = 0; k < o->napps; k++) {
        o->apps[k].first_rank = (int)total;
        if (!o->apps[k].wdir)
            o->apps[k].wdir = o->gwdir;
        total += o->apps[k].n;
    }
    if (total > MAX_RANKS) {
        fprintf(stderr, "mpiexec: %ld ranks in all sections; at most %d\n", total, MAX_RANKS);
        return -1;
    }
    o->n = (int)total;
    return 0;
}

/* A positive number of seconds from the environment (default def); -1 after a message. */
static int env_seconds(const char *name, int def, int *out)
{
    const char *v = getenv(name);
    *out = def;
    if (v && v[0]) {
        char *end;
        long n = strtol(v, &end, 10);
        if (end == v || *end != '\0' || n < 1 || n > INT_MAX / 1000) {
            fprintf(stderr, "mpiexec: %s=%s is not a positive number of seconds\n", name, v);
            return -1;
        }
        *out = (int)n;
    }
    return 0;
}

int MPIEXEC_parse_timeout(void)
{
    if (env_seconds("MPIEXEC_TIMEOUT", 0, &job.timeout_sec) != 0)
        return -1;
    return env_seconds("MPIEXEC_PORT_TIMEOUT", PORT_IDENTIFY_S, &job.port_timeout_sec);
}
