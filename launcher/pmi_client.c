/* pmi_client.c: PMI-1 client (PMI_FD, PMI_PORT or singleton) behind launcher/pmi.h; PMIx through
 * pmi_pmix.c when a PMIx server started the process. */
#include "pmi.h"
#include "pmi_wire.h"
#ifdef FERRY_HAVE_PMIX
#include "pmi_pmix.h"
#endif

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

enum pmi_mode { MODE_NONE, MODE_SINGLETON, MODE_FD, MODE_PORT, MODE_PMIX };

/* The singleton keeps its key-value space here; a handful of keys at most. */
typedef struct local_kv {
    char *key;
    char *value;
} local_kv_t;

static struct {
    enum pmi_mode mode;
    int fd;
    int rank;
    int size;
    int spawned;
    int debug;
    int kvsname_max;
    int keylen_max;
    int vallen_max;
    char kvsname[256];
    PMIU_reader_t reader;
    local_kv_t *kvs;
    int nkvs;
} pmi = {.mode = MODE_NONE, .fd = -1, .rank = -1};

/* What the singleton reports, matching what our mpiexec and Hydra announce. */
#define SINGLETON_KVSNAME_MAX 256
#define SINGLETON_KEYLEN_MAX 64
#define SINGLETON_VALLEN_MAX 1024

static int check_init(const char *fn)
{
    if (pmi.mode == MODE_NONE) {
        PMIU_set_error("%s called before PMI_Init", fn);
        return PMI_FAIL;
    }
    return PMI_SUCCESS;
}

/* A line as PMI_DEBUG shows it: with the value of the job's secret (in a put
 * or a get_result that follows a get of it) left out. */
static int secret_in_flight;
static void trace(const char *dir, const char *line)
{
    const char *v = secret_in_flight ? strstr(line, "value=") : NULL;
    if (v)
        fprintf(stderr, "[pmi rank %d] %s: %.*s(the job's secret)\n", pmi.rank, dir,
                (int)(v + 6 - line), line);
    else
        fprintf(stderr, "[pmi rank %d] %s: %s%s", pmi.rank, dir, line,
                line[0] && line[strlen(line) - 1] == '\n' ? "" : "\n");
}

static int send_msg(PMIU_msg_t *msg)
{
    int len = PMIU_msg_finish(msg);

    if (len < 0)
        return PMI_FAIL;
    if (pmi.debug)
        trace("send", msg->line);
    if (PMIU_writeall(pmi.fd, msg->line, (size_t)len) != 0)
        return PMI_FAIL;
    return PMI_SUCCESS;
}

static int recv_reply(PMIU_cmd_t *reply, const char *expect)
{
    char line[PMIU_MAXLINE + 1];
    size_t len;
    int rc = PMIU_readline(&pmi.reader, line, &len);

    if (rc == PMIU_LINE_NONE) {
        /* PMIU_readline left the EOF details; say what we were waiting for. */
        char why[200];
        snprintf(why, sizeof(why), "%s", PMIU_last_error());
        PMIU_set_error("waiting for cmd=%s: %s", expect, why);
        return PMI_FAIL;
    }
    if (rc != PMIU_LINE_OK)
        return PMI_FAIL;
    if (pmi.debug)
        trace("recv", line);
    if (PMIU_parse(line, len, reply) != 0)
        return PMI_FAIL;
    if (PMIU_check_reply(reply, expect) != 0)
        return PMI_FAIL;
    return PMI_SUCCESS;
}

/* One request, one reply: PMI-1 is lock step, so no reply can be interleaved. */
static int transact(PMIU_msg_t *msg, const char *expect, PMIU_cmd_t *reply)
{
    if (send_msg(msg) != PMI_SUCCESS)
        return PMI_FAIL;
    return recv_reply(reply, expect);
}

static int env_int(const char *name, int *value_p)
{
    const char *s = getenv(name);
    char *end;
    long v;

    if (s == NULL) {
        PMIU_set_error("environment variable %s is not set", name);
        return PMI_FAIL;
    }
    errno = 0;
    v = strtol(s, &end, 10);
    if (end == s || *end != '\0' || errno != 0 || v < INT_MIN || v > INT_MAX) {
        PMIU_set_error("environment variable %s=%s is not an integer", name, s);
        return PMI_FAIL;
    }
    *value_p = (int)v;
    return PMI_SUCCESS;
}

