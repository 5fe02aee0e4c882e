/* mpiexec_spawn.c: starting ranks: placement on hosts, the rank's environment, fork and exec here
 * or through the launcher command on another host. */
#include "mpiexec.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

/* Resolves prog like execvp would, so a typo fails before any rank starts. */
char *MPIEXEC_find_program(const char *prog)
{
    struct stat st;
    const char *path_env = getenv("PATH");
    char *found = NULL;

    if (strchr(prog, '/')) {
        if (stat(prog, &st) != 0) {
            fprintf(stderr, "mpiexec: cannot run %s: %s\n", prog, strerror(errno));
            return NULL;
        }
        if (S_ISDIR(st.st_mode) || access(prog, X_OK) != 0) {
            fprintf(stderr, "mpiexec: cannot run %s: %s\n", prog,
                    S_ISDIR(st.st_mode) ? "is a directory" : "not executable (Permission denied)");
            return NULL;
        }
        return strdup(prog);
    }
    if (path_env == NULL || path_env[0] == '\0')
        path_env = "/usr/local/bin:/usr/bin:/bin";
    int saw_nonexec = 0;
    const char *p = path_env;
    while (!found) {
        const char *colon = strchr(p, ':');
        size_t dlen = colon ? (size_t)(colon - p) : strlen(p);
        char *cand;
        /* An empty PATH element means the current directory. */
        if (asprintf(&cand, "%.*s%s%s", (int)dlen, dlen ? p : ".", "/", prog) < 0)
            break;
        if (stat(cand, &st) == 0 && S_ISREG(st.st_mode)) {
            if (access(cand, X_OK) == 0)
                found = cand;
            else
                saw_nonexec = 1;
        }
        if (found != cand)
            free(cand);
        if (!colon)
            break;
        p = colon + 1;
    }
    if (!found)
        fprintf(stderr, "mpiexec: cannot run %s: %s in PATH=%s\n", prog,
                saw_nonexec ? "not executable (Permission denied)" : "command not found", path_env);
    return found;
}

int MPIEXEC_check_fd_limit(int n)
{
    struct rlimit rl;
    /* Ours: 3 per rank, plus the child ends while one rank is being forked. */
    rlim_t need = (rlim_t)n * 3 + 16;

    if (getrlimit(RLIMIT_NOFILE, &rl) != 0 || rl.rlim_cur >= need)
        return 0;
    if (rl.rlim_max == RLIM_INFINITY || rl.rlim_max >= need) {
        rl.rlim_cur = need;
        if (setrlimit(RLIMIT_NOFILE, &rl) == 0)
            return 0;
    }
    fprintf(stderr, "mpiexec: -n %d needs %lu file descriptors, the limit is %lu\n", n,
            (unsigned long)need, (unsigned long)rl.rlim_cur);
    return -1;
}

/* Ranks on the node of rank (for MPI_LOCALNRANKS). */
static int node_nranks(int rank)
{
    int node = job.hosts.hosts[job.ranks[rank].host].node_id, n = 0;
    for (int q = 0; q < job.size; q++)
        n += job.hosts.hosts[job.ranks[q].host].node_id == node;
    return n;
}

/* In the forked child: a local rank gets PMI_FD and execs the program; a
 * remote one execs the launcher command (remote_argv). */
