/* config.c: the one registry of FERRY_ environment variables: defaults, ranges, checks. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "mpi.h"
#include "mpidi_config.h"
#include "method.h"
#include "adi_impl.h"

/* Short names for the table. */
#define CFG_INT MPIDI_CONFIG_INT
#define CFG_SIZE MPIDI_CONFIG_SIZE
#define CFG_BOOL MPIDI_CONFIG_BOOL
#define CFG_ENUM MPIDI_CONFIG_ENUM
#define CFG_STR MPIDI_CONFIG_STR

typedef struct cfg_var {
    const char *name;
    MPIDI_config_kind_t kind;
    const char *defval;
    long min, max;       /* for CFG_INT and CFG_SIZE */
    const char *choices; /* for CFG_ENUM: '|'-separated; the value is the index */
    const char *doc;     /* one line; doc/tuning.md has the long form */
    long ival;
    const char *sval;
    char *written; /* a string MPI_T wrote, which sval points to */
    int is_set;
    int bad;     /* the environment's value was refused: MPI_Init fails */
    int by_tool; /* the value was written through MPI_T: the environment's no longer counts */
} cfg_var_t;

#define SIZE_MAX_CFG (1L << 40)

/* Every variable Ferry reads (the value fields are filled by MPIDI_config_init).  Keep
 * doc/tuning.md in step with this table. */
