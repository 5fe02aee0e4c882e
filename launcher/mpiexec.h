/* mpiexec.h: what mpiexec's parts share: the job and rank state, options, and each part's entry
 * points (key-value space, PMI service, PMI_PORT server, output, spawning, rank exits). */
#ifndef MPIEXEC_H_INCLUDED
#define MPIEXEC_H_INCLUDED

#include "mpiexec_hosts.h"
#include "pmi_wire.h"

#include <stdio.h>
#include <sys/types.h>

/* Three fds per rank (PMI socket, stdout, stderr) must fit the fd limit;
 * beyond this a single node is oversubscribed past any use anyway. */
#define MAX_RANKS 4096
/* What get_maxes announces: Hydra's values, so programs tuned to Hydra fit. */
#define KVSNAME_MAX 256
#define KEYLEN_MAX 64
#define VALLEN_MAX 1024
/* Output is forwarded by whole lines so ranks' lines do not interleave; a
 * partial line is still flushed after this long, or when the buffer fills. */
#define PARTIAL_LINE_MS 100
#define OUTBUF_SIZE 65536
/* PMI replies waiting for a rank's socket.  PMI-1 is lock step: an honest
 * client has one reply outstanding (four after initack), a few hundred
 * bytes.  A rank with this much unread has stopped reading while it keeps
 * asking; it is reported and the job ended, rather than mpiexec blocking
 * on it or holding its replies without bound. */
#define PMI_OUTQ_MAX 65536
/* The job's secret (doc/security.md): 256 random bits, handed to ranks only
 * over their authenticated PMI connection.  A remote rank's PMI_PORT token:
 * 128 random bits. */
#define MPIEXEC_SECRET_BYTES 32
#define MPIEXEC_TOKEN_BYTES 16
/* A PMI_PORT connection must say which rank it is within this long (seconds;
 * MPIEXEC_PORT_TIMEOUT overrides it).  A rank sends its initack as soon as
 * it is connected, so a connection still silent then is not a rank's. */
#define PORT_IDENTIFY_S 10

enum { EXIT_USAGE = 1, EXIT_NOT_FOUND = 127, EXIT_TIMEOUT = 124 };

/* Why the job is being killed; a higher value decides the exit code. */
enum kill_reason { REASON_NONE, REASON_RANK, REASON_ABORT, REASON_TIMEOUT, REASON_SIGNAL };

typedef struct stream {
    int fd;          /* read end of the rank's stdout or stderr pipe; -1 after EOF */
    int dest;        /* 1 or 2 */
    size_t len;      /* bytes buffered: a partial line */
    long long since; /* when the buffered partial line arrived */
    char *buf;
    int rank;    /* whose output it is, for -l */
    int midline; /* a partial line was written: no -l prefix before the rest */
} stream_t;

typedef struct rank {
    pid_t pid;  /* the rank, or for a remote rank the launcher command that started it */
    int host;   /* index in job.hosts (0 when no host list was given) */
    int remote; /* started by the launcher command; PMI comes over TCP (PMI_PORT) */
    int pmi_fd; /* our end of the socketpair; -1 once closed */
    PMIU_reader_t reader;
    char *outq; /* PMI replies not yet taken by the socket */
    size_t outq_len, outq_cap;
    char token[2 * MPIEXEC_TOKEN_BYTES + 1]; /* remote rank: its PMI_ID proves it (hex) */
    stream_t streams[2];
    int initialized;
    int finalized;
    int in_barrier;
    int in_mcmd; /* inside a multi-line mcmd=spawn ... endcmd request */
    int app;     /* its MPMD section: MPI_APPNUM */
    int reaped;
    int status;
    int killed_by_us; /* died of a signal after we sent SIGTERM/SIGKILL */
    int aborted_after; /* aborted after another rank had failed: its code is not the job's */
} rank_t;

/* An accepted PMI_PORT connection that has not yet said which rank it is. */
typedef struct MPIEXEC_pending {
    int fd;
    PMIU_reader_t reader;
    long long deadline; /* closed unidentified at this time (ms) */
    char from[80];      /* the connecting address, for messages */
} MPIEXEC_pending_t;

/* One MPMD section of the command line (`-n N [-env K V] [-wdir D] program args`, sections
 * separated by ':'); its ranks are consecutive and get its index as MPI_APPNUM. */
typedef struct MPIEXEC_app {
    int n;
    int n_given;    /* -n was given for this section */
    int first_rank; /* its ranks are first_rank .. first_rank + n - 1 */
    char **argv;    /* program and arguments, NULL-terminated */
    char **env;     /* -env name, value pairs */
    int nenv;
    const char *wdir; /* -wdir, else -gwdir, else NULL: mpiexec's directory */
    char *path;       /* the program resolved for ranks started here, or NULL */
} MPIEXEC_app_t;