static void child_exec(int rank, int pmi_fd, int out_w, int err_w, const opts_t *o,
                       const char *path, char **remote_argv)
{
    char num[32];
    sigset_t none;
    static const int sigs[] = {SIGPIPE, SIGINT, SIGTERM, SIGHUP, SIGCHLD, SIGQUIT};

    /* Own process group: kill(-pid) then reaches whatever the rank starts. */
    setpgid(0, 0);
    /* Ignored signals stay ignored across exec; the rank must get defaults. */
    for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
        signal(sigs[i], SIG_DFL);
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);

    if (dup2(out_w, 1) < 0 || dup2(err_w, 2) < 0)
        _exit(EXIT_NOT_FOUND);
    /* Only rank 0 reads our stdin, and only if it is not a terminal: a rank
     * outside the foreground process group would be stopped by SIGTTIN. */
    if (rank != 0 || isatty(0)) {
        int devnull = open("/dev/null", O_RDONLY);
        if (devnull >= 0 && devnull != 0) {
            dup2(devnull, 0);
            close(devnull);
        }
    }
    if (remote_argv) {
        execvp(remote_argv[0], remote_argv);
        fprintf(stderr, "mpiexec: rank %d: exec of the launcher command %s: %s (errno %d)\n", rank,
                remote_argv[0], strerror(errno), errno);
        _exit(EXIT_NOT_FOUND);
    }
    /* Every other fd of ours is close-on-exec; this one must survive. */
    fcntl(pmi_fd, F_SETFD, 0);

    snprintf(num, sizeof(num), "%d", pmi_fd);
    setenv("PMI_FD", num, 1);
    snprintf(num, sizeof(num), "%d", rank);
    setenv("PMI_RANK", num, 1);
    snprintf(num, sizeof(num), "%d", job.local_index[rank]);
    setenv("MPI_LOCALRANKID", num, 1);
    snprintf(num, sizeof(num), "%d", o->n);
    setenv("PMI_SIZE", num, 1);
    snprintf(num, sizeof(num), "%d", node_nranks(rank));
    setenv("MPI_LOCALNRANKS", num, 1);
    setenv("PMI_SPAWNED", "0", 1);
    /* Inherited from an outer launcher, these would make the client connect there. */
    unsetenv("PMI_PORT");
    unsetenv("PMI_ID");
    for (int i = 0; i < o->nenv; i += 2)
        setenv(o->env[i], o->env[i + 1], 1);

    execv(path, o->argv);
    fprintf(stderr, "mpiexec: rank %d: exec %s: %s (errno %d)\n", rank, path, strerror(errno),
            errno);
    _exit(EXIT_NOT_FOUND);
}

/* ---- remote ranks ---- */

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
 *   LAUNCHER HOST env -u PMI_FD ... PMI_PORT=... PMI_ID=rank ... program args
 * exec style passes those words as they are; ssh style joins them, quoted,
 * into one shell command that first changes to our working directory. */
static char **remote_argv(int rank, const opts_t *o)
{
    words_t cmd = {0}, out = {0};
    char cwd[PATH_MAX];
    int ssh = o->style == MPIEXEC_LAUNCH_SSH;

    if (!getcwd(cwd, sizeof(cwd)))
        snprintf(cwd, sizeof(cwd), ".");
    words_add(&cmd, "env");
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
    words_add(&cmd, "MPI_LOCALNRANKS=%d", node_nranks(rank));
    if (ssh) {
        /* ssh carries no environment: pass on what configures Ferry and
         * finds its library; an exec-style launcher inherits it all. */
        for (char **e = environ; *e; e++)
            if (strncmp(*e, "FERRY_", 6) == 0 || strncmp(*e, "PMI_DEBUG=", 10) == 0 ||
                strncmp(*e, "LD_LIBRARY_PATH=", 16) == 0)
                words_add(&cmd, "%s", *e);
    }
    for (int i = 0; i < o->nenv; i += 2)
        words_add(&cmd, "%s=%s", o->env[i], o->env[i + 1]);
    /* A relative path is relative to our directory, wherever the launcher starts. */
    if (strchr(o->argv[0], '/') && o->argv[0][0] != '/')
        words_add(&cmd, "%s/%s", cwd, o->argv[0]);
    else
        words_add(&cmd, "%s", o->argv[0]);
    for (int i = 1; o->argv[i]; i++)
        words_add(&cmd, "%s", o->argv[i]);

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

static void set_nonblock(int fd)
{
    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
}

int MPIEXEC_spawn_rank(int rank, const opts_t *o, const char *path)
{
    rank_t *r = &job.ranks[rank];
    int sv[2] = {-1, -1}, out[2], err[2];
    sigset_t all, old;
    char **rargv = NULL;

    if (r->remote) {
        /* Remote: the launcher command's output is the rank's; PMI comes by TCP. */
        if (!(rargv = remote_argv(rank, o)))
            return -1;
        if (job.verbose) {
            fprintf(stderr, "mpiexec: rank %d:", rank);
            for (char **a = rargv; *a; a++)
                fprintf(stderr, " %s", *a);
            fprintf(stderr, "\n");
        }
    } else if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0) {
        goto fn_fail;
    }
    if (pipe2(out, O_CLOEXEC) != 0)
        goto fn_fail_sv;
    if (pipe2(err, O_CLOEXEC) != 0)
        goto fn_fail_out;

    /* Blocked across fork so the child cannot run our handlers before it
     * resets them. */
    sigfillset(&all);
    sigprocmask(SIG_SETMASK, &all, &old);
    pid_t pid = fork();
    if (pid == 0)
        child_exec(rank, sv[1], out[1], err[1], o, path, rargv);
    int fork_errno = errno;
    if (pid > 0) {
        /* Also from the parent: a kill right after fork must find the group. */
        setpgid(pid, pid);
        r->pid = pid;
        job.nlive++;
    }
    sigprocmask(SIG_SETMASK, &old, NULL);
    if (pid < 0) {
        errno = fork_errno;
        goto fn_fail_err;
    }

    if (rargv) {
        for (char **a = rargv; *a; a++)
            free(*a);
        free(rargv);
    } else {
        close(sv[1]);
        r->pmi_fd = sv[0];
        set_nonblock(sv[0]);
        PMIU_reader_init(&r->reader, sv[0]);
    }
    close(out[1]);
    close(err[1]);
    r->streams[0].fd = out[0];
    r->streams[1].fd = err[0];
    set_nonblock(out[0]);
    set_nonblock(err[0]);
    return 0;

fn_fail_err:
    close(err[0]);
    close(err[1]);
fn_fail_out:
    close(out[0]);
    close(out[1]);
fn_fail_sv:
    if (sv[0] >= 0) {
        close(sv[0]);
        close(sv[1]);
    }
fn_fail:
    fprintf(stderr, "mpiexec: starting rank %d of %d: %s (errno %d)\n", rank, o->n, strerror(errno),
            errno);
    if (rargv) {
        for (char **a = rargv; *a; a++)
            free(*a);
        free(rargv);
    }
    return -1;
}