static cfg_var_t vars[] = {
    {"FERRY_EAGER_LIMIT", CFG_SIZE, "-1", -1, SIZE_MAX_CFG, NULL,
     "largest message sent eagerly, all methods (-1: each method's own limit)"},
    {"FERRY_RNDV_PROTOCOL", CFG_ENUM, "auto", 0, 0, MPIDI_RNDV_WANT_NAMES,
     "rendezvous data mover; a mode the method lacks falls back to pipeline"},
    {"FERRY_RNDV_BOUNCE_CHUNK", CFG_SIZE, "262144", 4096, 1L << 30, NULL,
     "bytes per registered bounce slot of a noncontiguous rendezvous read"},
    {"FERRY_RNDV_BOUNCE_SLOTS", CFG_INT, "4", 1, 8, NULL,
     "bounce slots read at once (one is unpacked while the others are read)"},
    {"FERRY_UNEXP_LIMIT", CFG_SIZE, "-1", -1, SIZE_MAX_CFG, NULL,
     "eager data kept for receives not yet posted beyond which senders are asked for "
     "rendezvous only (-1: half the node's memory over its ranks; 0: no limit)"},
    {"FERRY_PIPELINE_CHUNK", CFG_SIZE, "0", 0, SIZE_MAX_CFG, NULL,
     "bytes per pipeline DATA message (0: the method's max_send)"},
    {"FERRY_METHODS", CFG_STR, "", 0, 0, NULL,
     "comma-separated methods to use, in order of preference (empty: the built ones "
     "the job can use, doc/tuning.md)"},
    {"FERRY_ASYNC_PROGRESS", CFG_INT, "0", 0, 1000000, NULL,
     "microseconds between the polls of a progress thread that runs while no thread of the "
     "program is in MPI (0: no such thread)"},
    {"FERRY_POLL_SPINS", CFG_INT, "-1", -1, INT_MAX, NULL,
     "idle polls before a blocking wait yields the CPU (-1: 2000, or 0 when oversubscribed)"},
    {"FERRY_VERBOSE", CFG_INT, "0", 0, 3, NULL,
     "1: method choices and counters, 2: connections, 3: the protocol of every rendezvous"},
    {"FERRY_STATS_FILE", CFG_STR, "", 0, 0, NULL,
     "each rank writes its counters to this path + \".<rank>\" at MPI_Finalize (for tests)"},
    {"FERRY_SHM_CMA", CFG_BOOL, "1", 0, 1, NULL,
     "use process_vm_readv/writev for shm rendezvous (0: copy pipeline only)"},
    {"FERRY_SHM_EAGER_LIMIT", CFG_SIZE, "-1", -1, SIZE_MAX_CFG, NULL,
     "largest message shm sends eagerly (-1: 8K with CMA unless oversubscribed, else a cell's "
     "payload; FERRY_EAGER_LIMIT overrides it)"},
    {"FERRY_SHM_CMA_SPLIT", CFG_SIZE, "-1", -1, SIZE_MAX_CFG, NULL,
     "smallest shm rendezvous read its sender shares (0: never, -1: 128K unless oversubscribed)"},
    {"FERRY_SHM_CELL_SIZE", CFG_SIZE, "65536", 1024, 1L << 24, NULL,
     "bytes per shm cell, header included (the shm eager limit follows it)"},
    {"FERRY_SHM_NUM_CELLS", CFG_INT, "64", 4, 32768, NULL,
     "shm cells each rank owns (unset: 64, fewer when /dev/shm is small)"},
    {"FERRY_SHM_RING_SIZE", CFG_SIZE, "-1", -1, 16L << 20, NULL,
     "bytes of each per-pair shm ring, a power of two >= 1K (0: none, -1: 1M, less above 4 "
     "ranks or when /dev/shm is small)"},
    {"FERRY_SHM_RING_MAX", CFG_SIZE, "-1", -1, 16L << 20, NULL,
     "largest payload sent through a shm ring (-1: what fits a quarter of the ring)"},
    {"FERRY_SHM_RING_PREFAULT", CFG_BOOL, "1", 0, 1, NULL,
     "fault a shm ring's pages in when a pair first uses it (0: on each page's first use)"},
    {"FERRY_SHM_LIVENESS_MS", CFG_INT, "200", 0, 60000, NULL,
     "ms between checks that the ranks of this node are alive (0: never)"},
    {"FERRY_TCP_IF", CFG_STR, "", 0, 0, NULL,
     "interfaces or CIDRs whose addresses tcp uses (empty: all but loopback, + loopback on a "
     "node)"},
    {"FERRY_TCP_PORT_MIN", CFG_INT, "0", 0, 65535, NULL,
     "lowest port the tcp listener may take (0: any free port)"},
    {"FERRY_TCP_PORT_MAX", CFG_INT, "0", 0, 65535, NULL,
     "highest port the tcp listener may take (0: FERRY_TCP_PORT_MIN, or any)"},
    {"FERRY_TCP_EAGER_LIMIT", CFG_SIZE, "65536", 0, 1L << 20, NULL,
     "largest message tcp sends eagerly (FERRY_EAGER_LIMIT overrides it)"},
    {"FERRY_TCP_SNDBUF", CFG_SIZE, "0", 0, 1L << 30, NULL,
     "SO_SNDBUF of tcp connections (0: kernel default, autotuned)"},
    {"FERRY_TCP_RCVBUF", CFG_SIZE, "0", 0, 1L << 30, NULL,
     "SO_RCVBUF of tcp connections (0: kernel default, autotuned)"},
    {"FERRY_TCP_CONGESTION", CFG_STR, "auto", 0, 0, NULL,
     "tcp congestion control: auto (reno between ranks of one node, else the system's), "
     "system, or a kernel algorithm's name"},
    {"FERRY_TCP_CONNECT_TIMEOUT", CFG_INT, "10000", 10, 3600000, NULL,
     "milliseconds one tcp connect() may take before the next address is tried"},
    {"FERRY_TCP_CONNECT_RETRIES", CFG_INT, "4", 0, 1000, NULL,
     "rounds over a peer's addresses after the first before tcp reports it unreachable"},
    {"FERRY_TCP_KEEPALIVE", CFG_INT, "30", 0, 86400, NULL,
     "seconds after which a tcp peer that answers nothing (not even keepalives) is lost (0: "
     "never)"},
    {"FERRY_RNDV_FIN_FENCE", CFG_BOOL, "0", 0, 1, NULL,
     "read rendezvous: send FIN fenced behind the reads at once instead of after they complete"},
    {"FERRY_VERBS_EAGER", CFG_ENUM, "sr", 0, 0, "sr|ring",
     "verbs eager protocol: sr (send-receive into SRQ buffers) or ring (the receiver pulls "
     "from the sender's ring with RDMA reads)"},
    {"FERRY_RING_SIZE", CFG_SIZE, "131072", 4096, 1L << 30, NULL,
     "bytes of each verbs ring (one per peer each way; a multiple of the page size; a message "
     "takes at most half)"},
    {"FERRY_RING_MAX_READ", CFG_SIZE, "32768", 64, 1L << 30, NULL,
     "largest RDMA read of a ring's data (a larger new range is read in pieces)"},
    {"FERRY_RING_HEAD_INTERVAL", CFG_SIZE, "0", 0, 1L << 30, NULL,
     "bytes freed before the head goes back to the sender (0: a quarter of the ring; also "
     "whenever the receiver has caught up)"},
    {"FERRY_RING_POLL_BACKOFF", CFG_INT, "50", 0, 1000000, NULL,
     "microseconds between tail reads of an idle sender at most, times the number of senders "
     "read (0: no back-off)"},
    {"FERRY_RING_PREFETCH", CFG_BOOL, "1", 0, 1, NULL,
     "read a ring's tail again together with each data read (1), or only once all is handed "
     "out (0)"},
    {"FERRY_VERBS_DEVICE", CFG_STR, "", 0, 0, NULL,
     "verbs device and port, e.g. rxe0 or mlx5_0:1 (empty: the first with an active port)"},
    {"FERRY_VERBS_GID_INDEX", CFG_INT, "-1", -1, 65535, NULL,
     "verbs GID table index (-1: a RoCE v2 IPv4 GID, else IPv6, else IPoIB)"},
    {"FERRY_VERBS_BUF_SIZE", CFG_SIZE, "16384", 1024, 1L << 20, NULL,
     "bytes of one verbs send or receive buffer (the eager limit is 72 bytes less)"},
    {"FERRY_VERBS_SRQ_SIZE", CFG_INT, "256", 4, 1 << 20, NULL,
     "receive buffers posted at start, and the step the SRQ grows by"},
    {"FERRY_VERBS_SRQ_MAX", CFG_INT, "16384", 4, 1 << 20, NULL,
     "most receive buffers the SRQ may grow to"},
    {"FERRY_VERBS_SRQ_LOW", CFG_INT, "16", 0, 1 << 20, NULL,
     "SRQ limit: fewer posted buffers raise the limit event, which grows the pool (0: off)"},
    {"FERRY_VERBS_CREDITS", CFG_INT, "32", 1, 16384, NULL,
     "receive buffers reserved for each connected peer (its send credits)"},
    {"FERRY_VERBS_CREDIT_RETURN", CFG_INT, "0", 0, 16384, NULL,
     "credits piled up before an explicit CREDIT message (0: half the credits)"},
    {"FERRY_VERBS_CQ_SIZE", CFG_INT, "1024", 16, 1 << 22, NULL,
     "initial completion queue entries (resized as buffers and connections grow)"},
    {"FERRY_VERBS_CQ_BATCH", CFG_INT, "32", 1, 64, NULL, "completions polled at once"},
    {"FERRY_VERBS_SIGNAL_INTERVAL", CFG_INT, "16", 1, 4096, NULL,
     "one send in this many asks for a completion (selective signalling)"},
    {"FERRY_VERBS_SQ_DEPTH", CFG_INT, "128", 4, 1 << 16, NULL, "send queue entries per connection"},
    {"FERRY_VERBS_SEND_BUFS", CFG_INT, "256", 2, 1 << 20, NULL,
     "registered send buffers shared by all connections"},
    {"FERRY_VERBS_INLINE", CFG_INT, "128", 0, 256, NULL,
     "messages up to this many bytes (headers included) are sent inline"},
    {"FERRY_VERBS_RD_ATOMIC", CFG_INT, "16", 1, 255, NULL,
     "RDMA reads in flight per connection (capped by the device's max_qp_rd_atom)"},
    {"FERRY_VERBS_RDMA_CHUNK", CFG_SIZE, "0", 0, 1L << 31, NULL,
     "largest piece of one RDMA read or write (0: the port's max_msg_sz)"},
    {"FERRY_VERBS_CONNECT_TIMEOUT", CFG_INT, "0", 0, 3600000, NULL,
     "milliseconds one verbs connection attempt may go unanswered before it is retried "
     "(0: as long as rdma_cm keeps it)"},
    {"FERRY_VERBS_TIMEOUT", CFG_INT, "17", 1, 31, NULL,
     "ACK timeout exponent: 4.096 us * 2^N before a retransmission"},
    {"FERRY_VERBS_RETRY_COUNT", CFG_INT, "7", 0, 7, NULL,
     "retransmissions before a connection fails (transport retry counter)"},
    {"FERRY_VERBS_RNR_RETRY", CFG_INT, "3", 0, 6, NULL,
     "receiver-not-ready retries (finite: with credits an RNR is a bug)"},
    {"FERRY_VERBS_RCACHE", CFG_BOOL, "1", 0, 1, NULL,
     "keep verbs registrations cached (needs the memory hooks; 0: register per transfer)"},
    {"FERRY_VERBS_RCACHE_ENTRIES", CFG_INT, "1024", 1, 1 << 24, NULL,
     "most idle registrations the verbs cache keeps"},
    {"FERRY_VERBS_RCACHE_BYTES", CFG_SIZE, "4294967296", 4096, 1L << 40, NULL,
     "most bytes the verbs cache keeps registered"},
    {"FERRY_VERBS_FAULT", CFG_ENUM, "none", 0, 0, "none|rkey|qp_fatal",
     "for tests: rkey makes every RDMA operation name a wrong remote key (a completion error); "
     "qp_fatal gives rank 1's first connection a fatal queue pair event"},
    {"FERRY_OFI_BUF_SIZE", CFG_SIZE, "16384", 1024, 1L << 20, NULL,
     "bytes of each ofi send buffer and largest ofi message (eager limit is 88 bytes less)"},
    {"FERRY_OFI_MULTI_RECV", CFG_BOOL, "1", 0, 1, NULL,
     "receive into FI_MULTI_RECV buffers where the provider has them (0: single buffers)"},
    {"FERRY_OFI_MULTI_RECV_SIZE", CFG_SIZE, "1048576", 4096, 1L << 30, NULL,
     "bytes of each ofi multi-receive buffer (at least 4 x FERRY_OFI_BUF_SIZE)"},
    {"FERRY_OFI_RECV_BUFS", CFG_INT, "8", 2, 1 << 16, NULL,
     "ofi receive buffers posted (multi-receive or single)"},
    {"FERRY_OFI_SEND_BUFS", CFG_INT, "256", 2, 1 << 20, NULL,
     "ofi send buffers (registered once); none free: the send waits"},
    {"FERRY_OFI_CQ_BATCH", CFG_INT, "16", 1, 64, NULL, "ofi completions read at once"},
    {"FERRY_OFI_WAIT", CFG_BOOL, "1", 0, 1, NULL,
     "an idle ofi wait sleeps on the CQ's FI_WAIT_FD where the provider has one (0: polls)"},
    {"FERRY_OFI_WINDOW", CFG_INT, "64", 1, 1 << 16, NULL,
     "ofi messages to a peer past its oldest send not completed (bounds what it holds to reorder)"},
    {"FERRY_OFI_RDMA_CHUNK", CFG_SIZE, "0", 0, 1L << 31, NULL,
     "largest piece of one ofi fi_read/fi_write (0: the provider's max_msg_size, at most 1 GiB)"},
    {"FERRY_OFI_RCACHE", CFG_BOOL, "1", 0, 1, NULL,
     "keep ofi registrations for reuse (0: register and deregister every rendezvous)"},
    {"FERRY_OFI_RCACHE_ENTRIES", CFG_INT, "1024", 1, 1 << 24, NULL,
     "idle registrations the ofi cache keeps at most"},
    {"FERRY_OFI_RCACHE_BYTES", CFG_SIZE, "4294967296", 4096, 1L << 40, NULL,
     "bytes of idle registrations the ofi cache keeps at most"},
    {"FERRY_OFI_LIVENESS_MS", CFG_INT, "200", 0, 60000, NULL,
     "ms between ofi's checks that its peers on this node are alive (0: never)"},
    {"FERRY_OFI_KEEPALIVE_MS", CFG_INT, "1000", 0, 600000, NULL,
     "ms ofi hears nothing before it probes its other-node peers (0: never)"},
    {"FERRY_OFI_FAULT", CFG_ENUM, "none", 0, 0, "none|rkey",
     "for tests: rkey makes every ofi rdma operation name a wrong key (a completion error)"},
};

