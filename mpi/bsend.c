/* bsend.c: buffered sends: the attached buffer, its blocks, attach/detach/flush.
 *
 * MPI_Bsend packs the message into a block of the user's attached buffer
 * and sends it from there as bytes, so the caller's buffer is free at once;
 * the block returns to the buffer when that internal send completes.  A
 * block is a header and the packed data, both 16-byte aligned, and takes at
 * most MPI_BSEND_OVERHEAD bytes more than the data (plus, once per buffer,
 * the alignment of its start), so a buffer sized by the standard's rule
 * (MPI-4.1 sec. 3.6.1: the sum of MPI_Pack_size + MPI_BSEND_OVERHEAD of
 * the messages) always holds them. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "mpiimpl.h"

#define ALIGN 16
#define ROUND_UP(n) (((n) + ALIGN - 1) & ~(size_t)(ALIGN - 1))

typedef struct block {
    struct block *next, *prev; /* in address order */
    size_t len;                /* header + rounded data */
    MPIR_Request *req;         /* the internal send */
    unsigned long gen;         /* when it was made, for MPI_Buffer_iflush */
} block_t;

#define HDR ROUND_UP(sizeof(block_t))
_Static_assert(ROUND_UP(sizeof(block_t)) + 2 * ALIGN <= MPI_BSEND_OVERHEAD,
               "a block's header and alignment must fit MPI_BSEND_OVERHEAD");

static struct {
    void *user;     /* as attached, returned by detach */
    MPI_Count size; /* as attached */
    char *arena;    /* user rounded up to ALIGN */
    size_t arena_size;
    block_t *head; /* blocks in use */
    unsigned long gen;
} att;

/* Flush requests waiting for the blocks made before them. */
typedef struct flush_wait {
    struct flush_wait *next;
    MPIR_Request *req;
    unsigned long gen;
} flush_wait_t;
static flush_wait_t *flushes;

static int none_older_than(unsigned long gen)
{
    for (block_t *b = att.head; b; b = b->next)
        if (b->gen <= gen)
            return 0;
    return 1;
}

static void wake_flushes(void)
{
    flush_wait_t **pp = &flushes;
    while (*pp) {
        flush_wait_t *f = *pp;
        if (none_older_than(f->gen)) {
            *pp = f->next;
            MPIDI_Request_complete_one(f->req);
            free(f);
        } else
            pp = &f->next;
    }
}

void MPIR_Bsend_block_done(MPIR_Request *req)
{
    for (block_t *b = att.head; b; b = b->next) {
        if (b->req != req)
            continue;
        if (b->prev)
            b->prev->next = b->next;
        else
            att.head = b->next;
        if (b->next)
            b->next->prev = b->prev;
        break;
    }
    wake_flushes();
}

/* First fit in address order: a gap before the first block, between two,
 * or after the last. */
static block_t *block_alloc(size_t data)
{
    size_t need = HDR + ROUND_UP(data);
    char *pos = att.arena, *end = att.arena + att.arena_size;
    block_t *prev = NULL;
    for (block_t *b = att.head;; b = b->next) {
        char *limit = b ? (char *)b : end;
        if (limit >= pos && (size_t)(limit - pos) >= need) {
            block_t *nb = (block_t *)pos;
            nb->len = need;
            nb->prev = prev;
            nb->next = b;
            if (prev)
                prev->next = nb;
            else
                att.head = nb;
            if (b)
                b->prev = nb;
            nb->gen = ++att.gen;
            return nb;
        }
        if (!b)
            return NULL;
        pos = (char *)b + b->len;
        prev = b;
    }
}

int MPIR_Bsend_isend(const void *buf, MPI_Aint count, MPI_Datatype type, int dest, int tag,
                     MPIR_Comm *comm, MPIR_Request **req_p)
{
    MPIR_Segment seg;
    int err = MPIR_Segment_init(&seg, buf, count, type);
    if (err)
        return err;
    if (!att.arena)
        return MPIR_Err_create(MPI_ERR_BUFFER,
                               "buffered send of %zu bytes to rank %d with no "
                               "buffer attached (MPI_Buffer_attach)",
                               seg.size, dest);
    block_t *b = block_alloc(seg.size);
    if (!b) {
        /* Earlier buffered sends may be over without anyone having looked. */
        MPID_Progress_test();
        b = block_alloc(seg.size);
    }
    if (!b)
        return MPIR_Err_create(MPI_ERR_BUFFER,
                               "buffered send of %zu bytes to rank %d does not fit the attached "
                               "buffer of %lld bytes (with MPI_BSEND_OVERHEAD = %d per message)",
                               seg.size, dest, (long long)att.size, MPI_BSEND_OVERHEAD);
    char *data = (char *)b + HDR;
    MPIR_Segment_pack(&seg, 0, seg.size, data);
    b->req = NULL;
    MPIR_Request *sreq = NULL;
    err = MPID_Isend(data, (MPI_Aint)seg.size, MPI_BYTE, dest, tag, comm, 0, 0, &sreq);
    if (!sreq) {
        MPIR_Bsend_block_done(NULL); /* b->req is NULL: frees b */
        return err;
    }
    b->req = sreq;
    if (MPIR_Request_is_complete(sreq))
        MPIR_Bsend_block_done(sreq);
    else
        sreq->on_complete = MPIR_Bsend_block_done;

    /* What the user gets is complete: the data has left its buffer.  It
     * holds the internal send (linked), which MPI_Cancel may still reach. */
    MPIR_Request *ureq = MPIR_Request_create(MPIR_REQ_SEND);
    if (!ureq) {
        MPIR_Request_release(sreq);
        return MPIR_Err_create(MPI_ERR_NO_MEM, "out of requests in a buffered send");
    }
    ureq->linked = sreq;
    ureq->comm = comm;
    comm->ref++;
    MPIDI_Request_complete_one(ureq);
    *req_p = ureq;
    return MPI_SUCCESS;
}

