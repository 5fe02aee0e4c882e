/* ofi_conn.c: peers: cards, the address vector filled lazily, the pair tokens, lost peers. */
#include <errno.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "hmac.h"
#include "mpi.h"
#include "ofi_impl.h"

#define LABEL_TOKEN "ferry-ofi-token"

/* A card: prov|fabric|node|pid|nonce(hex)|endpoint name(hex). */
typedef struct card {
    char prov[64], fabric[96];
    int node, pid;
    uint8_t nonce[MPIDI_OFI_NONCE_LEN];
    unsigned char name[256];
    size_t name_len;
} card_t;

static int hexval(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    return -1;
}

static int unhex(const char *s, size_t n, unsigned char *out, size_t max, size_t *len_p)
{
    if (n % 2 || n / 2 > max)
        return 0;
    for (size_t i = 0; i < n / 2; i++) {
        int h = hexval(s[2 * i]), l = hexval(s[2 * i + 1]);
        if (h < 0 || l < 0)
            return 0;
        out[i] = (unsigned char)(h << 4 | l);
    }
    *len_p = n / 2;
    return 1;
}

/* 1 if card parses (a malformed card is a peer ofi cannot reach). */
static int parse_card(const char *s, card_t *c)
{
    const char *f[6];
    size_t n[6];
    for (int i = 0; i < 6; i++) {
        f[i] = s;
        n[i] = strcspn(s, "|");
        if (i < 5 && s[n[i]] != '|')
            return 0;
        s += n[i] + (i < 5);
    }
    if (*s || n[0] == 0 || n[0] >= sizeof(c->prov) || n[1] >= sizeof(c->fabric))
        return 0;
    memcpy(c->prov, f[0], n[0]);
    c->prov[n[0]] = '\0';
    memcpy(c->fabric, f[1], n[1]);
    c->fabric[n[1]] = '\0';
    char *end;
    c->node = (int)strtol(f[2], &end, 10);
    if (end != f[2] + n[2])
        return 0;
    c->pid = (int)strtol(f[3], &end, 10);
    if (end != f[3] + n[3])
        return 0;
    size_t nl;
    if (!unhex(f[4], n[4], c->nonce, sizeof(c->nonce), &nl) || nl != sizeof(c->nonce))
        return 0;
    return unhex(f[5], n[5], c->name, sizeof(c->name), &c->name_len) && c->name_len > 0;
}

int MPIDI_OFI_reachable(int peer, const char *card)
{
    MPIDI_OFI_state_t *st = &MPIDI_OFI_state;
    card_t c;
    if (!st->available || !parse_card(card, &c))
        return 0;
    /* Both ends must have chosen the same provider on the same fabric. */
    if (strcmp(c.prov, st->prov) != 0 || strcmp(c.fabric, st->fabric_name) != 0)
        return 0;
    if (st->local_only && c.node != st->node_id)
        return 0;
    (void)peer;
    return 1;
}

uint64_t MPIDI_OFI_token(int src, int dst, const uint8_t nonce[MPIDI_OFI_NONCE_LEN])
{
    const unsigned char *key;
    size_t klen;
    if (MPIDU_job_key(&key, &klen, NULL) != MPI_SUCCESS)
        return 0; /* no secret: MPI_Init fails elsewhere */
    uint32_t ends[2] = {(uint32_t)src, (uint32_t)dst};
    MPIDU_bytes_t parts[] = {
        {LABEL_TOKEN, sizeof(LABEL_TOKEN)}, {ends, sizeof(ends)}, {nonce, MPIDI_OFI_NONCE_LEN}};
    unsigned char mac[MPIDU_SHA256_LEN];
    MPIDU_hmac_sha256(key, klen, parts, 3, mac);
    uint64_t t;
    memcpy(&t, mac, sizeof(t));
    return t;
}

static int pidfd_open_(int pid)
{
#ifdef SYS_pidfd_open
    return (int)syscall(SYS_pidfd_open, pid, 0);
#else
    (void)pid;
    errno = ENOSYS;
    return -1;
#endif
}