static int connect_port(const char *port_env)
{
    char host[256];
    const char *colon = strrchr(port_env, ':');
    struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM};
    struct addrinfo *res, *ai;
    int fd = -1, gai, saved_errno = 0;

    if (colon == NULL || colon == port_env || colon[1] == '\0' ||
        (size_t)(colon - port_env) >= sizeof(host)) {
        PMIU_set_error("PMI_PORT=%s is not host:port", port_env);
        return -1;
    }
    const char *h = port_env;
    size_t hlen = (size_t)(colon - port_env);
    /* Accept [v6addr]:port as well as host:port. */
    if (hlen >= 2 && h[0] == '[' && h[hlen - 1] == ']') {
        h++;
        hlen -= 2;
    }
    memcpy(host, h, hlen);
    host[hlen] = '\0';

    gai = getaddrinfo(host, colon + 1, &hints, &res);
    if (gai != 0) {
        PMIU_set_error("PMI_PORT=%s: cannot resolve %s: %s", port_env, host, gai_strerror(gai));
        return -1;
    }
    for (ai = res; ai; ai = ai->ai_next) {
        fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, ai->ai_protocol);
        if (fd < 0) {
            saved_errno = errno;
            continue;
        }
        int rc;
        do {
            rc = connect(fd, ai->ai_addr, ai->ai_addrlen);
        } while (rc < 0 && errno == EINTR);
        if (rc == 0)
            break;
        saved_errno = errno;
        close(fd);
        fd = -1;
    }
    freeaddrinfo(res);
    if (fd < 0) {
        PMIU_set_error("connect to PMI_PORT=%s: %s (errno %d)", port_env, strerror(saved_errno),
                       saved_errno);
        return -1;
    }
    /* Lock-step small messages: Nagle plus delayed ACK would add ~40 ms each. */
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    return fd;
}

/* The PMI_PORT handshake: initack, then size, rank and debug as cmd=set
 * lines.  PMI_ID goes as it is: Hydra's is a number, ours the rank and a
 * token that proves it ("3:9f0c..."). */
static int port_handshake(const char *id)
{
    PMIU_msg_t msg;
    PMIU_cmd_t reply;
    int have_size = 0, have_rank = 0;

    PMIU_msg_start(&msg, "initack");
    PMIU_msg_add(&msg, "pmiid", id);
    if (transact(&msg, "initack", &reply) != PMI_SUCCESS)
        return PMI_FAIL;
    for (int i = 0; i < 3; i++) {
        if (recv_reply(&reply, "set") != PMI_SUCCESS)
            return PMI_FAIL;
        if (PMIU_get(&reply, "size")) {
            if (PMIU_get_int(&reply, "size", &pmi.size) != 0)
                return PMI_FAIL;
            have_size = 1;
        }
        if (PMIU_get(&reply, "rank")) {
            if (PMIU_get_int(&reply, "rank", &pmi.rank) != 0)
                return PMI_FAIL;
            have_rank = 1;
        }
        if (PMIU_get(&reply, "debug") && PMIU_get_int(&reply, "debug", &pmi.debug) != 0)
            return PMI_FAIL;
    }
    if (!have_size || !have_rank) {
        PMIU_set_error("PMI_PORT handshake gave no %s", have_size ? "rank" : "size");
        return PMI_FAIL;
    }
    return PMI_SUCCESS;
}

