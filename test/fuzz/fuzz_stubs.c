/* fuzz_stubs.c: the core's upcalls, as far as the tcp method uses them, for fuzzing the method on
 * its own (test/fuzz/fuzz_tcp.c, fuzz_card.c).  They check what the core would check and keep
 * what a test needs to look at; the segment functions are never reached by those inputs. */
#include <stdlib.h>
#include <string.h>

#include "method.h"
#include "mpi.h"

int fuzz_dispatched, fuzz_failed;
/* The job's secret of the fuzzed rank: fixed, so a harness can act as a true peer. */
const unsigned char fuzz_key[32] = "fuzzing-key-fuzzing-key-fuzzing";

void MPIDU_am_dispatch(int peer, int handler, const void *hdr, size_t hdr_len,
                       const void *payload, size_t payload_len)
{
    /* Touch every byte the method hands over: ASan then sees a bad pointer or length. */
    volatile unsigned char sum = 0;
    for (size_t i = 0; i < hdr_len; i++)
        sum ^= ((const unsigned char *)hdr)[i];
    for (size_t i = 0; i < payload_len; i++)
        sum ^= ((const unsigned char *)payload)[i];
    (void)peer;
    (void)handler;
    fuzz_dispatched++;
}

typedef struct token {
    void *dst;
} token_t;

/* Asks for the payload in place for even lengths (a buffer of exactly that size, as a user's
 * receive buffer would be), collected by the method for odd ones. */
void *MPIDU_am_recv_begin(int peer, int handler, const void *hdr, size_t hdr_len,
                          size_t payload_len, void **dst_p)
{
    (void)peer;
    (void)handler;
    (void)hdr;
    (void)hdr_len;
    *dst_p = NULL;
    if (payload_len % 2)
        return NULL;
    token_t *t = malloc(sizeof(*t));
    t->dst = malloc(payload_len ? payload_len : 1);
    *dst_p = t->dst;
    return t;
}

void MPIDU_am_recv_done(void *token, const void *payload, int mpi_errno)
{
    token_t *t = token;
    (void)payload;
    (void)mpi_errno;
    free(t->dst);
    free(t);
    fuzz_dispatched++;
}

void MPIDU_op_done(void *cookie, int mpi_errno)
{
    (void)cookie;
    (void)mpi_errno;
}

void MPIDU_peer_failed(int peer, int mpi_errno, const char *msg)
{
    (void)peer;
    (void)mpi_errno;
    (void)msg;
    fuzz_failed++;
}

long MPIDU_config_int(const char *name)
{
    if (strcmp(name, "FERRY_TCP_EAGER_LIMIT") == 0)
        return 65536;
    if (strcmp(name, "FERRY_TCP_CONNECT_TIMEOUT") == 0)
        return 10000;
    if (strcmp(name, "FERRY_TCP_CONNECT_RETRIES") == 0)
        return 4;
    if (strcmp(name, "FERRY_TCP_KEEPALIVE") == 0)
        return 30;
    return 0;
}

const char *MPIDU_config_str(const char *name)
{
    if (strcmp(name, "FERRY_TCP_CONGESTION") == 0)
        return "auto";
    return strcmp(name, "FERRY_TCP_IF") == 0 ? "lo" : "";
}

int MPIDU_job_key(const unsigned char **key_p, size_t *len_p, MPIDI_job_key_source_t *source_p)
{
    *key_p = fuzz_key;
    *len_p = sizeof(fuzz_key);
    if (source_p)
        *source_p = MPIDI_JOB_KEY_LAUNCHER;
    return MPI_SUCCESS;
}

/* Sends with payloads never happen in these harnesses. */
void *MPIR_Segment_contig_ptr(const MPIR_Segment *seg, size_t first)
{
    (void)seg;
    (void)first;
    abort();
}
size_t MPIR_Segment_pieces(const MPIR_Segment *seg)
{
    (void)seg;
    abort();
}
int MPIR_Segment_to_iov(const MPIR_Segment *seg, size_t first, size_t *last_p, struct iovec *iov,
                        int max)
{
    (void)seg;
    (void)first;
    (void)last_p;
    (void)iov;
    (void)max;
    abort();
}
size_t MPIR_Segment_pack_any(const MPIR_Segment *seg, size_t first, size_t last, void *dst)
{
    (void)seg;
    (void)first;
    (void)last;
    (void)dst;
    abort();
}

/* The tcp method registers its counters at init; nothing reads them here. */
int MPIDU_stat_register(const char *name, const unsigned long *counter_p)
{
    (void)name;
    (void)counter_p;
    return MPI_SUCCESS;
}
