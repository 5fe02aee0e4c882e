/* pmi_wire.h: PMI-1 wire format, parsing and formatting lines, line I/O on fds. */
#ifndef PMI_WIRE_H_INCLUDED
#define PMI_WIRE_H_INCLUDED

#include <stddef.h>

/* The longest line, newline included, that any PMI-1 peer must accept; MPICH,
 * Hydra and Slurm all use 1024, so a longer line would be cut by one of them. */
#define PMIU_MAXLINE 1024
/* No PMI-1 command has more than a handful of keys; a line cannot hold more
 * than MAXLINE/4 ("k=v " each) pairs anyway, this bound just keeps it small. */
#define PMIU_MAXPAIRS 64

/* The job's secret (doc/security.md).  Our mpiexec answers a get of
 * PMIU_SECRET_KEY (keys starting with PMI_ are the server's) with it and
 * refuses puts of it; another process manager answers "not found", and then
 * rank 0 draws one and puts it under PMIU_SECRET_KV_KEY (a key of rank 0's,
 * P<rank>-<name>, as PMIx requires).  Traces (-v, PMI_DEBUG) never show the
 * value of either. */
#define PMIU_SECRET_KEY "PMI_ferry_job_secret"
#define PMIU_SECRET_KV_KEY "P0-job-secret"

/* Status codes of the line reader. */
#define PMIU_LINE_OK 1         /* a complete line was returned */
#define PMIU_LINE_NONE 0       /* no complete line buffered yet (or EOF on a blocking read) */
#define PMIU_LINE_ERROR (-1)   /* read() failed; errno and PMIU_last_error() say why */
#define PMIU_LINE_TOOLONG (-2) /* a line exceeded PMIU_MAXLINE; it is skipped up to its newline */

typedef struct PMIU_pair {
    const char *key;
    const char *value;
} PMIU_pair_t;

/* A parsed line: the pairs point into buf, so the cmd_t owns its strings. */
typedef struct PMIU_cmd {
    char buf[PMIU_MAXLINE + 1];
    int npairs;
    PMIU_pair_t pairs[PMIU_MAXPAIRS];
} PMIU_cmd_t;

/* A line being built; an error in any add sticks and is reported by finish. */
typedef struct PMIU_msg {
    char line[PMIU_MAXLINE + 1];
    size_t len;
    int failed;
} PMIU_msg_t;

/* Per-connection input buffer: one read() may bring several lines, or half of one. */
typedef struct PMIU_reader {
    int fd;
    int discarding; /* inside an overlong line: drop bytes up to the next newline */
    size_t len;
    char buf[PMIU_MAXLINE * 2];
} PMIU_reader_t;

/* Splits one line (len bytes, a trailing newline is optional) into key=value
 * pairs. Keys may come in any order and be separated by any run of spaces or
 * tabs. A bare word without '=' continues the previous value (some servers put
 * spaces in msg=). Returns 0, or -1 with PMIU_last_error() set. */
int PMIU_parse(const char *line, size_t len, PMIU_cmd_t *cmd_p);
/* The value of key, or NULL; with repeated keys the first one wins. */
const char *PMIU_get(const PMIU_cmd_t *cmd, const char *key);
/* Parses key's value as a decimal int; -1 if missing or not a number. */
int PMIU_get_int(const PMIU_cmd_t *cmd, const char *key, int *value_p);
/* Checks a reply: cmd= must equal expected_cmd and rc (if present) must be 0.
 * Returns 0, else -1 with PMIU_last_error() holding the server's msg= or the
 * mismatch. */
int PMIU_check_reply(const PMIU_cmd_t *cmd, const char *expected_cmd);

/* Whether a key or value can go on the wire: a key is non-empty and has no
 * '='; neither may hold spaces, tabs or newlines, which delimit the line. */
int PMIU_key_ok(const char *key);
int PMIU_value_ok(const char *value);

void PMIU_msg_start(PMIU_msg_t *msg, const char *cmd);
void PMIU_msg_add(PMIU_msg_t *msg, const char *key, const char *value);
void PMIU_msg_add_int(PMIU_msg_t *msg, const char *key, long value);
/* Appends the newline; returns the line length, or -1 (PMIU_last_error() says
 * which key or value was rejected) if any add failed. */
int PMIU_msg_finish(PMIU_msg_t *msg);
/* Formats npairs pairs as one newline-terminated line into buf; returns the
 * length or -1 if a key/value is not wire-safe or the line is too long. */
int PMIU_format(char *buf, size_t size, const PMIU_pair_t *pairs, int npairs);

void PMIU_reader_init(PMIU_reader_t *r, int fd);
/* Takes the next complete line out of the buffer without reading: returns
 * PMIU_LINE_OK (line NUL-terminated, newline stripped, *len_p set),
 * PMIU_LINE_NONE or PMIU_LINE_TOOLONG. line must hold PMIU_MAXLINE + 1 bytes. */
int PMIU_reader_next(PMIU_reader_t *r, char *line, size_t *len_p);
/* One read() into the buffer, retried on EINTR: bytes read, 0 on EOF, -1 on
 * error (errno kept; EAGAIN for a non-blocking fd with nothing to read). */
long PMIU_reader_fill(PMIU_reader_t *r);
/* Blocking: the next complete line (PMIU_LINE_OK), PMIU_LINE_NONE on EOF,
 * PMIU_LINE_ERROR or PMIU_LINE_TOOLONG. */
int PMIU_readline(PMIU_reader_t *r, char *line, size_t *len_p);
/* Writes all len bytes, retrying partial writes and EINTR; 0 or -1. A
 * non-blocking fd that stays full is waited for with poll(). */
int PMIU_writeall(int fd, const char *buf, size_t len);

/* Parses MPICH's PMI_process_mapping value "(vector,(start,nodes,ppn),...)"
 * into node_of[0..size): blocks of ppn consecutive ranks on nodes start,
 * start+1, ..., the blocks repeating until every rank is placed.  Node ids
 * must come out dense (0 .. nnodes-1, each with ranks).  Returns 0 (and
 * *nnodes_p if not NULL), or -1 with PMIU_last_error() saying why. */
int PMIU_parse_process_mapping(const char *value, int size, int *node_of, int *nnodes_p);

/* Error text of the last failed PMIU_ or PMI_ call in this process. */
void PMIU_set_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
const char *PMIU_last_error(void);

#endif /* PMI_WIRE_H_INCLUDED */
