/* ferry_info.c: what this Ferry was built with and what it can use here: version, configure
 * options, PMI clients, each method and whether it is usable (and why not), and every FERRY_
 * variable of the registry with its default, current value and description. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "method.h"
#include "mpi.h"
#include "mpidi_config.h"

#define PROBE_MAX 4096

extern char **environ;

static void usage(FILE *f)
{
    fprintf(f, "usage: ferry_info [--parsable]\n"
               "  Prints the version and configure options, the PMI clients built in, each\n"
               "  method built in and whether it is usable on this machine (and why not), and\n"
               "  every FERRY_ variable: default, value from the environment, description.\n"
               "  Unknown FERRY_ names in the environment are warned about.\n"
               "  --parsable  one record per line, fields separated by tabs:\n"
               "      version VERSION | configure ARGS | pmi NAME yes|no DETAIL\n"
               "      fortran yes|no DETAIL\n"
               "      method NAME usable|unusable SUMMARY | method-detail NAME TEXT\n"
               "      var NAME KIND DEFAULT VALUE|- RANGE DESCRIPTION | unknown-var NAME\n"
               "      config-error TEXT\n");
}

/* Tabs and newlines would break a --parsable record. */
static const char *field(const char *s, char *buf, size_t len)
{
    size_t i = 0;
    for (; s[i] && i + 1 < len; i++)
        buf[i] = s[i] == '\t' || s[i] == '\n' ? ' ' : s[i];
    buf[i] = '\0';
    return buf;
}

static void print_build(int parsable)
{
#ifdef FERRY_HAVE_PMIX
    const int pmix = 1;
#else
    const int pmix = 0;
#endif
#ifdef FERRY_HAVE_FORTRAN
    const char *fortran = "yes", *fortran_detail = "mpif.h, use mpi, mpifort with " FERRY_FC;
#else
    const char *fortran = "no", *fortran_detail = "no Fortran compiler, or --disable-fortran";
#endif
    if (parsable) {
        printf("version\t%s\n", PACKAGE_VERSION);
        printf("configure\t%s\n", FERRY_CONFIGURE_ARGS);
        printf("pmi\tpmi-1\tyes\tPMI_FD (mpiexec, Hydra, srun --mpi=pmi2), PMI_PORT\n");
        printf("pmi\tpmix\t%s\t%s\n", pmix ? "yes" : "no",
               pmix ? "srun --mpi=pmix, Open MPI's mpirun" : "configure found no libpmix");
        printf("fortran\t%s\t%s\n", fortran, fortran_detail);
        return;
    }
    printf("Ferry %s\n", PACKAGE_VERSION);
    printf("  configure options: %s\n", FERRY_CONFIGURE_ARGS[0] ? FERRY_CONFIGURE_ARGS : "(none)");
    printf("  PMI-1 client: yes (PMI_FD: Ferry's mpiexec, MPICH's Hydra, srun --mpi=pmi2; "
           "PMI_PORT)\n");
    printf("  PMIx client:  %s\n", pmix ? "yes (srun --mpi=pmix, Open MPI's mpirun)"
                                        : "no (configure found no libpmix; install libpmix-dev "
                                          "and rebuild)");
    printf("  Fortran:      %s (%s)\n", fortran, fortran_detail);
}

static void print_methods(int parsable)
{
    static char report[PROBE_MAX];
    char f1[PROBE_MAX];

    if (!parsable)
        printf("\nMethods built in (whether usable on this machine):\n");
    for (int i = 0; MPIDI_methods_all[i]; i++) {
        const MPIDI_method_ops_t *ops = MPIDI_methods_all[i];
        int usable = 1;
        if (ops->probe) {
            report[0] = '\0';
            usable = ops->probe(report, sizeof(report));
        } else {
            snprintf(report, sizeof(report), "usable (no check needed)\n");
        }
        /* The first line is the summary; the others are details. */
        char *save = NULL, *line = strtok_r(report, "\n", &save);
        if (parsable)
            printf("method\t%s\t%s\t%s\n", ops->name, usable ? "usable" : "unusable",
                   field(line ? line : "", f1, sizeof(f1)));
        else
            printf("  %-6s %s\n", ops->name, line ? line : (usable ? "usable" : "not usable"));
        while ((line = strtok_r(NULL, "\n", &save)) != NULL) {
            if (parsable)
                printf("method-detail\t%s\t%s\n", ops->name, field(line, f1, sizeof(f1)));
            else
                printf("         %s\n", line);
        }
    }
}

static void print_vars(int parsable)
{
    char f1[512], f2[512];
    int n = MPIDI_config_count(), width = 0;
    MPIDI_config_desc_t d;

    for (int i = 0; i < n; i++) {
        MPIDI_config_describe(i, &d);
        int w = (int)strlen(d.name);
        width = w > width ? w : width;
    }
    if (!parsable)
        printf("\nVariables (doc/tuning.md has the long form):\n");
    for (int i = 0; i < n; i++) {
        MPIDI_config_describe(i, &d);
        if (parsable) {
            printf("var\t%s\t%s\t%s\t%s\t%s\t%s\n", d.name, d.kind, d.defval[0] ? d.defval : "-",
                   d.value ? field(d.value, f1, sizeof(f1)) : "-", d.range,
                   field(d.doc, f2, sizeof(f2)));
            continue;
        }
        printf("  %-*s  %s\n", width, d.name, d.doc);
        printf("  %-*s  default %s%s%s, %s%s%s; %s %s\n", width, "", d.defval[0] ? "" : "\"",
               d.defval, d.defval[0] ? "" : "\"", d.value ? "set to \"" : "not set",
               d.value ? d.value : "", d.value ? "\"" : "", d.kind, d.range);
    }
    for (char **e = environ; *e; e++) {
        if (strncmp(*e, "FERRY_", 6) != 0)
            continue;
        char name[128];
        size_t len = strcspn(*e, "=");
        snprintf(name, sizeof(name), "%.*s", (int)(len < sizeof(name) ? len : sizeof(name) - 1),
                 *e);
        if (MPIDI_config_known(name))
            continue;
        if (parsable)
            printf("unknown-var\t%s\n", name);
        else
            printf("  warning: %s is not a Ferry variable (misspelt?); MPI_Init ignores it\n",
                   name);
    }
}

int main(int argc, char **argv)
{
    int parsable = 0;

    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--parsable") == 0 || strcmp(argv[i], "-p") == 0) {
            parsable = 1;
        } else if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
            usage(stdout);
            return 0;
        } else {
            fprintf(stderr, "ferry_info: unknown argument %s\n", argv[i]);
            usage(stderr);
            return 2;
        }
    }
    print_build(parsable);
    /* The probes see the variables as MPI_Init would (FERRY_TCP_IF, FERRY_SHM_CMA);
     * a bad value is reported on stderr by the registry itself, as at MPI_Init. */
    if (MPIDI_config_init() != MPI_SUCCESS) {
        if (parsable)
            printf("config-error\tan invalid FERRY_ value (see stderr): MPI_Init would stop\n");
        else
            printf("  warning: an invalid FERRY_ value (see above): MPI_Init would stop\n");
    }
    print_methods(parsable);
    print_vars(parsable);
    return 0;
}
