/* verbs_auth.c: the connection handshake's nonces and MACs under the job's secret (REQ, REP and
 * REJ private data, the AUTH message). */
#include <errno.h>
#include <string.h>
#include <sys/random.h>

#include "mpi.h"
#include "verbs_impl.h"

/* Labels keep a MAC of one step from serving as another's. */
#define LABEL_REQ "ferry-verbs-req"
#define LABEL_REP "ferry-verbs-rep"
#define LABEL_AUTH "ferry-verbs-auth"

int MPIDI_VERBS_nonce(uint8_t nonce[MPIDI_VERBS_NONCE_LEN])
{
    size_t got = 0;
    while (got < MPIDI_VERBS_NONCE_LEN) {
        ssize_t n = getrandom(nonce + got, MPIDI_VERBS_NONCE_LEN - got, 0);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return MPIDU_err_create(MPI_ERR_OTHER, "verbs: getrandom for a nonce: %s (errno %d)",
                                    strerror(errno), errno);
        got += (size_t)n;
    }
    return MPI_SUCCESS;
}

static int mac(const char *label, const void *a, size_t alen, const void *b, size_t blen,
               unsigned char out[MPIDU_SHA256_LEN])
{
    const unsigned char *key;
    size_t klen;
    int err = MPIDU_job_key(&key, &klen, NULL);
    if (err)
        return err;
    MPIDU_bytes_t parts[] = {{label, strlen(label) + 1}, {a, alen}, {b, blen}};
    MPIDU_hmac_sha256(key, klen, parts, 3, out);
    return MPI_SUCCESS;
}

int MPIDI_VERBS_req_seal(MPIDI_VERBS_req_t *r)
{
    unsigned char m[MPIDU_SHA256_LEN];
    int err = mac(LABEL_REQ, r, offsetof(MPIDI_VERBS_req_t, mac), NULL, 0, m);
    memcpy(r->mac, m, sizeof(r->mac));
    return err;
}

int MPIDI_VERBS_req_check(const MPIDI_VERBS_req_t *r)
{
    unsigned char m[MPIDU_SHA256_LEN];
    return mac(LABEL_REQ, r, offsetof(MPIDI_VERBS_req_t, mac), NULL, 0, m) == MPI_SUCCESS &&
           MPIDU_mem_equal(m, r->mac, sizeof(r->mac));
}

int MPIDI_VERBS_rep_seal(MPIDI_VERBS_rep_t *r, const uint8_t req_nonce[MPIDI_VERBS_NONCE_LEN])
{
    return mac(LABEL_REP, r, offsetof(MPIDI_VERBS_rep_t, mac), req_nonce, MPIDI_VERBS_NONCE_LEN,
               r->mac);
}

int MPIDI_VERBS_rep_check(const MPIDI_VERBS_rep_t *r,
                          const uint8_t req_nonce[MPIDI_VERBS_NONCE_LEN])
{
    unsigned char m[MPIDU_SHA256_LEN];
    return mac(LABEL_REP, r, offsetof(MPIDI_VERBS_rep_t, mac), req_nonce, MPIDI_VERBS_NONCE_LEN,
               m) == MPI_SUCCESS &&
           MPIDU_mem_equal(m, r->mac, sizeof(r->mac));
}

/* AUTH: over both nonces and both ranks, in the connector's order. */
int MPIDI_VERBS_auth_mac(int connector, int acceptor, const uint8_t nonce_c[MPIDI_VERBS_NONCE_LEN],
                         const uint8_t nonce_a[MPIDI_VERBS_NONCE_LEN],
                         unsigned char out[MPIDU_SHA256_LEN])
{
    struct {
        uint32_t connector, acceptor;
        uint8_t nonce_c[MPIDI_VERBS_NONCE_LEN];
    } a = {.connector = (uint32_t)connector, .acceptor = (uint32_t)acceptor};
    memcpy(a.nonce_c, nonce_c, sizeof(a.nonce_c));
    return mac(LABEL_AUTH, &a, sizeof(a), nonce_a, MPIDI_VERBS_NONCE_LEN, out);
}
