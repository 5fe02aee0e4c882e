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

/* Whether any rank of section k is started here (needs the program here). */
static int app_has_local_rank(const opts_t *o, int k)
{
    for (int i = 0; i < o->apps[k].n; i++)
        if (!job.ranks[o->apps[k].first_rank + i].remote)
            return 1;
    return 0;
}

int MPIEXEC_resolve_apps(opts_t *o)
{
    for (int k = 0; k < o->napps; k++) {
        MPIEXEC_app_t *app = &o->apps[k];
        const char *prog = app->argv[0];
        char *joined = NULL;
        struct stat st;

        errno = 0;
        /* Only a rank started here needs the program here; a remote host
         * finds it itself (the launcher's command fails clearly if not). */
        if (!app_has_local_rank(o, k))
            continue;
        if (app->wdir) {
            if (stat(app->wdir, &st) != 0 || !S_ISDIR(st.st_mode)) {
                fprintf(stderr, "mpiexec: -wdir %s: %s\n", app->wdir,
                        errno == 0 ? "not a directory" : strerror(errno));
                return EXIT_USAGE;
            }
            /* The rank changes there before exec: a relative program path
             * is relative to it. */
            if (strchr(prog, '/') && prog[0] != '/') {
                if (asprintf(&joined, "%s/%s", app->wdir, prog) < 0)
                    return EXIT_USAGE;
                prog = joined;
            }
        }
        app->path = MPIEXEC_find_program(prog);
        free(joined);
        if (app->path == NULL)
            return EXIT_NOT_FOUND;
        if (app->wdir && app->path[0] != '/') {
            char cwd[PATH_MAX], *abs;
            if (!getcwd(cwd, sizeof(cwd)) || asprintf(&abs, "%s/%s", cwd, app->path) < 0) {
                fprintf(stderr, "mpiexec: cannot find the current directory: %s\n",
                        strerror(errno));
                return EXIT_USAGE;
            }
            free(app->path);
            app->path = abs;
        }
    }
    return 0;
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

int MPIEXEC_node_nranks(int rank)
{
    /* Counted once: asked for every rank, a count per call would be N^2. */
    static int *per_node;
    if (per_node == NULL) {
        per_node = calloc((size_t)job.hosts.nnodes + 1, sizeof(int));
        if (per_node == NULL)
            return 0;
        for (int q = 0; q < job.size; q++)
            per_node[job.hosts.hosts[job.ranks[q].host].node_id]++;
    }
    return per_node[job.hosts.hosts[job.ranks[rank].host].node_id];
}

/* In the forked child: a local rank gets PMI_FD and execs the program; a
 * remote one execs the launcher command (remote_argv). */
static void child_exec(int rank, int pmi_fd, int out_w, int err_w, const opts_t *o,
                       char **remote_argv)
{
    const MPIEXEC_app_t *app = &o->apps[job.ranks[rank].app];
    char num[32];
    sigset_t none;
    static const int sigs[] = {SIGPIPE, SIGINT,  SIGTERM, SIGHUP,
                               SIGCHLD, SIGQUIT, SIGUSR1, SIGUSR2};

    /* Own session, and so own process group: kill(-pid) then reaches
     * whatever the rank starts.  The session matters as much: the kernel's
     * autogroup scheduling shares the CPU between sessions, so ranks left in
     * ours would share one slice of a busy machine between all of them
     * (256 ranks started 2 to 3 times slower than under Hydra, which also
     * gives each rank its own session). */
    setsid();
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
    snprintf(num, sizeof(num), "%d", job.size);
    setenv("PMI_SIZE", num, 1);
    snprintf(num, sizeof(num), "%d", MPIEXEC_node_nranks(rank));
    setenv("MPI_LOCALNRANKS", num, 1);
    setenv("PMI_SPAWNED", "0", 1);
    /* Inherited from an outer launcher, these would make the client connect there. */
    unsetenv("PMI_PORT");
    unsetenv("PMI_ID");
    for (int i = 0; i < o->ngenv; i += 2)
        setenv(o->genv[i], o->genv[i + 1], 1);
    for (int i = 0; i < app->nenv; i += 2)
        setenv(app->env[i], app->env[i + 1], 1);
    if (app->wdir && chdir(app->wdir) != 0) {
        fprintf(stderr, "mpiexec: rank %d: -wdir %s: %s (errno %d)\n", rank, app->wdir,
                strerror(errno), errno);
        _exit(EXIT_NOT_FOUND);
    }
    MPIEXEC_bind_child(rank);

    execv(app->path, app->argv);
    fprintf(stderr, "mpiexec: rank %d: exec %s: %s (errno %d)\n", rank, app->path, strerror(errno),
            errno);
    _exit(EXIT_NOT_FOUND);
}

static void set_nonblock(int fd)
{
    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
}

int MPIEXEC_spawn_rank(int rank, const opts_t *o)
{
    rank_t *r = &job.ranks[rank];
    int sv[2] = {-1, -1}, out[2], err[2];
    sigset_t all, old;
    char **rargv = NULL;

    if (r->remote) {
        /* Remote: the launcher command's output is the rank's; PMI comes by TCP. */
        if (!(rargv = MPIEXEC_remote_argv(rank, o)))
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
        child_exec(rank, sv[1], out[1], err[1], o, rargv);
    int fork_errno = errno;
    if (pid > 0) {
        /* No setpgid from here: it would make the child a group leader,
         * which setsid refuses.  A kill before the child's setsid goes to
         * the pid instead (MPIEXEC_send_term). */
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
    if (given && o->napps == 1 && !o->apps[0].n_given) {
        long total = 0;
        for (int i = 0; i < job.hosts.nhosts; i++)
            total += MPIEXEC_hosts_slots(&job.hosts.hosts[i], o->ppn);
        o->n = o->apps[0].n = total > MAX_RANKS ? MAX_RANKS : (int)total;
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
    for (int k = 0; k < o->napps; k++)
        for (int i = 0; i < o->apps[k].n; i++)
            job.ranks[o->apps[k].first_rank + i].app = k;
    for (int i = 0; i < o->n; i++) {
        job.ranks[i].host = host_of[i];
        job.ranks[i].remote = !job.hosts.hosts[host_of[i]].local;
        job.nremote += job.ranks[i].remote;
    }
    if (MPIEXEC_process_mapping(&job.hosts, host_of, o->n, job.mapping, sizeof(job.mapping)) != 0)
        job.mapping[0] = '\0';
    /* Counts ranks per node now, in the parent: each forked child would
     * otherwise count them again for its MPI_LOCALNRANKS. */
    MPIEXEC_node_nranks(0);
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