#define NVARS (sizeof(vars) / sizeof(vars[0]))

static cfg_var_t *find(const char *name)
{
    for (size_t i = 0; i < NVARS; i++)
        if (strcmp(vars[i].name, name) == 0)
            return &vars[i];
    return NULL;
}

/* Accepts plain integers and K/M/G suffixes (powers of 1024), e.g. 64K. */
static int parse_size(const char *s, long *out)
{
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 0);
    if (errno || end == s)
        return -1;
    long long mul = 1;
    switch (*end) {
    case 'k':
    case 'K':
        mul = 1LL << 10;
        end++;
        break;
    case 'm':
    case 'M':
        mul = 1LL << 20;
        end++;
        break;
    case 'g':
    case 'G':
        mul = 1LL << 30;
        end++;
        break;
    default:
        break;
    }
    if (*end == 'b' || *end == 'B')
        end++;
    if (*end != '\0' || (v > 0 && v > LLONG_MAX / mul))
        return -1;
    *out = (long)(v * mul);
    return 0;
}

/* The number of choices of an enum variable ('|'-separated). */
static int count_choices(const char *c)
{
    int n = 1;
    for (; *c; c++)
        n += *c == '|';
    return n;
}

/* The range of the integer value of v: min .. max, 0|1, or the choices' indexes. */
static void int_range(const cfg_var_t *v, long *lo, long *hi)
{
    *lo = v->kind == CFG_INT || v->kind == CFG_SIZE ? v->min : 0;
    *hi = v->kind == CFG_BOOL ? 1 : v->kind == CFG_ENUM ? count_choices(v->choices) - 1 : v->max;
}