/* Inserts the peer's endpoint name into the address vector: the first
 * message to or from it brings us here (the core binds peers lazily), so
 * the vector holds only the peers a rank talks to. */
int MPIDI_OFI_connect(int peer, const char *card)
{
    MPIDI_OFI_state_t *st = &MPIDI_OFI_state;
    MPIDI_OFI_peer_t *p = &st->peers[peer];
    card_t c;
    if (p->addr != FI_ADDR_NOTAVAIL)
        return MPI_SUCCESS;
    if (!parse_card(card, &c))
        return MPIDU_err_create(MPI_ERR_OTHER, "ofi: rank %d's card cannot be read", peer);
    fi_addr_t a = FI_ADDR_NOTAVAIL;
    int ret = fi_av_insert(st->av, c.name, 1, &a, 0, NULL);
    if (ret != 1)
        return MPIDU_err_create(MPI_ERR_OTHER,
                                "ofi: fi_av_insert of rank %d's address on %s: %s (%d)", peer,
                                st->prov, MPIDI_OFI_strerror(ret < 0 ? ret : -FI_EINVAL), ret);
    p->addr = a;
    p->token_out = MPIDI_OFI_token(st->rank, peer, c.nonce);
    /* A peer on this node is watched: a rank that dies is noticed without
     * an operation toward it failing first. */
    if (c.node == st->node_id && peer != st->rank && p->pidfd < 0) {
        p->pid = c.pid;
        p->pidfd = pidfd_open_(c.pid);
    }
    if (st->verbose >= 2)
        fprintf(stderr, "ferry: rank %d: ofi: rank %d inserted in the address vector\n", st->rank,
                peer);
    return MPI_SUCCESS;
}

void MPIDI_OFI_peer_fail(int peer, const char *fmt, ...)
{
    MPIDI_OFI_state_t *st = &MPIDI_OFI_state;
    MPIDI_OFI_peer_t *p = &st->peers[peer];
    if (p->failed)
        return;
    p->failed = 1;
    p->fail_report = 1;
    st->fail_pending = 1;
    st->stats.peers_lost++;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(p->fail_msg, sizeof(p->fail_msg), fmt, ap);
    va_end(ap);
    MPIDI_OFI_rdma_drop(peer);
    MPIDI_OFI_held_drop(peer);
}

void MPIDI_OFI_report_failures(void)
{
    MPIDI_OFI_state_t *st = &MPIDI_OFI_state;
    if (!st->fail_pending)
        return;
    st->fail_pending = 0;
    for (int q = 0; q < st->size; q++) {
        MPIDI_OFI_peer_t *p = &st->peers[q];
        if (!p->fail_report)
            continue;
        p->fail_report = 0;
        MPIDU_peer_failed(q, MPIDU_err_create(MPI_ERR_OTHER, "%s", p->fail_msg), p->fail_msg);
    }
}

static long long now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Why: a rank blocked in a receive from a peer that died has no operation
 * toward it that could fail.  Peers on this node are watched by pidfd, as
 * Ferry's shm does (doc/methods/shm.md).  A peer seen dead is failed only
 * FERRY_OFI_LIVENESS_MS later: progress meanwhile still delivers what it
 * sent before it died, which MPI lets the survivors receive. */
static int watch_pidfds(long long now, long interval)
{
    MPIDI_OFI_state_t *st = &MPIDI_OFI_state;
    int died = 0;
    for (int q = 0; q < st->size; q++) {
        MPIDI_OFI_peer_t *p = &st->peers[q];
        if (p->pidfd < 0 || p->failed)
            continue;
        if (p->dead_at == 0) {
            struct pollfd pf = {.fd = p->pidfd, .events = POLLIN};
            if (poll(&pf, 1, 0) > 0)
                p->dead_at = now;
            continue;
        }
        if (now - p->dead_at < interval)
            continue;
        MPIDI_OFI_peer_fail(q, "ofi: world rank %d (pid %d on this node) died", q, p->pid);
        died = 1;
    }
    return died;
}