static int attach(const char *fname, void *buffer, MPI_Count size)
{
    int err = MPI_SUCCESS;
    if (att.user)
        err = MPIR_Err_create(MPI_ERR_BUFFER, "a buffer is attached already");
    else if (size < 0)
        err = MPIR_Err_create(MPI_ERR_ARG, "negative buffer size %lld", (long long)size);
    else if (!buffer && size > 0)
        err = MPIR_Err_create(MPI_ERR_BUFFER, "NULL buffer of %lld bytes", (long long)size);
    if (err)
        return MPIR_Err_return(NULL, fname, err);
    uintptr_t start = ((uintptr_t)buffer + ALIGN - 1) & ~(uintptr_t)(ALIGN - 1);
    size_t lost = start - (uintptr_t)buffer;
    att.user = buffer ? buffer : (void *)&att; /* a zero-size buffer is attached too */
    att.size = size;
    att.arena = (char *)start;
    att.arena_size = (size_t)size > lost ? (size_t)size - lost : 0;
    att.head = NULL;
    return MPI_SUCCESS;
}

static int nothing_pending(void *arg)
{
    (void)arg;
    return att.head == NULL;
}

/* Waits until every buffered send has left the buffer (MPI-4.1: detach
 * blocks until then). */
static void drain(void)
{
    MPID_Progress_wait(nothing_pending, NULL);
}

static int detach(void *buffer_addr, MPI_Count *size)
{
    drain();
    *(void **)buffer_addr = att.user == (void *)&att ? NULL : att.user;
    *size = att.user ? att.size : 0;
    memset(&att, 0, sizeof(att));
    return MPI_SUCCESS;
}

int MPIR_Bsend_finalize(void)
{
    drain();
    return MPI_SUCCESS;
}

#pragma weak MPI_Buffer_attach = PMPI_Buffer_attach
int PMPI_Buffer_attach(void *buffer, int size)
{
    MPIR_CHECK_INIT("MPI_Buffer_attach");
    return attach("MPI_Buffer_attach", buffer, size);
}

#pragma weak MPI_Buffer_attach_c = PMPI_Buffer_attach_c
int PMPI_Buffer_attach_c(void *buffer, MPI_Count size)
{
    MPIR_CHECK_INIT("MPI_Buffer_attach_c");
    return attach("MPI_Buffer_attach_c", buffer, size);
}

#pragma weak MPI_Buffer_detach = PMPI_Buffer_detach
int PMPI_Buffer_detach(void *buffer_addr, int *size)
{
    MPIR_CHECK_INIT("MPI_Buffer_detach");
    if (!buffer_addr || !size)
        return MPIR_Err_return(NULL, "MPI_Buffer_detach",
                               MPIR_Err_create(MPI_ERR_ARG, "buffer_addr or size is NULL"));
    MPI_Count n;
    detach(buffer_addr, &n);
    *size = n > INT_MAX ? INT_MAX : (int)n;
    return MPI_SUCCESS;
}

#pragma weak MPI_Buffer_detach_c = PMPI_Buffer_detach_c
int PMPI_Buffer_detach_c(void *buffer_addr, MPI_Count *size)
{
    MPIR_CHECK_INIT("MPI_Buffer_detach_c");
    if (!buffer_addr || !size)
        return MPIR_Err_return(NULL, "MPI_Buffer_detach_c",
                               MPIR_Err_create(MPI_ERR_ARG, "buffer_addr or size is NULL"));
    return detach(buffer_addr, size);
}

#pragma weak MPI_Buffer_flush = PMPI_Buffer_flush
int PMPI_Buffer_flush(void)
{
    MPIR_CHECK_INIT("MPI_Buffer_flush");
    drain();
    return MPI_SUCCESS;
}

#pragma weak MPI_Buffer_iflush = PMPI_Buffer_iflush
int PMPI_Buffer_iflush(MPI_Request *request)
{
    MPIR_CHECK_INIT("MPI_Buffer_iflush");
    MPIR_Request *req = request ? MPIR_Request_create(MPIR_REQ_COMPOSITE) : NULL;
    flush_wait_t *f = req ? malloc(sizeof(*f)) : NULL;
    if (!f) {
        if (req) {
            req->ref = 1;
            MPIR_Request_release(req);
        }
        return MPIR_Err_return(NULL, "MPI_Buffer_iflush",
                               MPIR_Err_create(request ? MPI_ERR_NO_MEM : MPI_ERR_ARG,
                                               "request is NULL or out of memory"));
    }
    req->comm = MPIR_Comm_get(MPI_COMM_SELF);
    req->comm->ref++;
    *request = req->handle;
    f->req = req;
    f->gen = att.gen;
    f->next = flushes;
    flushes = f;
    wake_flushes();
    return MPI_SUCCESS;
}