/* v takes the integer val if its range allows; else why says what is wrong. */
static int take_int(cfg_var_t *v, long val, char *why, size_t n)
{
    long lo, hi;
    int_range(v, &lo, &hi);
    if (val < lo || val > hi) {
        snprintf(why, n, "%s=%ld is out of range [%ld, %ld]", v->name, val, lo, hi);
        return -1;
    }
    v->ival = val;
    return 0;
}

/* v takes the value the text s stands for; else why says what is wrong. */
static int parse_one(cfg_var_t *v, const char *s, char *why, size_t n)
{
    switch (v->kind) {
    case CFG_STR:
        v->sval = s;
        return 0;
    case CFG_BOOL:
        if (!strcmp(s, "1") || !strcasecmp(s, "yes") || !strcasecmp(s, "true") ||
            !strcasecmp(s, "on"))
            return take_int(v, 1, why, n);
        if (!strcmp(s, "0") || !strcasecmp(s, "no") || !strcasecmp(s, "false") ||
            !strcasecmp(s, "off"))
            return take_int(v, 0, why, n);
        snprintf(why, n, "%s=\"%s\" is not a boolean (use 0 or 1)", v->name, s);
        return -1;
    case CFG_ENUM: {
        const char *c = v->choices;
        for (long idx = 0; *c; idx++) {
            size_t len = strcspn(c, "|");
            if (strlen(s) == len && strncasecmp(s, c, len) == 0)
                return take_int(v, idx, why, n);
            c += len + (c[len] == '|');
        }
        snprintf(why, n, "%s=\"%s\" is not one of %s", v->name, s, v->choices);
        return -1;
    }
    case CFG_INT:
    case CFG_SIZE: {
        long val;
        char *end;
        if (v->kind == CFG_SIZE) {
            if (parse_size(s, &val) != 0) {
                snprintf(why, n, "%s=\"%s\" is not a size (e.g. 4096, 64K, 1M)", v->name, s);
                return -1;
            }
        } else {
            errno = 0;
            val = strtol(s, &end, 0);
            if (errno || end == s || *end) {
                snprintf(why, n, "%s=\"%s\" is not an integer", v->name, s);
                return -1;
            }
        }
        return take_int(v, val, why, n);
    }
    }
    return -1;
}