static int server_init(void)
{
    PMIU_msg_t msg;
    PMIU_cmd_t reply;
    int version;

    PMIU_msg_start(&msg, "init");
    PMIU_msg_add(&msg, "pmi_version", "1");
    PMIU_msg_add(&msg, "pmi_subversion", "1");
    if (transact(&msg, "response_to_init", &reply) != PMI_SUCCESS)
        return PMI_FAIL;
    if (PMIU_get(&reply, "pmi_version") && PMIU_get_int(&reply, "pmi_version", &version) == 0 &&
        version != 1) {
        PMIU_set_error("PMI server speaks pmi_version=%d, this client only 1", version);
        return PMI_FAIL;
    }

    PMIU_msg_start(&msg, "get_maxes");
    if (transact(&msg, "maxes", &reply) != PMI_SUCCESS ||
        PMIU_get_int(&reply, "kvsname_max", &pmi.kvsname_max) != 0 ||
        PMIU_get_int(&reply, "keylen_max", &pmi.keylen_max) != 0 ||
        PMIU_get_int(&reply, "vallen_max", &pmi.vallen_max) != 0)
        return PMI_FAIL;

    PMIU_msg_start(&msg, "get_my_kvsname");
    if (transact(&msg, "my_kvsname", &reply) != PMI_SUCCESS)
        return PMI_FAIL;
    const char *name = PMIU_get(&reply, "kvsname");
    if (name == NULL || strlen(name) >= sizeof(pmi.kvsname)) {
        PMIU_set_error("PMI reply cmd=my_kvsname has %s kvsname", name ? "an overlong" : "no");
        return PMI_FAIL;
    }
    strcpy(pmi.kvsname, name);
    return PMI_SUCCESS;
}

/* A launcher started several processes but gave none of them a PMI we speak:
 * running each as a singleton would give N jobs of one rank that each
 * "succeed".  Returns 1, with PMIU_last_error() saying what to do, if the
 * environment shows such a launcher. */
static int foreign_launcher(void)
{
    const char *v;
    long n;

    if ((v = getenv("PMIX_NAMESPACE")) != NULL) {
        PMIU_set_error("started by a PMIx launcher (PMIX_NAMESPACE=%.100s: srun --mpi=pmix or "
                       "Open MPI's mpirun), but this Ferry was built without PMIx (configure "
                       "found no libpmix): use srun --mpi=pmi2 or Ferry's mpiexec, or rebuild "
                       "with libpmix-dev installed",
                       v);
        return 1;
    }
    if ((v = getenv("SLURM_STEP_NUM_TASKS")) != NULL && (n = strtol(v, NULL, 10)) > 1) {
        PMIU_set_error("started by srun as one of %ld tasks (SLURM_STEP_NUM_TASKS=%s) without a "
                       "PMI Ferry speaks: use srun --mpi=pmi2%s",
                       n, v,
#ifdef FERRY_HAVE_PMIX
                       " or --mpi=pmix"
#else
                       ""
#endif
        );
        return 1;
    }
    if ((v = getenv("OMPI_COMM_WORLD_SIZE")) != NULL && strtol(v, NULL, 10) > 1) {
        PMIU_set_error("started by Open MPI's mpirun (OMPI_COMM_WORLD_SIZE=%s) without PMIx "
                       "variables: use Ferry's mpiexec",
                       v);
        return 1;
    }
    if ((v = getenv("PMI_SIZE")) != NULL && strtol(v, NULL, 10) > 1) {
        PMIU_set_error("PMI_SIZE=%s is set but neither PMI_FD nor PMI_PORT: the launcher speaks "
                       "a PMI this client does not (PMI-2 only?); use Ferry's mpiexec, Hydra or "
                       "srun --mpi=pmi2",
                       v);
        return 1;
    }
    return 0;
}