/* Why: a peer on another node has no pidfd, and rxm does not report a
 * connection its peer closed until an operation uses it.  So once nothing
 * has arrived for FERRY_OFI_KEEPALIVE_MS while the rank makes progress,
 * each peer it has talked to (in the address vector) that no pidfd watches
 * gets one small probe; toward a dead peer the provider fails it, and its
 * completion error fails the peer (ofi_progress.c).  At most one probe per
 * peer is out, and none is sent while messages keep arriving, so a busy
 * rank pays nothing and an idle one a header per peer per interval.
 * When the peer died while no operation used the connection, rxm closes
 * it, and every send after that only starts a new connection, which the
 * dead peer refuses, and returns -FI_EAGAIN, without an error ever coming
 * back.  So a peer that we did reach (rxm took a message to it, which it
 * does only on a made connection, or a message from it came: seq_out or
 * seq_in moved), that has nothing of ours in flight, and whose probe the
 * provider refuses PROBE_REFUSALS rounds in a row, is lost too (a live
 * peer's connection, once made, stays).  Only over rxm: elsewhere (shm)
 * -FI_EAGAIN may just mean a live peer's queue is full. */
#define PROBE_REFUSALS 3
static int keepalive(long long now, long interval, int pidfds_on)
{
    MPIDI_OFI_state_t *st = &MPIDI_OFI_state;
    static unsigned long seen_events;
    static long long quiet_since, next_round;
    if (st->recv_events != seen_events || quiet_since == 0) {
        seen_events = st->recv_events;
        quiet_since = now;
        return 0;
    }
    if (now - quiet_since < interval || now < next_round)
        return 0;
    next_round = now + interval;
    int sent = 0, over_rxm = strstr(st->prov, "ofi_rxm") != NULL;
    for (int q = 0; q < st->size; q++) {
        MPIDI_OFI_peer_t *p = &st->peers[q];
        if (q == st->rank || p->addr == FI_ADDR_NOTAVAIL || p->failed || p->keepalive_out ||
            (pidfds_on && p->pidfd >= 0))
            continue;
        int ret = MPIDI_OFI_keepalive_send(q);
        if (ret < 0)
            MPIDI_OFI_peer_fail(q, "ofi: keepalive probe (fi_send) to rank %d on %s: %s (%d)", q,
                                st->prov, MPIDI_OFI_strerror(ret), ret);
        else if (ret == 1)
            break; /* no buffer: the next round */
        else if (ret == 2) {
            if (over_rxm && (p->seq_out || p->seq_in) && !p->out_head && !p->rdma_out &&
                ++p->probe_refusals >= PROBE_REFUSALS)
                MPIDI_OFI_peer_fail(q,
                                    "ofi: keepalive probe (fi_send) to rank %d on %s: refused "
                                    "(-FI_EAGAIN) %d rounds in a row with nothing else toward "
                                    "it in flight: the connection is gone and cannot be made again",
                                    q, st->prov, PROBE_REFUSALS);
            continue; /* busy, or connecting: the next round */
        }
        p->probe_refusals = 0;
        sent = 1;
    }
    return sent;
}

/* Checked every 256th progress call, each check at most every interval,
 * so the busy path pays one counter. */
int MPIDI_OFI_liveness(void)
{
    static unsigned calls;
    static long long next_check;
    long interval = MPIDU_config_int("FERRY_OFI_LIVENESS_MS");
    long ka_interval = MPIDU_config_int("FERRY_OFI_KEEPALIVE_MS");
    if ((interval == 0 && ka_interval == 0) || (++calls & 255) != 0)
        return 0;
    long long now = now_ms();
    int found = 0;
    if (interval > 0 && now >= next_check) {
        next_check = now + interval;
        found = watch_pidfds(now, interval);
    }
    if (ka_interval > 0)
        found |= keepalive(now, ka_interval, interval > 0);
    return found;
}