/* From the device's start the values are final: MPI_T's writes are refused. */
static int started;

/* Reads the defaults, then the environment, into every variable MPI_T has not written; report:
 * print what is wrong with a value. */
static int load(int report)
{
    char why[256];
    int bad = 0;
    for (size_t i = 0; i < NVARS; i++) {
        cfg_var_t *v = &vars[i];
        if (v->by_tool)
            continue;
        const char *env = getenv(v->name);
        v->is_set = env != NULL && *env != '\0';
        v->bad = 0;
        if (parse_one(v, v->defval, why, sizeof(why)) != 0) {
            if (report)
                fprintf(stderr, "ferry: default of %s\n", why);
            v->bad = 1;
        }
        if (v->is_set && parse_one(v, env, why, sizeof(why)) != 0) {
            if (report)
                fprintf(stderr, "ferry: environment variable %s\n", why);
            v->bad = 1;
        }
        bad |= v->bad;
    }
    return bad ? MPI_ERR_ARG : MPI_SUCCESS;
}

int MPIDI_config_load(void)
{
    /* Once the device has started the values are final, and in use: not read again. */
    return started ? MPI_SUCCESS : load(0);
}

int MPIDI_config_init(void)
{
    int err = load(1);
    started = 1;
    /* A misspelt variable would silently do nothing: name it. */
    extern char **environ;
    for (char **e = environ; *e; e++) {
        if (strncmp(*e, "FERRY_", 6) != 0)
            continue;
        size_t n = strcspn(*e, "=");
        char name[128];
        snprintf(name, sizeof(name), "%.*s", (int)(n < sizeof(name) ? n : sizeof(name) - 1), *e);
        if (!MPIDI_config_known(name))
            fprintf(stderr, "ferry: warning: unknown variable %s ignored (see doc/tuning.md)\n",
                    name);
    }
    return err;
}