int PMI_Init(int *spawned)
{
    const char *fd_env = getenv("PMI_FD");
    const char *port_env = getenv("PMI_PORT");
    const char *debug_env = getenv("PMI_DEBUG");
    const char *id = getenv("PMI_ID");

    if (pmi.mode != MODE_NONE) {
        if (spawned)
            *spawned = pmi.spawned;
        return PMI_SUCCESS;
    }
    pmi.debug = debug_env ? atoi(debug_env) : 0;
    pmi.spawned = 0;
    if (getenv("PMI_SPAWNED"))
        env_int("PMI_SPAWNED", &pmi.spawned);

    if (fd_env) {
        if (env_int("PMI_FD", &pmi.fd) != PMI_SUCCESS || env_int("PMI_RANK", &pmi.rank) ||
            env_int("PMI_SIZE", &pmi.size))
            goto fn_fail;
        if (fcntl(pmi.fd, F_GETFD) < 0) {
            PMIU_set_error("PMI_FD=%d is not an open file descriptor: %s", pmi.fd, strerror(errno));
            goto fn_fail;
        }
        pmi.mode = MODE_FD;
    } else if (port_env) {
        if (!id || !PMIU_value_ok(id) || !*id) {
            PMIU_set_error("PMI_PORT is set but PMI_ID is %s", id ? "not a single word" : "not");
            goto fn_fail;
        }
        pmi.fd = connect_port(port_env);
        if (pmi.fd < 0)
            goto fn_fail;
        pmi.mode = MODE_PORT;
#ifdef FERRY_HAVE_PMIX
    } else if (PMIU_pmix_launched()) {
        if (PMIU_pmix_init(&pmi.rank, &pmi.size, &pmi.spawned, pmi.kvsname, sizeof(pmi.kvsname)) !=
            PMI_SUCCESS)
            goto fn_fail;
        pmi.kvsname_max = SINGLETON_KVSNAME_MAX;
        pmi.keylen_max = SINGLETON_KEYLEN_MAX;
        pmi.vallen_max = SINGLETON_VALLEN_MAX;
        pmi.mode = MODE_PMIX;
        goto fn_exit;
#endif
    } else {
        if (foreign_launcher())
            goto fn_fail;
        pmi.mode = MODE_SINGLETON;
        pmi.rank = 0;
        pmi.size = 1;
        pmi.kvsname_max = SINGLETON_KVSNAME_MAX;
        pmi.keylen_max = SINGLETON_KEYLEN_MAX;
        pmi.vallen_max = SINGLETON_VALLEN_MAX;
        snprintf(pmi.kvsname, sizeof(pmi.kvsname), "singleton_kvs_%ld", (long)getpid());
        goto fn_exit;
    }

    /* Programs this rank starts must not inherit the PMI connection and
     * garble the lock-step protocol. */
    fcntl(pmi.fd, F_SETFD, fcntl(pmi.fd, F_GETFD) | FD_CLOEXEC);
    PMIU_reader_init(&pmi.reader, pmi.fd);
    if (pmi.mode == MODE_PORT && port_handshake(id) != PMI_SUCCESS)
        goto fn_fail_close;
    if (server_init() != PMI_SUCCESS)
        goto fn_fail_close;
    if (pmi.rank < 0 || pmi.size < 1 || pmi.rank >= pmi.size) {
        PMIU_set_error("PMI gave rank %d of size %d", pmi.rank, pmi.size);
        goto fn_fail_close;
    }

fn_exit:
    if (spawned)
        *spawned = pmi.spawned;
    return PMI_SUCCESS;

fn_fail_close:
    /* The PMI_FD fd belongs to the launcher's setup; only our own socket is closed. */
    if (pmi.mode == MODE_PORT)
        close(pmi.fd);
    pmi.fd = -1;
fn_fail:
    pmi.mode = MODE_NONE;
    return PMI_FAIL;
}

int PMI_Finalize(void)
{
    int rc = PMI_SUCCESS;

    if (check_init("PMI_Finalize"))
        return PMI_FAIL;
#ifdef FERRY_HAVE_PMIX
    if (pmi.mode == MODE_PMIX) {
        rc = PMIU_pmix_finalize();
    } else
#endif
        if (pmi.mode == MODE_SINGLETON) {
        for (int i = 0; i < pmi.nkvs; i++) {
            free(pmi.kvs[i].key);
            free(pmi.kvs[i].value);
        }
        free(pmi.kvs);
        pmi.kvs = NULL;
        pmi.nkvs = 0;
    } else {
        PMIU_msg_t msg;
        PMIU_cmd_t reply;
        PMIU_msg_start(&msg, "finalize");
        rc = transact(&msg, "finalize_ack", &reply);
        close(pmi.fd);
        pmi.fd = -1;
    }
    pmi.mode = MODE_NONE;
    return rc;
}