/* How each rank started here is bound to CPUs (-bind-to). */
typedef enum { MPIEXEC_BIND_NONE, MPIEXEC_BIND_CORE } MPIEXEC_bind_t;

typedef struct opts {
    int n;   /* ranks in all sections */
    int ppn; /* 0: each host's slot count */
    MPIEXEC_app_t *apps;
    int napps;
    char **genv; /* -genv name, value pairs */
    int ngenv;
    const char *gwdir;         /* -gwdir: every section's default -wdir */
    MPIEXEC_bind_t bind;       /* -bind-to */
    const char *launcher;      /* -launcher: "ssh", "exec" or NULL (from the command's name) */
    const char *launcher_exec; /* -launcher-exec; NULL: ssh */
    const char *localhost;     /* -localhost */
    MPIEXEC_launch_style_t style;
    char **lwords; /* the launcher command split into words */
    int nlwords;
} opts_t;

typedef struct MPIEXEC_job {
    int size;
    rank_t *ranks;
    int nlive;    /* forked and not yet reaped */
    int nbarrier; /* ranks inside the current barrier */
    int verbose;
    int prepend_rank; /* -l: "[rank] " before every output line */
    char kvsname[64];

    enum kill_reason reason;
    int reason_code;
    int term_sent;
    int kill_sent;
    int passed_signal;   /* the signal of ours passed on to the ranks (SIGINT, ...), or 0 */
    int first_signal;    /* the first signal a rank died of, not one of our kills; or 0 */
    long long term_at;   /* when to send SIGTERM; 0: not scheduled */
    long long kill_at;   /* when to send SIGKILL */
    long long giveup_at; /* when to stop waiting for held pipes */
    long long timeout_at;
    int timeout_sec;
    int port_timeout_sec; /* MPIEXEC_PORT_TIMEOUT */
    long long leftover_at;

    /* Multi-host jobs (mpiexec_hosts.c). */
    MPIEXEC_hosts_t hosts;
    int *local_index; /* each rank's index among the ranks of its node */
    int nremote;
    int disable_cleanup;          /* -disable-auto-cleanup: a failing rank does not end the job */
    int listen_fd;                /* PMI_PORT server for remote ranks; -1 if none */
    char pmi_port[300];           /* what remote ranks get as PMI_PORT */
    char mapping[VALLEN_MAX + 1]; /* PMI_process_mapping, or "" */
    MPIEXEC_pending_t *pending;   /* accepted PMI connections that have not said who they are */
    int npending;
    int nremote_in; /* remote ranks whose PMI connection is in: at nremote, stop listening */
    long long accept_resume_at; /* accept ran out of descriptors: listen again then (ms) */
    long accept_pause_ms;
    unsigned long nrefused; /* PMI_PORT connections refused or timed out */

    char secret_hex[2 * MPIEXEC_SECRET_BYTES + 1];
} MPIEXEC_job_t;

/* The one job this process runs (mpiexec.c); a program's global, not a library symbol. */
extern MPIEXEC_job_t job;

long long MPIEXEC_now_ms(void);

/* ---- argument parsing (mpiexec_args.c) ---- */
void MPIEXEC_usage(FILE *f);
/* Fills o from the command line; -1 after a message on stderr. */
int MPIEXEC_parse_args(int argc, char **argv, opts_t *o);
/* MPIEXEC_TIMEOUT and MPIEXEC_PORT_TIMEOUT into job.timeout_sec and
 * job.port_timeout_sec; -1 after a message if one is not a positive integer. */
int MPIEXEC_parse_timeout(void);

/* ---- key-value space (mpiexec_kvs.c) ---- */
/* Stores a copy; a repeated key replaces its value.  -1 when out of memory. */
int MPIEXEC_kvs_put(const char *key, const char *value);
/* The value put under key, or NULL. */
const char *MPIEXEC_kvs_get(const char *key);

/* ---- the job's secret and PMI_PORT tokens (mpiexec_auth.c) ---- */
/* Draws the secret and every remote rank's token; -1 after a message. */
int MPIEXEC_auth_init(void);
/* Compares two strings in time that does not depend on where they differ. */
int MPIEXEC_auth_equal(const char *a, const char *b);

/* ---- PMI service (mpiexec_pmi.c) ---- */
/* Sends one reply line to rank r (traced with -v), or queues what the socket
 * does not take now; never blocks.  A rank that lets PMI_OUTQ_MAX bytes pile
 * up is reported and the job killed. */
