/* mpiexec_args.c: mpiexec's command line and environment options. */
#include "mpiexec.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void MPIEXEC_usage(FILE *f)
{
    fprintf(f,
            "usage: mpiexec [-n N | -np N] [-hosts H1[:N],H2[:N]... | -f HOSTFILE] [-ppn N]\n"
            "               [-launcher ssh|exec] [-launcher-exec CMD] [-localhost ADDR]\n"
            "               [-genv NAME VALUE]... [-env NAME VALUE]... [-disable-auto-cleanup]\n"
            "               [-v] [--] program [args...]\n"
            "  -n, -np N        start N ranks (default 1, or every slot of the hosts; at most %d)\n"
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
            "  -genv, -env K V  set K=V in every rank's environment\n"
            "  -disable-auto-cleanup  keep the other ranks running when one fails\n"
            "  -v               print every PMI line exchanged on stderr\n"
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

int MPIEXEC_parse_args(int argc, char **argv, opts_t *o)
{
    int i;

    o->n = 1;
    o->nenv = 0;
    o->env = calloc((size_t)argc, sizeof(char *));
    if (o->env == NULL)
        return -1;
    for (i = 1; i < argc && argv[i][0] == '-'; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--") == 0) {
            i++;
            break;
        } else if (strcmp(a, "-n") == 0 || strcmp(a, "-np") == 0) {
            if (parse_count(a, i + 1 < argc ? argv[i + 1] : NULL, &o->n) != 0)
                return -1;
            o->n_given = 1;
            i++;
        } else if (strcmp(a, "-ppn") == 0) {
            if (parse_count(a, i + 1 < argc ? argv[i + 1] : NULL, &o->ppn) != 0)
                return -1;
            i++;
        } else if (strcmp(a, "-hosts") == 0 || strcmp(a, "-host") == 0) {
            const char *v = opt_value(argc, argv, i++);
            if (!v || MPIEXEC_hosts_add_list(&job.hosts, v, a) != 0)
                return -1;
        } else if (strcmp(a, "-f") == 0 || strcmp(a, "-hostfile") == 0 ||
                   strcmp(a, "-machinefile") == 0) {
            const char *v = opt_value(argc, argv, i++);
            if (!v || MPIEXEC_hosts_add_file(&job.hosts, v) != 0)
                return -1;
        } else if (strcmp(a, "-launcher") == 0 || strcmp(a, "-bootstrap") == 0) {
            const char *v = opt_value(argc, argv, i++);
            if (!v)
                return -1;
            if (strcmp(v, "ssh") && strcmp(v, "rsh") && strcmp(v, "exec")) {
                fprintf(stderr, "mpiexec: %s %s: use ssh (or rsh) or exec\n", a, v);
                return -1;
            }
            o->launcher = v;
        } else if (strcmp(a, "-launcher-exec") == 0 || strcmp(a, "-bootstrap-exec") == 0) {
            if (!(o->launcher_exec = opt_value(argc, argv, i++)))
                return -1;
        } else if (strcmp(a, "-localhost") == 0) {
            if (!(o->localhost = opt_value(argc, argv, i++)))
                return -1;
        } else if (strcmp(a, "-disable-auto-cleanup") == 0) {
            job.disable_cleanup = 1;
        } else if (strcmp(a, "-genv") == 0 || strcmp(a, "-env") == 0) {
            if (i + 2 >= argc) {
                fprintf(stderr, "mpiexec: %s needs a NAME and a VALUE\n", a);
                return -1;
            }
            if (argv[i + 1][0] == '\0' || strchr(argv[i + 1], '=')) {
                fprintf(stderr, "mpiexec: %s %s: not a valid environment variable name\n", a,
                        argv[i + 1]);
                return -1;
            }
            o->env[o->nenv++] = argv[i + 1];
            o->env[o->nenv++] = argv[i + 2];
            i += 2;
        } else if (strcmp(a, "-v") == 0) {
            job.verbose = 1;
        } else if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            MPIEXEC_usage(stdout);
            exit(0);
        } else {
            fprintf(stderr, "mpiexec: unknown option %s\n", a);
            MPIEXEC_usage(stderr);
            return -1;
        }
    }
    if (i >= argc) {
        fprintf(stderr, "mpiexec: no program to run\n");
        MPIEXEC_usage(stderr);
        return -1;
    }
    o->argv = argv + i;
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