int PMI_Get_rank(int *rank)
{
    if (check_init("PMI_Get_rank") || rank == NULL)
        return PMI_FAIL;
    *rank = pmi.rank;
    return PMI_SUCCESS;
}

int PMI_Get_size(int *size)
{
    if (check_init("PMI_Get_size") || size == NULL)
        return PMI_FAIL;
    *size = pmi.size;
    return PMI_SUCCESS;
}

int PMI_Get_universe_size(int *size)
{
    PMIU_msg_t msg;
    PMIU_cmd_t reply;

    if (check_init("PMI_Get_universe_size") || size == NULL)
        return PMI_FAIL;
    if (pmi.mode == MODE_SINGLETON) {
        *size = 1;
        return PMI_SUCCESS;
    }
#ifdef FERRY_HAVE_PMIX
    if (pmi.mode == MODE_PMIX)
        return PMIU_pmix_universe_size(size);
#endif
    PMIU_msg_start(&msg, "get_universe_size");
    if (transact(&msg, "universe_size", &reply) != PMI_SUCCESS ||
        PMIU_get_int(&reply, "size", size) != 0)
        return PMI_FAIL;
    return PMI_SUCCESS;
}

int PMI_Get_appnum(int *appnum)
{
    PMIU_msg_t msg;
    PMIU_cmd_t reply;

    if (check_init("PMI_Get_appnum") || appnum == NULL)
        return PMI_FAIL;
    if (pmi.mode == MODE_SINGLETON) {
        *appnum = 0;
        return PMI_SUCCESS;
    }
#ifdef FERRY_HAVE_PMIX
    if (pmi.mode == MODE_PMIX)
        return PMIU_pmix_appnum(appnum);
#endif
    PMIU_msg_start(&msg, "get_appnum");
    if (transact(&msg, "appnum", &reply) != PMI_SUCCESS ||
        PMIU_get_int(&reply, "appnum", appnum) != 0)
        return PMI_FAIL;
    return PMI_SUCCESS;
}

int PMI_KVS_Get_my_name(char *kvsname, int length)
{
    if (check_init("PMI_KVS_Get_my_name") || kvsname == NULL)
        return PMI_FAIL;
    if (length < 0 || strlen(pmi.kvsname) >= (size_t)length) {
        PMIU_set_error("PMI_KVS_Get_my_name: buffer of %d bytes is too small for %s", length,
                       pmi.kvsname);
        return PMI_FAIL;
    }
    strcpy(kvsname, pmi.kvsname);
    return PMI_SUCCESS;
}

int PMI_KVS_Get_name_length_max(int *length)
{
    if (check_init("PMI_KVS_Get_name_length_max") || length == NULL)
        return PMI_FAIL;
    *length = pmi.kvsname_max;
    return PMI_SUCCESS;
}

int PMI_KVS_Get_key_length_max(int *length)
{
    if (check_init("PMI_KVS_Get_key_length_max") || length == NULL)
        return PMI_FAIL;
    *length = pmi.keylen_max;
    return PMI_SUCCESS;
}

int PMI_KVS_Get_value_length_max(int *length)
{
    if (check_init("PMI_KVS_Get_value_length_max") || length == NULL)
        return PMI_FAIL;
    *length = pmi.vallen_max;
    return PMI_SUCCESS;
}

static local_kv_t *local_find(const char *key)
{
    for (int i = 0; i < pmi.nkvs; i++)
        if (strcmp(pmi.kvs[i].key, key) == 0)
            return &pmi.kvs[i];
    return NULL;
}

static int local_put(const char *key, const char *value)
{
    local_kv_t *kv = local_find(key);
    char *v = strdup(value);

    if (v == NULL)
        goto fn_fail;
    if (kv) {
        free(kv->value);
        kv->value = v;
        return PMI_SUCCESS;
    }
    local_kv_t *grown = realloc(pmi.kvs, (size_t)(pmi.nkvs + 1) * sizeof(*grown));
    if (grown == NULL)
        goto fn_fail_free;
    pmi.kvs = grown;
    pmi.kvs[pmi.nkvs].key = strdup(key);
    if (pmi.kvs[pmi.nkvs].key == NULL)
        goto fn_fail_free;
    pmi.kvs[pmi.nkvs++].value = v;
    return PMI_SUCCESS;

fn_fail_free:
    free(v);
fn_fail:
    PMIU_set_error("PMI_KVS_Put key=%s: out of memory", key);
    return PMI_FAIL;
}

