/* mpiexec_spawn.c: starting ranks: placement on hosts, the rank's environment, posix_spawn here
 * or through the launcher command on another host. */
#include "mpiexec.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <spawn.h>
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

/* Whether two environment entries ("NAME=value") name the same variable. */
static int same_name(const char *a, const char *b)
{
    size_t n = strcspn(a, "=");
    return strncmp(a, b, n) == 0 && (b[n] == '=' || b[n] == '\0');
}

static void free_env(char **env)
{
    if (env)
        for (char **e = env; *e; e++)
            free(*e);
    free(env);
}

/* The environment of local rank `rank`: ours without PMI_PORT and PMI_ID
 * (inherited from an outer launcher, they would make the client connect
 * there), with the PMI variables, then -genv's, then the section's -env's
 * (a later setting of a name wins).  Built here: posix_spawn's child shares
 * our memory until it execs, so it may not allocate. */
static char **rank_env(int rank, int pmi_fd, const MPIEXEC_app_t *app, const opts_t *o)
{
    int nset = 6 + o->ngenv / 2 + app->nenv / 2, nenv = 0;
    for (char **e = environ; *e; e++)
        nenv++;
    char **set = calloc((size_t)nset + 1, sizeof(char *));
    char **env = calloc((size_t)(nenv + nset) + 1, sizeof(char *));
    int k = 0, n = 0;
    if (!set || !env)
        goto fn_fail;
    const struct {
        const char *name;
        int value;
    } pmi[] = {{"PMI_FD", pmi_fd},
               {"PMI_RANK", rank},
               {"MPI_LOCALRANKID", job.local_index[rank]},
               {"PMI_SIZE", job.size},
               {"MPI_LOCALNRANKS", MPIEXEC_node_nranks(rank)},
               {"PMI_SPAWNED", 0}};
    for (size_t i = 0; i < sizeof(pmi) / sizeof(pmi[0]); i++)
        if (asprintf(&set[k++], "%s=%d", pmi[i].name, pmi[i].value) < 0)
            goto fn_fail_set;
    for (int i = 0; i < o->ngenv; i += 2)
        if (asprintf(&set[k++], "%s=%s", o->genv[i], o->genv[i + 1]) < 0)
            goto fn_fail_set;
    for (int i = 0; i < app->nenv; i += 2)
        if (asprintf(&set[k++], "%s=%s", app->env[i], app->env[i + 1]) < 0)
            goto fn_fail_set;
    for (char **e = environ; *e; e++) {
        int drop = same_name("PMI_PORT", *e) || same_name("PMI_ID", *e);
        for (int i = 0; i < k && !drop; i++)
            drop = same_name(set[i], *e);
        if (!drop && !(env[n++] = strdup(*e)))
            goto fn_fail;
    }
    for (int i = 0; i < k; i++) {
        int later = 0;
        for (int j = i + 1; j < k && !later; j++)
            later = same_name(set[i], set[j]);
        if (later) {
            free(set[i]);
        } else {
            env[n++] = set[i];
        }
        set[i] = NULL;
    }
    free(set);
    return env;

fn_fail_set:
    set[k - 1] = NULL; /* asprintf leaves it undefined when it fails */
fn_fail:
    free_env(set);
    free_env(env);
    errno = ENOMEM;
    return NULL;
}

/* What the child does before it execs, as posix_spawn's attributes and
 * file actions: its own session, and so its own process group (kill(-pid)
 * then reaches whatever the rank starts; the session matters as much: the
 * kernel's autogroup scheduling shares the CPU between sessions, so ranks
 * left in ours would share one slice of a busy machine between all of them,
 * and 256 ranks started 2 to 3 times slower than under Hydra, which also
 * gives each rank its own session); default handlers for the signals we
 * catch or ignore (ignored ones stay ignored across exec) and no blocked
 * signal; stdout and stderr into our pipes; stdin from /dev/null except
 * for rank 0 when ours is not a terminal (a rank outside the foreground
 * process group would be stopped by SIGTTIN); the section's -wdir.
 * posix_spawn rather than fork: its child shares our memory until exec
 * (glibc's clone with CLONE_VM|CLONE_VFORK), so no page table is copied
 * and no page of ours is faulted in again, which on this VM halved the CPU
 * time of starting 256 processes. */