/* Hosts and placement: without -hosts/-f every rank runs here.  Fills
 * job.size, job.ranks (host, remote), job.local_index and job.mapping, and
 * the launcher command for remote ranks. */
int MPIEXEC_setup_hosts(opts_t *o)
{
    int given = job.hosts.nhosts > 0;
    if (!given && MPIEXEC_hosts_add_list(&job.hosts, "localhost", "default") != 0)
        return -1;
    MPIEXEC_hosts_finish(&job.hosts);
    if (given && !o->n_given) {
        long total = 0;
        for (int i = 0; i < job.hosts.nhosts; i++)
            total += MPIEXEC_hosts_slots(&job.hosts.hosts[i], o->ppn);
        o->n = total > MAX_RANKS ? MAX_RANKS : (int)total;
    }
    job.size = o->n;
    job.ranks = calloc((size_t)o->n, sizeof(rank_t));
    job.local_index = calloc((size_t)o->n, sizeof(int));
    int *host_of = calloc((size_t)o->n, sizeof(int));
    if (!job.ranks || !job.local_index || !host_of) {
        fprintf(stderr, "mpiexec: out of memory for %d ranks\n", o->n);
        free(host_of);
        return -1;
    }
    MPIEXEC_hosts_place(&job.hosts, o->n, o->ppn, host_of, job.local_index);
    job.nremote = 0;
    for (int i = 0; i < o->n; i++) {
        job.ranks[i].host = host_of[i];
        job.ranks[i].remote = !job.hosts.hosts[host_of[i]].local;
        job.nremote += job.ranks[i].remote;
    }
    if (MPIEXEC_process_mapping(&job.hosts, host_of, o->n, job.mapping, sizeof(job.mapping)) != 0)
        job.mapping[0] = '\0';
    free(host_of);
    if (job.nremote == 0)
        return 0;

    const char *cmd = o->launcher_exec;
    if (!cmd) {
        if (o->launcher && strcmp(o->launcher, "exec") == 0) {
            fprintf(stderr, "mpiexec: -launcher exec needs -launcher-exec CMD (for example "
                            "\"ip netns exec\")\n");
            return -1;
        }
        cmd = o->launcher && strcmp(o->launcher, "rsh") == 0 ? "rsh" : "ssh";
    }
    if (o->launcher)
        o->style = strcmp(o->launcher, "exec") == 0 ? MPIEXEC_LAUNCH_EXEC : MPIEXEC_LAUNCH_SSH;
    else
        o->style = MPIEXEC_launch_style_of(cmd);
    o->lwords = MPIEXEC_split_words(cmd, &o->nlwords);
    if (!o->lwords || o->nlwords == 0) {
        fprintf(stderr, "mpiexec: -launcher-exec '%s': no command\n", cmd);
        return -1;
    }
    return 0;
}