static int check_key_value(const char *fn, const char *key, const char *value)
{
    if (!PMIU_key_ok(key) || strlen(key) > (size_t)pmi.keylen_max) {
        PMIU_set_error("%s: key '%.80s' is empty, longer than %d, or holds '=' or blanks", fn,
                       key ? key : "(null)", pmi.keylen_max);
        return PMI_FAIL;
    }
    if (value && (!PMIU_value_ok(value) || strlen(value) > (size_t)pmi.vallen_max)) {
        PMIU_set_error("%s key=%s: value of %zu bytes is longer than %d or holds blanks", fn, key,
                       strlen(value), pmi.vallen_max);
        return PMI_FAIL;
    }
    return PMI_SUCCESS;
}

int PMI_KVS_Put(const char *kvsname, const char *key, const char *value)
{
    PMIU_msg_t msg;
    PMIU_cmd_t reply;

    if (check_init("PMI_KVS_Put"))
        return PMI_FAIL;
    if (value == NULL) {
        PMIU_set_error("PMI_KVS_Put key=%s: value is NULL", key ? key : "(null)");
        return PMI_FAIL;
    }
    if (check_key_value("PMI_KVS_Put", key, value) != PMI_SUCCESS)
        return PMI_FAIL;
    if (kvsname == NULL)
        kvsname = pmi.kvsname;
    if (pmi.mode == MODE_SINGLETON)
        return local_put(key, value);
#ifdef FERRY_HAVE_PMIX
    if (pmi.mode == MODE_PMIX)
        return PMIU_pmix_put(key, value);
#endif

    PMIU_msg_start(&msg, "put");
    PMIU_msg_add(&msg, "kvsname", kvsname);
    PMIU_msg_add(&msg, "key", key);
    PMIU_msg_add(&msg, "value", value);
    secret_in_flight = strcmp(key, PMIU_SECRET_KV_KEY) == 0;
    int rc = transact(&msg, "put_result", &reply);
    secret_in_flight = 0;
    return rc;
}

int PMI_KVS_Commit(const char *kvsname)
{
    /* PMI-1: every put is sent at once and the barrier is the fence, so
     * there is nothing to flush. */
    (void)kvsname;
    if (check_init("PMI_KVS_Commit"))
        return PMI_FAIL;
#ifdef FERRY_HAVE_PMIX
    if (pmi.mode == MODE_PMIX)
        return PMIU_pmix_commit();
#endif
    return PMI_SUCCESS;
}

int PMI_Barrier(void)
{
    PMIU_msg_t msg;
    PMIU_cmd_t reply;

    if (check_init("PMI_Barrier"))
        return PMI_FAIL;
    if (pmi.mode == MODE_SINGLETON)
        return PMI_SUCCESS;
#ifdef FERRY_HAVE_PMIX
    if (pmi.mode == MODE_PMIX)
        return PMIU_pmix_fence();
#endif
    PMIU_msg_start(&msg, "barrier_in");
    return transact(&msg, "barrier_out", &reply);
}

static int copy_value(const char *key, const char *value, char *out, int length)
{
    if (length < 0 || strlen(value) >= (size_t)length) {
        PMIU_set_error("PMI_KVS_Get key=%s: value of %zu bytes does not fit a buffer of %d", key,
                       strlen(value), length);
        return PMI_FAIL;
    }
    strcpy(out, value);
    return PMI_SUCCESS;
}