void MPIEXEC_pmi_reply(rank_t *r, PMIU_msg_t *msg);
/* Writes queued replies when the socket is writable. */
void MPIEXEC_pmi_flush(rank_t *r);
/* Reads what the socket holds and serves each complete line; returns what
 * the read gave: bytes, 0 at EOF (fd closed), -1 with errno (EAGAIN: drained). */
long MPIEXEC_pmi_input(rank_t *r);
void MPIEXEC_pmi_close(rank_t *r);

/* ---- PMI_PORT server for remote ranks (mpiexec_port.c) ---- */
/* The most accepted connections that may wait to identify themselves. */
int MPIEXEC_port_pending_max(void);
int MPIEXEC_port_open(const opts_t *o);
void MPIEXEC_port_accept(void);
void MPIEXEC_port_input(MPIEXEC_pending_t *pc);
/* Closes pending connections past their deadline and ends an accept pause;
 * returns when it next needs to run (ms), or -1. */
long long MPIEXEC_port_timers(long long now);

/* ---- output forwarding (mpiexec_output.c) ---- */
void MPIEXEC_stream_read(rank_t *r, stream_t *s, long long now);
/* Closes the pipe and writes whatever is buffered, now. */
void MPIEXEC_stream_close(stream_t *s);
/* Whether the pipe should be polled: open, with room in the buffer. */
int MPIEXEC_stream_wants_input(const stream_t *s);
/* Whether any rank's stdout or stderr pipe is still open. */
int MPIEXEC_outputs_open(void);
/* Whether any output is still to come or to be written. */
int MPIEXEC_output_pending(void);
/* Writes the buffered output that may go now (partial lines older than
 * PARTIAL_LINE_MS, lines that waited for another rank's line); returns when
 * the next falls due, or -1 if nothing is buffered. */
long long MPIEXEC_output_flush_due(long long now);

/* ---- spawning (mpiexec_spawn.c) ---- */
/* Resolves prog like execvp would, so a typo fails before any rank starts. */
char *MPIEXEC_find_program(const char *prog);
/* Checks each section's -wdir and finds its program for the ranks started
 * here; 0, or the exit code after a message. */
int MPIEXEC_resolve_apps(opts_t *o);
int MPIEXEC_check_fd_limit(int n);
/* Hosts and placement: fills job.size, job.ranks, job.local_index, job.mapping
 * and the launcher command for remote ranks. */
int MPIEXEC_setup_hosts(opts_t *o);
int MPIEXEC_spawn_rank(int rank, const opts_t *o);
/* Ranks on the node of rank (for MPI_LOCALNRANKS). */
int MPIEXEC_node_nranks(int rank);
/* The launcher command that starts a remote rank (mpiexec_remote.c); NULL-terminated,
 * malloc'ed words, or NULL after a message. */
char **MPIEXEC_remote_argv(int rank, const opts_t *o);

/* ---- -bind-to (mpiexec_bind.c) ---- */
/* Assigns a core to each rank started here; -1 after a message. */
int MPIEXEC_bind_plan(const opts_t *o);
/* Around the spawn of rank: binds mpiexec to its core, if it has one, and
 * back to its own CPUs after (the child inherits the mask). */
void MPIEXEC_bind_before_spawn(int rank);
void MPIEXEC_bind_after_spawn(int rank);

/* ---- killing and rank exits (mpiexec_exit.c) ---- */
/* SIGTERM to every rank's process group now, SIGKILL scheduled TERM_TO_KILL_MS later. */
void MPIEXEC_send_term(long long now);
/* A signal mpiexec received, passed on to the ranks: SIGUSR1/SIGUSR2 to each
 * rank; SIGINT, SIGTERM, SIGHUP to each rank's process group, ending the job. */
void MPIEXEC_pass_signal(int signo, long long now);
/* SIGKILL to every rank's process group now. */
void MPIEXEC_send_kill(long long now);
/* Schedules killing of the whole job in delay_ms; reason and code decide the exit code. */
void MPIEXEC_kill_job(enum kill_reason reason, int code, long long delay_ms);
/* Collects exited ranks and reports them. */
void MPIEXEC_reap(void);
/* Ends the job if ranks wait in a barrier an exited rank can never enter. */
void MPIEXEC_check_barrier(void);
/* mpiexec's exit status from the ranks' statuses and the kill reason. */
int MPIEXEC_exit_code(void);

#endif /* MPIEXEC_H_INCLUDED */
