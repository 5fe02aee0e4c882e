/* request.c: the request pool, handles and completion counting. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "adi_impl.h"
#include "datatype.h"

/* A match header names a request by its index (am.h): every index fits. */
_Static_assert((uint64_t)MPIR_REQUEST_CHUNK *MPIR_REQUEST_MAX_CHUNKS <=
                   MPIDI_MATCH_SREQ_MASK + 1ull,
               "request indices fit a match header");

/* Requests live in chunks that never move, so pointers handed to methods as
 * cookies stay valid; the handle's low bits index the chunk table
 * (MPIR_Request_get in request.h). */
#define CHUNK MPIR_REQUEST_CHUNK
#define MAX_CHUNKS MPIR_REQUEST_MAX_CHUNKS
#define chunks MPIR_Request_chunks
#define nchunks MPIR_Request_nchunks

MPIR_Request *chunks[MAX_CHUNKS];
int nchunks;
MPIR_Request *MPIR_Request_free_list;
int MPIR_Request_live;
#define free_list MPIR_Request_free_list
#define live MPIR_Request_live
/* Requests of the newest chunk never handed out yet start at index unused:
 * they are taken one by one, so a chunk's pages (166 KB) are touched only as
 * far as requests are used (a short job uses a few). */
static int unused = CHUNK;

/* A request never used before, from the newest chunk or a new one: the slow
 * start of MPIR_Request_take (request.h). */
MPIR_Request *MPIR_Request_take_unused(void)
{
    if (unused == CHUNK) {
        if (nchunks == MAX_CHUNKS)
            return NULL;
        MPIR_Request *c = calloc(CHUNK, sizeof(*c));
        if (!c)
            return NULL;
        chunks[nchunks++] = c;
        /* Index 0 of chunk 0 is never used so that no live request has the
         * handle of MPI_REQUEST_NULL. */
        unused = nchunks == 1 ? 1 : 0;
    }
    int i = unused++;
    MPIR_Request *r = &chunks[nchunks - 1][i];
    r->handle = MPIR_HANDLE_KIND_REQUEST | ((nchunks - 1) * CHUNK + i);
    r->cb_send.fn = MPIDI_send_payload_done;
    r->cb_send.req = r;
    r->cb_rdma.req = r;
    return r;
}

/* A build with -DFERRY_CHECK_REQUESTS (the sanitizer build of test/run-all.sh)
 * checks at every creation that the tail of a free request is zero, the rule
 * MPIR_Request_release keeps (request.h): a path that writes the tail without
 * MPIR_Request_tail_used knowing would otherwise leave stale state behind. */
void MPIR_Request_check_free(const MPIR_Request *r)
{
#ifdef FERRY_CHECK_REQUESTS
    const unsigned char *p = (const unsigned char *)r + MPIR_REQUEST_TAIL;
    for (size_t i = 0; i < sizeof(*r) - MPIR_REQUEST_TAIL; i++)
        if (p[i]) {
            fprintf(stderr, "ferry: internal error: a free request's tail is not clean "
                            "(byte %zu of its tail)\n", i);
            abort();
        }
#else
    (void)r;
#endif
}

MPIR_Request *MPIR_Request_create(MPIR_Request_kind_t kind)
{
    MPIR_Request *r = MPIR_Request_take(kind);
    if (r)
        r->seg = (MPIR_Segment){0};
    return r;
}

/* What release frees for the few requests that hold more than their
 * buffer's description: a callback of the MPI layer, an unexpected eager
 * payload, a temporary buffer, a linked operation. */
static void release_held(MPIR_Request *req)
{
    if (req->on_release) {
        req->on_release(req);
        req->on_release = NULL;
    }
    if (req->unexp_data) {
        free(req->unexp_data);
        req->unexp_data = NULL;
    }
    if (req->tmpbuf) {
        free(req->tmpbuf);
        req->tmpbuf = NULL;
    }
    if (req->linked) {
        MPIR_Request *l = req->linked;
        req->linked = NULL;
        MPIR_Request_release(l);
    }
}

void MPIR_Request_release(MPIR_Request *req)
{
    if (--req->ref > 0)
        return;
    if (req->ref < 0)
        MPIDI_fatal("request %#x released twice", (unsigned)req->handle);
    /* One test for the four: most requests hold none (issue 12: a send's
     * release took a fifth of its MPI_Waitall). */
    if ((uintptr_t)req->on_release | (uintptr_t)req->unexp_data | (uintptr_t)req->tmpbuf |
        (uintptr_t)req->linked)
        release_held(req);
    MPIR_Datatype_release(req->seg.dt); /* the reference MPID_Isend/Irecv took */
    req->seg.dt = NULL;
    /* The MPI layer's fields of the tail that every request may have set. */
    req->on_complete = NULL;
    req->parent = NULL;
    req->user_freed = 0;
    /* A reference that is not the last is dropped here, without the call;
     * the last goes back to the MPI layer, which owns the communicator. */
    if (req->comm && req->comm->ref > 1)
        req->comm->ref--;
    else if (req->comm)
        MPIDI_upcalls.comm_release(req->comm);
    req->comm = NULL;
    if (MPIR_Request_tail_used(req))
        memset((char *)req + MPIR_REQUEST_RARE, 0, sizeof(*req) - MPIR_REQUEST_RARE);
    req->cc = -1; /* marks it free for MPIR_Request_get */
    req->next = free_list;
    free_list = req;
    live--;
}

void MPIDI_Request_complete_any(MPIR_Request *req)
{
    if (req->cc <= 0)
        MPIDI_fatal("request %#x completed more often than it had events (cc=%d)",
                    (unsigned)req->handle, req->cc);
    if (--req->cc == 0) {
        /* The protocol is over: no method touches the buffer any more.  Only
         * a rendezvous holds registrations or a bounce buffer, so the call
         * (a third of this function's cost) is made only for one. */
        if (req->send_reg.held || req->recv_reg.held || req->xfer.local.held || req->xfer.bounce)
            MPIDI_request_drop_rdma(req);
        if (req->on_complete)
            req->on_complete(req);
        MPIR_Request_release(req);
    }
}

int MPIR_Request_pool_live(void)
{
    return live;
}

/* A lost peer will never send the events these requests wait for.  Methods
 * have dropped every operation toward it before reporting the loss, so no
 * cookie still points at these requests. */
void MPIDI_requests_fail_peer(int peer, int mpi_errno)
{
    for (int c = 0; c < nchunks; c++) {
        for (int i = 0; i < CHUNK; i++) {
            MPIR_Request *r = &chunks[c][i];
            /* Posted receives are the matching engine's business. */
            if (r->cc <= 0 || r->peer != peer || r->kind == MPIR_REQ_UNEXP || r->in_posted)
                continue;
            MPIR_Request_set_error(r, mpi_errno);
            r->cc = 1;
            MPIDI_Request_complete_one(r);
        }
    }
}