static int spawn_setup(int rank, int out_w, int err_w, const char *wdir, posix_spawnattr_t *attr,
                       posix_spawn_file_actions_t *fa)
{
    static const int sigs[] = {SIGPIPE, SIGINT,  SIGTERM, SIGHUP,
                               SIGCHLD, SIGQUIT, SIGUSR1, SIGUSR2};
    sigset_t none, dfl;
    int err;

    sigemptyset(&none);
    sigemptyset(&dfl);
    for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
        sigaddset(&dfl, sigs[i]);
    if ((err = posix_spawnattr_init(attr)))
        return err;
    if ((err = posix_spawn_file_actions_init(fa))) {
        posix_spawnattr_destroy(attr);
        return err;
    }
    if ((err = posix_spawnattr_setflags(attr, POSIX_SPAWN_SETSID | POSIX_SPAWN_SETSIGDEF |
                                                  POSIX_SPAWN_SETSIGMASK)) ||
        (err = posix_spawnattr_setsigdefault(attr, &dfl)) ||
        (err = posix_spawnattr_setsigmask(attr, &none)) ||
        (err = posix_spawn_file_actions_adddup2(fa, out_w, 1)) ||
        (err = posix_spawn_file_actions_adddup2(fa, err_w, 2)) ||
        ((rank != 0 || isatty(0)) &&
         (err = posix_spawn_file_actions_addopen(fa, 0, "/dev/null", O_RDONLY, 0))) ||
        (wdir && (err = posix_spawn_file_actions_addchdir_np(fa, wdir)))) {
        posix_spawn_file_actions_destroy(fa);
        posix_spawnattr_destroy(attr);
    }
    return err;
}

/* Starts a local rank (with PMI_FD) or, for a remote one, the launcher
 * command (remote_argv).  Returns 0 or an errno value, after saying why. */
static int start_child(int rank, int pmi_fd, int out_w, int err_w, const opts_t *o,
                       char **remote_argv, pid_t *pid_p)
{
    const MPIEXEC_app_t *app = &o->apps[job.ranks[rank].app];
    const char *wdir = remote_argv ? NULL : app->wdir;
    posix_spawnattr_t attr;
    posix_spawn_file_actions_t fa;
    char **env = NULL;
    int err = spawn_setup(rank, out_w, err_w, wdir, &attr, &fa);
    if (err) {
        fprintf(stderr, "mpiexec: rank %d: setting up its start: %s (errno %d)\n", rank,
                strerror(err), err);
        return err;
    }
    if (remote_argv) {
        err = posix_spawnp(pid_p, remote_argv[0], &fa, &attr, remote_argv, environ);
        if (err)
            fprintf(stderr, "mpiexec: rank %d: exec of the launcher command %s: %s (errno %d)\n",
                    rank, remote_argv[0], strerror(err), err);
        goto fn_exit;
    }
    if (!(env = rank_env(rank, pmi_fd, app, o))) {
        err = errno;
        fprintf(stderr, "mpiexec: rank %d: out of memory for its environment\n", rank);
        goto fn_exit;
    }
    /* Every other fd of ours is close-on-exec; this one must survive (we
     * close our copy right after, so no later rank inherits it). */
    fcntl(pmi_fd, F_SETFD, 0);
    MPIEXEC_bind_before_spawn(rank);
    err = posix_spawn(pid_p, app->path, &fa, &attr, app->argv, env);
    MPIEXEC_bind_after_spawn(rank);
    if (err) {
        struct stat sb;
        if (wdir && (stat(wdir, &sb) != 0 || !S_ISDIR(sb.st_mode) || access(wdir, X_OK) != 0))
            fprintf(stderr, "mpiexec: rank %d: -wdir %s: %s (errno %d)\n", rank, wdir,
                    strerror(err), err);
        else
            fprintf(stderr, "mpiexec: rank %d: exec %s: %s (errno %d)\n", rank, app->path,
                    strerror(err), err);
    }
fn_exit:
    free_env(env);
    posix_spawn_file_actions_destroy(&fa);
    posix_spawnattr_destroy(&attr);
    return err;
}

static void set_nonblock(int fd)
{
    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
}

int MPIEXEC_spawn_rank(int rank, const opts_t *o)
{
    rank_t *r = &job.ranks[rank];
    int sv[2] = {-1, -1}, out[2], err[2], said = 0;
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

    /* Blocked until the rank is counted, so our SIGCHLD handler cannot
     * see a child that is not in the job yet. */
    sigfillset(&all);
    sigprocmask(SIG_SETMASK, &all, &old);
    pid_t pid = -1;
    int spawn_err = start_child(rank, sv[1], out[1], err[1], o, rargv, &pid);
    if (!spawn_err) {
        /* No setpgid from here: it would make the child a group leader,
         * which setsid refuses.  A kill before the child's setsid goes to
         * the pid instead (MPIEXEC_send_term). */
        r->pid = pid;
        job.nlive++;
    }
    sigprocmask(SIG_SETMASK, &old, NULL);
    if (spawn_err)
        goto fn_fail_spawn;

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

fn_fail_spawn:
    said = 1; /* start_child said why */
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
    if (!said)
        fprintf(stderr, "mpiexec: starting rank %d of %d: %s (errno %d)\n", rank, o->n,
                strerror(errno), errno);
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