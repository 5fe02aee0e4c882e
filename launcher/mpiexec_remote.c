/* mpiexec_remote.c: the launcher command line (ssh or exec style) that starts a rank on another
 * host, with the rank's PMI_PORT, environment, directory and program. */
#include "mpiexec.h"

#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct words {
    char **v;
    int n, cap;
    int failed;
} words_t;

static void words_add(words_t *w, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void words_add(words_t *w, const char *fmt, ...)
{
    va_list ap;
    char *x = NULL;
    if (w->failed)
        return;
    if (w->n + 2 > w->cap) {
        int cap = w->cap ? w->cap * 2 : 32;
        char **v = realloc(w->v, (size_t)cap * sizeof(char *));
        if (!v) {
            w->failed = 1;
            return;
        }
        w->v = v;
        w->cap = cap;
    }
    va_start(ap, fmt);
    if (vasprintf(&x, fmt, ap) < 0)
        x = NULL;
    va_end(ap);
    if (!x) {
        w->failed = 1;
        return;
    }
    w->v[w->n++] = x;
    w->v[w->n] = NULL;
}

static void words_free(words_t *w)
{
    for (int i = 0; i < w->n; i++)
        free(w->v[i]);
    free(w->v);
    memset(w, 0, sizeof(*w));
}

extern char **environ;

/* The launcher command line that starts rank on its host:
 *   LAUNCHER HOST env [-C WDIR] -u PMI_FD ... PMI_PORT=... PMI_ID=rank:token ... program args
 * exec style passes those words as they are; ssh style joins them, quoted,
 * into one shell command that first changes to our working directory. */
char **MPIEXEC_remote_argv(int rank, const opts_t *o)
{
    const MPIEXEC_app_t *app = &o->apps[job.ranks[rank].app];
    words_t cmd = {0}, out = {0};
    char cwd[PATH_MAX];
    int ssh = o->style == MPIEXEC_LAUNCH_SSH;

    if (!getcwd(cwd, sizeof(cwd)))
        snprintf(cwd, sizeof(cwd), ".");
    words_add(&cmd, "env");
    /* -wdir: env changes there itself, so a missing directory fails the rank
     * with env's message instead of running it elsewhere. */
    if (app->wdir) {
        words_add(&cmd, "-C");
        if (app->wdir[0] == '/')
            words_add(&cmd, "%s", app->wdir);
        else
            words_add(&cmd, "%s/%s", cwd, app->wdir);
    }
    /* An outer launcher's variables would make the client connect there. */
    words_add(&cmd, "-u");
    words_add(&cmd, "PMI_FD");
    words_add(&cmd, "-u");
    words_add(&cmd, "PMI_RANK");
    words_add(&cmd, "-u");
    words_add(&cmd, "PMI_SIZE");
    words_add(&cmd, "PMI_PORT=%s", job.pmi_port);
    /* The token proves to our PMI_PORT that the connection is this rank's. */
    words_add(&cmd, "PMI_ID=%d:%s", rank, job.ranks[rank].token);
    words_add(&cmd, "PMI_SPAWNED=0");
    words_add(&cmd, "MPI_LOCALRANKID=%d", job.local_index[rank]);
    words_add(&cmd, "MPI_LOCALNRANKS=%d", MPIEXEC_node_nranks(rank));
    if (ssh) {
        /* ssh carries no environment: pass on what configures Ferry and
         * finds its library; an exec-style launcher inherits it all. */
        for (char **e = environ; *e; e++)
            if (strncmp(*e, "FERRY_", 6) == 0 || strncmp(*e, "PMI_DEBUG=", 10) == 0 ||
                strncmp(*e, "LD_LIBRARY_PATH=", 16) == 0)
                words_add(&cmd, "%s", *e);
    }
    for (int i = 0; i < o->ngenv; i += 2)
        words_add(&cmd, "%s=%s", o->genv[i], o->genv[i + 1]);
    for (int i = 0; i < app->nenv; i += 2)
        words_add(&cmd, "%s=%s", app->env[i], app->env[i + 1]);
    /* A relative path is relative to our directory (or -wdir's), wherever the
     * launcher starts. */
    if (strchr(app->argv[0], '/') && app->argv[0][0] != '/' && !app->wdir)
        words_add(&cmd, "%s/%s", cwd, app->argv[0]);
    else
        words_add(&cmd, "%s", app->argv[0]);
    for (int i = 1; app->argv[i]; i++)
        words_add(&cmd, "%s", app->argv[i]);

    for (int i = 0; i < o->nlwords; i++)
        words_add(&out, "%s", o->lwords[i]);
    words_add(&out, "%s", job.hosts.hosts[job.ranks[rank].host].name);
    if (ssh && !cmd.failed) {
        size_t len = strlen(cwd) * 4 + 64;
        for (int i = 0; i < cmd.n; i++)
            len += strlen(cmd.v[i]) * 4 + 3;
        char *line = calloc(1, len);
        if (!line || MPIEXEC_shell_quote(line, len, "cd") || MPIEXEC_shell_quote(line, len, cwd)) {
            cmd.failed = 1;
        } else {
            strcat(line, " 2>/dev/null; exec");
            for (int i = 0; i < cmd.n && !cmd.failed; i++)
                cmd.failed = MPIEXEC_shell_quote(line, len, cmd.v[i]) != 0;
            words_add(&out, "%s", line);
        }
        free(line);
    } else {
        for (int i = 0; i < cmd.n; i++)
            words_add(&out, "%s", cmd.v[i]);
    }
    if (cmd.failed || out.failed) {
        fprintf(stderr, "mpiexec: out of memory building the command line of rank %d\n", rank);
        words_free(&cmd);
        words_free(&out);
        return NULL;
    }
    words_free(&cmd);
    return out.v;
}
