/* tcp_hs.c: the handshake's messages: HELLO, CHALLENGE, AUTH, VERDICT, and their MACs. */
#include <errno.h>
#include <string.h>
#include <sys/random.h>

#include "hmac.h"
#include "mpi.h"
#include "tcp_impl.h"

/* Pure functions over 80-byte messages and the job's secret: the socket
 * side of the handshake is in tcp_conn.c (and fuzzed with these). */

static int random_bytes(void *buf, size_t len)
{
    size_t got = 0;
    while (got < len) {
        ssize_t n = getrandom((char *)buf + got, len - got, 0);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return errno ? errno : EIO;
        got += (size_t)n;
    }
    return 0;
}

static void header(MPIDI_TCP_hs_t *m, MPIDI_TCP_hs_kind_t kind)
{
    memset(m, 0, sizeof(*m));
    m->magic = MPIDI_TCP_MAGIC;
    m->version = MPIDI_TCP_VERSION;
    m->kind = (uint16_t)kind;
}

int MPIDI_TCP_hs_hello(MPIDI_TCP_hs_t *h, int to)
{
    MPIDI_TCP_state_t *st = &MPIDI_TCP_state;
    header(h, MPIDI_TCP_HELLO);
    h->from = (uint32_t)st->rank;
    h->to = (uint32_t)to;
    h->job_id = st->job_id;
    h->size = (uint32_t)st->size;
    return random_bytes(h->nonce, sizeof(h->nonce));
}

int MPIDI_TCP_hs_hello_from(const MPIDI_TCP_hs_t *h)
{
    MPIDI_TCP_state_t *st = &MPIDI_TCP_state;
    if (h->magic != MPIDI_TCP_MAGIC || h->version != MPIDI_TCP_VERSION ||
        h->kind != MPIDI_TCP_HELLO || h->job_id != st->job_id || h->to != (uint32_t)st->rank ||
        h->size != (uint32_t)st->size || h->from >= (uint32_t)st->size ||
        h->from == (uint32_t)st->rank)
        return -1;
    return (int)h->from;
}

static const char *label(MPIDI_TCP_hs_kind_t kind)
{
    switch (kind) {
    case MPIDI_TCP_CHALLENGE:
        return "ferry-tcp-challenge";
    case MPIDI_TCP_AUTH:
        return "ferry-tcp-auth";
    default:
        return "ferry-tcp-verdict";
    }
}

/* MAC(label, HELLO's identity fields, Nc, Na, kind) under the job's secret.
 * The verdict's kind is covered, so nobody in the middle can turn an OK into
 * a DUP or back. */
static int mac(MPIDI_TCP_hs_kind_t kind, const MPIDI_TCP_hs_t *hello, const uint8_t *na,
               uint8_t out[MPIDI_TCP_MAC_LEN])
{
    const unsigned char *key;
    size_t klen;
    int err = MPIDU_job_key(&key, &klen, NULL);
    if (err)
        return err;
    uint16_t k = (uint16_t)kind;
    const char *l = label(kind);
    MPIDU_bytes_t parts[] = {
        {l, strlen(l) + 1},
        {&hello->from, sizeof(hello->from)},
        {&hello->to, sizeof(hello->to)},
        {&hello->job_id, sizeof(hello->job_id)},
        {&hello->size, sizeof(hello->size)},
        {hello->nonce, MPIDI_TCP_NONCE_LEN},
        {na, MPIDI_TCP_NONCE_LEN},
        {&k, sizeof(k)},
    };
    MPIDU_hmac_sha256(key, klen, parts, (int)(sizeof(parts) / sizeof(parts[0])), out);
    return MPI_SUCCESS;
}

int MPIDI_TCP_hs_reply(MPIDI_TCP_hs_t *out, MPIDI_TCP_hs_kind_t kind, const MPIDI_TCP_hs_t *hello,
                       uint8_t *na_p, int genuine)
{
    header(out, kind);
    if (kind == MPIDI_TCP_CHALLENGE) {
        int err = random_bytes(na_p, MPIDI_TCP_NONCE_LEN);
        if (err)
            return MPIDU_err_create(MPI_ERR_OTHER, "tcp: getrandom for a nonce: %s (errno %d)",
                                    strerror(err), err);
        memcpy(out->nonce, na_p, MPIDI_TCP_NONCE_LEN);
    }
    if (!genuine) {
        /* As long as a real MAC, and as unpredictable: indistinguishable. */
        int err = random_bytes(out->mac, sizeof(out->mac));
        return err ? MPIDU_err_create(MPI_ERR_OTHER, "tcp: getrandom: %s (errno %d)", strerror(err),
                                      err)
                   : MPI_SUCCESS;
    }
    return mac(kind, hello, na_p, out->mac);
}

int MPIDI_TCP_hs_verify(const MPIDI_TCP_hs_t *m, MPIDI_TCP_hs_kind_t lo, MPIDI_TCP_hs_kind_t hi,
                        const MPIDI_TCP_hs_t *hello, const uint8_t *na)
{
    uint8_t want[MPIDI_TCP_MAC_LEN];
    if (m->magic != MPIDI_TCP_MAGIC || m->version != MPIDI_TCP_VERSION || m->kind < lo ||
        m->kind > hi)
        return 0;
    if (m->kind == MPIDI_TCP_CHALLENGE)
        na = m->nonce;
    if (mac((MPIDI_TCP_hs_kind_t)m->kind, hello, na, want) != MPI_SUCCESS)
        return 0;
    return MPIDU_mem_equal(want, m->mac, sizeof(want));
}