int PMI_KVS_Get(const char *kvsname, const char *key, char *value, int length)
{
    PMIU_msg_t msg;
    PMIU_cmd_t reply;

    if (check_init("PMI_KVS_Get"))
        return PMI_FAIL;
    if (value == NULL || check_key_value("PMI_KVS_Get", key, NULL) != PMI_SUCCESS) {
        if (value == NULL)
            PMIU_set_error("PMI_KVS_Get key=%s: value buffer is NULL", key ? key : "(null)");
        return PMI_FAIL;
    }
    if (kvsname == NULL)
        kvsname = pmi.kvsname;
    if (pmi.mode == MODE_SINGLETON) {
        local_kv_t *kv = local_find(key);
        if (kv)
            return copy_value(key, kv->value, value, length);
        /* The same answer a launcher gives for one process on one node. */
        if (strcmp(key, "PMI_process_mapping") == 0)
            return copy_value(key, "(vector,(0,1,1))", value, length);
        PMIU_set_error("PMI_KVS_Get key=%s: not found in singleton KVS %s", key, pmi.kvsname);
        return PMI_FAIL;
    }
#ifdef FERRY_HAVE_PMIX
    if (pmi.mode == MODE_PMIX)
        return PMIU_pmix_get(key, value, length);
#endif

    PMIU_msg_start(&msg, "get");
    PMIU_msg_add(&msg, "kvsname", kvsname);
    PMIU_msg_add(&msg, "key", key);
    secret_in_flight = strcmp(key, PMIU_SECRET_KEY) == 0 || strcmp(key, PMIU_SECRET_KV_KEY) == 0;
    int rc = transact(&msg, "get_result", &reply);
    secret_in_flight = 0;
    if (rc != PMI_SUCCESS) {
        char why[200];
        snprintf(why, sizeof(why), "%s", PMIU_last_error());
        PMIU_set_error("PMI_KVS_Get key=%s: %s", key, why);
        return PMI_FAIL;
    }
    const char *v = PMIU_get(&reply, "value");
    if (v == NULL) {
        PMIU_set_error("PMI_KVS_Get key=%s: reply cmd=get_result rc=0 has no value=", key);
        return PMI_FAIL;
    }
    return copy_value(key, v, value, length);
}

int PMIU_get_node_map(int *node_of, int size, int *nnodes_p)
{
    char value[PMIU_MAXLINE + 1];

    if (check_init("PMIU_get_node_map"))
        return PMI_FAIL;
#ifdef FERRY_HAVE_PMIX
    if (pmi.mode == MODE_PMIX)
        return PMIU_pmix_node_map(node_of, size, nnodes_p);
#endif
    if (PMI_KVS_Get(pmi.kvsname, "PMI_process_mapping", value, (int)sizeof(value)) != PMI_SUCCESS)
        return PMI_FAIL;
    return PMIU_parse_process_mapping(value, size, node_of, nnodes_p) == 0 ? PMI_SUCCESS : PMI_FAIL;
}

int PMI_Abort(int exit_code, const char *error_msg)
{
    PMIU_msg_t msg;

    if (error_msg && error_msg[0])
        fprintf(stderr, "PMI_Abort rank %d (exit code %d): %s\n", pmi.rank, exit_code, error_msg);
    fflush(stderr);
#ifdef FERRY_HAVE_PMIX
    if (pmi.mode == MODE_PMIX)
        PMIU_pmix_abort(exit_code, error_msg);
#endif
    if (pmi.mode != MODE_FD && pmi.mode != MODE_PORT)
        exit(exit_code);

    PMIU_msg_start(&msg, "abort");
    PMIU_msg_add_int(&msg, "exitcode", exit_code);
    if (send_msg(&msg) != PMI_SUCCESS)
        exit(exit_code);
    /* The process manager now kills the job; wait for that (or for it to close
     * our connection) so this rank's exit does not race its abort message.
     * The bound keeps a lost abort from hanging the rank forever. */
    struct pollfd pfd = {.fd = pmi.fd, .events = POLLIN};
    for (int waited_ms = 0; waited_ms < 30000; waited_ms += 1000) {
        if (poll(&pfd, 1, 1000) > 0) {
            char buf[256];
            if (read(pmi.fd, buf, sizeof(buf)) <= 0)
                break;
        }
    }
    _exit(exit_code);
}