/* A value written before the start counts as set, as the environment's would, and takes the
 * place of the environment's (a refused one too). */
static MPIDI_config_write_t written(cfg_var_t *v)
{
    v->by_tool = 1;
    v->is_set = 1;
    v->bad = 0;
    return MPIDI_CONFIG_WRITTEN;
}

MPIDI_config_write_t MPIDI_config_write_int(int i, long val)
{
    cfg_var_t *v = &vars[i];
    char why[256];
    if (started)
        return MPIDI_CONFIG_IN_USE;
    if (v->kind == CFG_STR || take_int(v, val, why, sizeof(why)) != 0)
        return MPIDI_CONFIG_REFUSED;
    return written(v);
}

MPIDI_config_write_t MPIDI_config_write_str(int i, const char *s)
{
    cfg_var_t *v = &vars[i];
    if (started)
        return MPIDI_CONFIG_IN_USE;
    char *copy = v->kind == CFG_STR ? strdup(s) : NULL;
    if (!copy)
        return MPIDI_CONFIG_REFUSED;
    free(v->written);
    v->sval = v->written = copy;
    return written(v);
}

long MPIDI_config_int_at(int i)
{
    return vars[i].ival;
}

const char *MPIDI_config_str_at(int i)
{
    return vars[i].sval;
}

int MPIDI_config_choice(int i, int item, const char **name, int *len)
{
    const char *c = vars[i].choices;
    if (vars[i].kind != CFG_ENUM || item < 0 || item >= count_choices(c))
        return -1;
    for (; item > 0; item--)
        c += strcspn(c, "|") + 1;
    *name = c;
    *len = (int)strcspn(c, "|");
    return 0;
}

int MPIDI_config_known(const char *name)
{
    return find(name) != NULL;
}

int MPIDI_config_index(const char *name)
{
    cfg_var_t *v = find(name);
    return v ? (int)(v - vars) : -1;
}

const char *MPIDI_config_name(int i)
{
    return vars[i].name;
}

MPIDI_config_kind_t MPIDI_config_kind(int i)
{
    return vars[i].kind;
}

int MPIDI_config_count(void)
{
    return (int)NVARS;
}

void MPIDI_config_describe(int i, MPIDI_config_desc_t *d)
{
    static const char *const kinds[] = {
        [CFG_INT] = "int",   [CFG_SIZE] = "size",  [CFG_BOOL] = "bool",
        [CFG_ENUM] = "enum", [CFG_STR] = "string",
    };
    const cfg_var_t *v = &vars[i];
    const char *env = getenv(v->name);

    d->name = v->name;
    d->type = v->kind;
    d->kind = kinds[v->kind];
    d->defval = v->defval;
    d->value = env && *env ? env : NULL;
    d->doc = v->doc;
    switch (v->kind) {
    case CFG_INT:
    case CFG_SIZE:
        snprintf(d->range, sizeof(d->range), "%ld .. %ld", v->min, v->max);
        break;
    case CFG_BOOL:
        snprintf(d->range, sizeof(d->range), "0|1");
        break;
    case CFG_ENUM:
        snprintf(d->range, sizeof(d->range), "%s", v->choices);
        break;
    case CFG_STR:
        snprintf(d->range, sizeof(d->range), "text");
        break;
    }
}

static cfg_var_t *must_find(const char *name)
{
    cfg_var_t *v = find(name);
    if (!v) {
        /* A typo in our own code, not a user error: stop loudly. */
        fprintf(stderr, "ferry: internal error: configuration variable %s is not registered\n",
                name);
        abort();
    }
    return v;
}

long MPIDI_config_int(const char *name)
{
    return must_find(name)->ival;
}
const char *MPIDI_config_str(const char *name)
{
    return must_find(name)->sval;
}
int MPIDI_config_is_set(const char *name)
{
    return must_find(name)->is_set;
}

long MPIDU_config_int(const char *name)
{
    return MPIDI_config_int(name);
}
int MPIDU_config_is_set(const char *name)
{
    return MPIDI_config_is_set(name);
}
const char *MPIDU_config_str(const char *name)
{
    return MPIDI_config_str(name);
}
