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

typedef struct bsend_buf bsend_buf_t;

typedef struct block {
    struct block *next, *prev; /* in address order (in allocation order, automatic) */
    size_t len;                /* header + rounded data */
    MPIR_Request *req;         /* the internal send */
    unsigned long gen;         /* when it was made, for the iflush calls */
} block_t;

#define HDR ROUND_UP(sizeof(block_t))
_Static_assert(ROUND_UP(sizeof(block_t)) + 2 * ALIGN <= MPI_BSEND_OVERHEAD,
               "a block's header and alignment must fit MPI_BSEND_OVERHEAD");

/* An attached buffer: the process's (MPI_Buffer_attach) or a communicator's
 * (MPI_Comm_attach_buffer, MPI-4.1).  MPI_BUFFER_AUTOMATIC makes one whose blocks are allocated
 * as the sends need them and freed when they are over. */
struct bsend_buf {
    void *user;     /* as attached, returned by detach; NULL: none attached */
    MPI_Count size; /* as attached */
    char *arena;    /* user rounded up to ALIGN */
    size_t arena_size;
    int automatic;
    int orphan;    /* its communicator is gone: freed when its last block is */
    block_t *head; /* blocks in use */
    unsigned long gen;
    bsend_buf_t *next_live; /* every buffer with a block in use or attached (live_bufs) */
};
static bsend_buf_t process_buf;
static bsend_buf_t *live_bufs = &process_buf;

/* Flush requests waiting for the blocks made before them. */
typedef struct flush_wait {
    struct flush_wait *next;
    MPIR_Request *req;
    bsend_buf_t *buf;
    unsigned long gen;
} flush_wait_t;
static flush_wait_t *flushes;

static int none_older_than(const bsend_buf_t *buf, unsigned long gen)
{
    for (block_t *b = buf->head; b; b = b->next)
        if (b->gen <= gen)
            return 0;
    return 1;
}

static void wake_flushes(void)
{
    flush_wait_t **pp = &flushes;
    while (*pp) {
        flush_wait_t *f = *pp;
        if (none_older_than(f->buf, f->gen)) {
            *pp = f->next;
            MPIDI_Request_complete_one(f->req);
            free(f);
        } else
            pp = &f->next;
    }
}

static void unlink_live(bsend_buf_t *buf)
{
    for (bsend_buf_t **pp = &live_bufs; *pp; pp = &(*pp)->next_live)
        if (*pp == buf) {
            *pp = buf->next_live;
            return;
        }
}

/* Takes block b out of its buffer (and frees it, automatic). */
static void block_free(bsend_buf_t *buf, block_t *b)
{
    if (b->prev)
        b->prev->next = b->next;
    else
        buf->head = b->next;
    if (b->next)
        b->next->prev = b->prev;
    if (buf->automatic)
        free(b);
}

/* A freed communicator's buffer goes with its last block (after the flushes that waited). */
static void free_if_orphan(bsend_buf_t *buf)
{
    if (buf->orphan && !buf->head) {
        unlink_live(buf);
        free(buf);
    }
}

void MPIR_Bsend_block_done(MPIR_Request *req)
{
    for (bsend_buf_t *buf = live_bufs; buf; buf = buf->next_live)
        for (block_t *b = buf->head; b; b = b->next)
            if (b->req == req) {
                block_free(buf, b);
                wake_flushes();
                free_if_orphan(buf);
                return;
            }
}

static block_t *link_first(bsend_buf_t *buf, block_t *nb, size_t need, block_t *prev, block_t *b)
{
    nb->len = need;
    nb->prev = prev;
    nb->next = b;
    if (prev)
        prev->next = nb;
    else
        buf->head = nb;
    if (b)
        b->prev = nb;
    nb->gen = ++buf->gen;
    return nb;
}

/* First fit in address order: a gap before the first block, between two,
 * or after the last.  An automatic buffer allocates the block. */
static block_t *block_alloc(bsend_buf_t *buf, size_t data)
{
    size_t need = HDR + ROUND_UP(data);
    if (buf->automatic) {
        block_t *nb = malloc(need);
        return nb ? link_first(buf, nb, need, NULL, buf->head) : NULL;
    }
    char *pos = buf->arena, *end = buf->arena + buf->arena_size;
    block_t *prev = NULL;
    for (block_t *b = buf->head;; b = b->next) {
        char *limit = b ? (char *)b : end;
        if (limit >= pos && (size_t)(limit - pos) >= need)
            return link_first(buf, (block_t *)pos, need, prev, b);
        if (!b)
            return NULL;
        pos = (char *)b + b->len;
        prev = b;
    }
}

/* The buffer a buffered send on comm uses (MPI-4.1 sec. 3.6.1): the communicator's, else its
 * session's, else the process's. */
static bsend_buf_t *buf_of(const MPIR_Comm *comm)
{
    if (comm->bsend && comm->bsend->user)
        return comm->bsend;
    bsend_buf_t **slot;
    if (comm->session && MPIR_Session_bsend(comm->session, &slot) == MPI_SUCCESS && *slot &&
        (*slot)->user)
        return *slot;
    return &process_buf;
}

int MPIR_Bsend_isend(const void *buf, MPI_Aint count, MPI_Datatype type, int dest, int tag,
                     MPIR_Comm *comm, MPIR_Request **req_p)
{
    MPIR_Segment seg;
    int err = MPIR_Segment_init(&seg, buf, count, type);
    if (err)
        return err;
    bsend_buf_t *bb = buf_of(comm);
    if (!bb->user)
        return MPIR_Err_create(MPI_ERR_BUFFER,
                               "buffered send of %zu bytes to rank %d with no "
                               "buffer attached (MPI_Buffer_attach, MPI_Comm_attach_buffer)",
                               seg.size, dest);
    block_t *b = block_alloc(bb, seg.size);
    if (!b && !bb->automatic) {
        /* Earlier buffered sends may be over without anyone having looked. */
        MPID_Progress_test();
        b = block_alloc(bb, seg.size);
    }
    if (!b && bb->automatic)
        return MPIR_Err_create(MPI_ERR_NO_MEM, "out of memory for a buffered send of %zu bytes",
                               seg.size);
    if (!b)
        return MPIR_Err_create(MPI_ERR_BUFFER,
                               "buffered send of %zu bytes to rank %d does not fit the attached "
                               "buffer of %lld bytes (with MPI_BSEND_OVERHEAD = %d per message)",
                               seg.size, dest, (long long)bb->size, MPI_BSEND_OVERHEAD);
    char *data = (char *)b + HDR;
    MPIR_Segment_pack(&seg, 0, seg.size, data);
    b->req = NULL;
    MPIR_Request *sreq = NULL;
    err = MPID_Isend(data, (MPI_Aint)seg.size, MPI_BYTE, dest, tag, comm, 0, 0, &sreq);
    if (!sreq) {
        block_free(bb, b);
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

static int attach(const char *fname, bsend_buf_t *buf, void *buffer, MPI_Count size)
{
    int err = MPI_SUCCESS;
    int automatic = buffer == MPI_BUFFER_AUTOMATIC;
    if (buf->user)
        err = MPIR_Err_create(MPI_ERR_BUFFER, "a buffer is attached already");
    else if (size < 0)
        err = MPIR_Err_create(MPI_ERR_ARG, "negative buffer size %lld", (long long)size);
    else if (!buffer && size > 0)
        err = MPIR_Err_create(MPI_ERR_BUFFER, "NULL buffer of %lld bytes", (long long)size);
    if (err)
        return err;
    uintptr_t start = ((uintptr_t)buffer + ALIGN - 1) & ~(uintptr_t)(ALIGN - 1);
    size_t lost = start - (uintptr_t)buffer;
    buf->user = buffer ? buffer : (void *)buf; /* a zero-size buffer is attached too */
    buf->size = automatic ? 0 : size;
    buf->automatic = automatic;
    buf->arena = automatic ? NULL : (char *)start;
    buf->arena_size = !automatic && (size_t)size > lost ? (size_t)size - lost : 0;
    return MPI_SUCCESS;
}

static int nothing_pending(void *arg)
{
    for (const bsend_buf_t *buf = live_bufs; buf; buf = buf->next_live)
        if (buf == arg)
            return buf->head == NULL;
    return 1; /* a freed communicator's buffer, gone with its last block */
}

/* Waits until every buffered send has left the buffer (MPI-4.1: detach
 * and flush block until then). */
static void drain(bsend_buf_t *buf)
{
    MPID_Progress_wait(nothing_pending, buf);
}

static int detach(bsend_buf_t *buf, void *buffer_addr, MPI_Count *size)
{
    if (!buffer_addr || !size)
        return MPIR_Err_create(MPI_ERR_ARG, "buffer_addr or size is NULL");
    drain(buf);
    *(void **)buffer_addr = buf->user == (void *)buf ? NULL : buf->user;
    *size = buf->user ? buf->size : 0;
    buf->user = NULL;
    buf->arena = NULL;
    buf->arena_size = 0;
    buf->size = 0;
    buf->automatic = 0;
    return MPI_SUCCESS;
}

/* A request that completes when the blocks made so far have left buf. */
static int iflush(bsend_buf_t *buf, MPI_Request *request)
{
    MPIR_Request *req = request ? MPIR_Request_create(MPIR_REQ_COMPOSITE) : NULL;
    flush_wait_t *f = req ? malloc(sizeof(*f)) : NULL;
    if (!f) {
        if (req) {
            req->ref = 1;
            MPIR_Request_release(req);
        }
        return MPIR_Err_create(request ? MPI_ERR_NO_MEM : MPI_ERR_ARG,
                               "request is NULL or out of memory");
    }
    req->comm = MPIR_Comm_get(MPI_COMM_SELF);
    req->comm->ref++;
    *request = req->handle;
    f->req = req;
    f->buf = buf;
    f->gen = buf->gen;
    f->next = flushes;
    flushes = f;
    wake_flushes();
    return MPI_SUCCESS;
}

/* Every buffered send completes before the device ends: the process's and the
 * communicators' (freed communicators' too). */
int MPIR_Bsend_finalize(void)
{
    for (bsend_buf_t *buf = live_bufs; buf;) {
        if (!buf->head) {
            buf = buf->next_live;
            continue;
        }
        drain(buf); /* (may free buf, an orphan) */
        buf = live_bufs;
    }
    return MPI_SUCCESS;
}

void MPIR_Bsend_comm_destroy(MPIR_Comm *comm)
{
    bsend_buf_t *buf = comm->bsend;
    comm->bsend = NULL;
    if (!buf)
        return;
    /* Sends of a freed communicator may still be under way: their blocks go when they end. */
    buf->orphan = 1;
    free_if_orphan(buf);
}

void MPIR_Bsend_session_end(struct bsend_buf *buf)
{
    if (!buf)
        return;
    drain(buf);
    buf->orphan = 1;
    free_if_orphan(buf);
}

/* ---- The calls: the process's buffer (MPI_Buffer_*), a communicator's and a session's
 * (MPI-4.1 sec. 3.6.1: the buffered sends of the communicator, or of the session's
 * communicators that have none, use it, not the process's).  A communicator's or session's
 * object lives until the communicator is freed or the session finalized.  One body per call
 * for the three owners. ---- */

enum { OF_PROCESS, OF_COMM, OF_SESSION };
typedef struct {
    int kind;
    int handle;   /* the communicator or session */
    MPIR_Comm *c; /* the communicator, once looked up: its errors go to its handler */
} owner_t;
#define PROCESS ((owner_t){OF_PROCESS, 0, NULL})
#define COMM(h) ((owner_t){OF_COMM, (h), NULL})
#define SESSION(h) ((owner_t){OF_SESSION, (h), NULL})

/* *slot: the object (made when create and there is none); without create, an error naming what
 * has no buffer attached (never, or detached since). */
static int owned_buf(bsend_buf_t **slot, int create, const char *what, unsigned handle,
                     bsend_buf_t **buf_p)
{
    if (!*slot && create) {
        bsend_buf_t *buf = calloc(1, sizeof(*buf));
        if (!buf)
            return MPIR_Err_create(MPI_ERR_NO_MEM, "out of memory attaching a buffer");
        buf->next_live = live_bufs;
        live_bufs = buf;
        *slot = buf;
    }
    *buf_p = *slot;
    return *buf_p && (create || (*buf_p)->user)
               ? MPI_SUCCESS
               : MPIR_Err_create(MPI_ERR_BUFFER, "no buffer is attached to %s %#x", what,
                                 handle);
}

/* The owner's buffer object (the process's always exists; its detach and flush with none
 * attached are no error, as before MPI-4.1). */
static int owner_buf(owner_t *o, int create, bsend_buf_t **buf_p)
{
    bsend_buf_t **slot;
    int err;
    switch (o->kind) {
    case OF_PROCESS:
        *buf_p = &process_buf;
        return MPI_SUCCESS;
    case OF_COMM:
        err = MPIR_Check_comm(o->handle, &o->c);
        return err ? err : owned_buf(&o->c->bsend, create, "communicator", o->handle, buf_p);
    default:
        err = MPIR_Session_bsend(o->handle, &slot);
        return err ? err : owned_buf(slot, create, "session", o->handle, buf_p);
    }
}

/* An error goes to the communicator's or session's handler, the process's calls' (and a call
 * on an invalid communicator's) to that of errors bound to no object. */
static int owner_err(const owner_t *o, const char *fname, int err)
{
    if (err && o->kind == OF_SESSION)
        return MPIR_Session_err_return(o->handle, fname, err);
    return MPIR_Err_return(o->c, fname, err);
}

static int buf_attach(const char *fname, owner_t o, void *buffer, MPI_Count size)
{
    bsend_buf_t *buf;
    int err = owner_buf(&o, 1, &buf);
    if (!err)
        err = attach(fname, buf, buffer, size);
    return owner_err(&o, fname, err);
}

/* Detach's int form passes size (the size cut to INT_MAX), its _c form size_c. */
static int buf_detach(const char *fname, owner_t o, void *buffer_addr, int *size,
                      MPI_Count *size_c)
{
    bsend_buf_t *buf = NULL;
    MPI_Count n = 0;
    int err = size || size_c ? owner_buf(&o, 0, &buf)
                             : MPIR_Err_create(MPI_ERR_ARG, "buffer_addr or size is NULL");
    if (!err)
        err = detach(buf, buffer_addr, size_c ? size_c : &n);
    if (!err && size)
        *size = n > INT_MAX ? INT_MAX : (int)n;
    return owner_err(&o, fname, err);
}

static int buf_flush(const char *fname, owner_t o)
{
    bsend_buf_t *buf;
    int err = owner_buf(&o, 0, &buf);
    if (!err)
        drain(buf);
    return owner_err(&o, fname, err);
}

static int buf_iflush(const char *fname, owner_t o, MPI_Request *request)
{
    bsend_buf_t *buf;
    int err = owner_buf(&o, 0, &buf);
    if (!err)
        err = iflush(buf, request);
    return owner_err(&o, fname, err);
}

#pragma weak MPI_Buffer_attach = PMPI_Buffer_attach
int PMPI_Buffer_attach(void *buffer, int size)
{
    MPIR_CHECK_INIT("MPI_Buffer_attach");
    return buf_attach("MPI_Buffer_attach", PROCESS, buffer, size);
}

#pragma weak MPI_Buffer_attach_c = PMPI_Buffer_attach_c
int PMPI_Buffer_attach_c(void *buffer, MPI_Count size)
{
    MPIR_CHECK_INIT("MPI_Buffer_attach_c");
    return buf_attach("MPI_Buffer_attach_c", PROCESS, buffer, size);
}

#pragma weak MPI_Buffer_detach = PMPI_Buffer_detach
int PMPI_Buffer_detach(void *buffer_addr, int *size)
{
    MPIR_CHECK_INIT("MPI_Buffer_detach");
    return buf_detach("MPI_Buffer_detach", PROCESS, buffer_addr, size, NULL);
}

#pragma weak MPI_Buffer_detach_c = PMPI_Buffer_detach_c
int PMPI_Buffer_detach_c(void *buffer_addr, MPI_Count *size)
{
    MPIR_CHECK_INIT("MPI_Buffer_detach_c");
    return buf_detach("MPI_Buffer_detach_c", PROCESS, buffer_addr, NULL, size);
}

#pragma weak MPI_Buffer_flush = PMPI_Buffer_flush
int PMPI_Buffer_flush(void)
{
    MPIR_CHECK_INIT("MPI_Buffer_flush");
    return buf_flush("MPI_Buffer_flush", PROCESS);
}

#pragma weak MPI_Buffer_iflush = PMPI_Buffer_iflush
int PMPI_Buffer_iflush(MPI_Request *request)
{
    MPIR_CHECK_INIT("MPI_Buffer_iflush");
    return buf_iflush("MPI_Buffer_iflush", PROCESS, request);
}

#pragma weak MPI_Comm_attach_buffer = PMPI_Comm_attach_buffer
int PMPI_Comm_attach_buffer(MPI_Comm comm, void *buffer, int size)
{
    MPIR_CHECK_INIT("MPI_Comm_attach_buffer");
    return buf_attach("MPI_Comm_attach_buffer", COMM(comm), buffer, size);
}

#pragma weak MPI_Comm_attach_buffer_c = PMPI_Comm_attach_buffer_c
int PMPI_Comm_attach_buffer_c(MPI_Comm comm, void *buffer, MPI_Count size)
{
    MPIR_CHECK_INIT("MPI_Comm_attach_buffer_c");
    return buf_attach("MPI_Comm_attach_buffer_c", COMM(comm), buffer, size);
}

#pragma weak MPI_Comm_detach_buffer = PMPI_Comm_detach_buffer
int PMPI_Comm_detach_buffer(MPI_Comm comm, void *buffer_addr, int *size)
{
    MPIR_CHECK_INIT("MPI_Comm_detach_buffer");
    return buf_detach("MPI_Comm_detach_buffer", COMM(comm), buffer_addr, size, NULL);
}

#pragma weak MPI_Comm_detach_buffer_c = PMPI_Comm_detach_buffer_c
int PMPI_Comm_detach_buffer_c(MPI_Comm comm, void *buffer_addr, MPI_Count *size)
{
    MPIR_CHECK_INIT("MPI_Comm_detach_buffer_c");
    return buf_detach("MPI_Comm_detach_buffer_c", COMM(comm), buffer_addr, NULL, size);
}

#pragma weak MPI_Comm_flush_buffer = PMPI_Comm_flush_buffer
int PMPI_Comm_flush_buffer(MPI_Comm comm)
{
    MPIR_CHECK_INIT("MPI_Comm_flush_buffer");
    return buf_flush("MPI_Comm_flush_buffer", COMM(comm));
}

#pragma weak MPI_Comm_iflush_buffer = PMPI_Comm_iflush_buffer
int PMPI_Comm_iflush_buffer(MPI_Comm comm, MPI_Request *request)
{
    MPIR_CHECK_INIT("MPI_Comm_iflush_buffer");
    return buf_iflush("MPI_Comm_iflush_buffer", COMM(comm), request);
}

#pragma weak MPI_Session_attach_buffer = PMPI_Session_attach_buffer
int PMPI_Session_attach_buffer(MPI_Session session, void *buffer, int size)
{
    MPIR_CHECK_INIT("MPI_Session_attach_buffer");
    return buf_attach("MPI_Session_attach_buffer", SESSION(session), buffer, size);
}

#pragma weak MPI_Session_attach_buffer_c = PMPI_Session_attach_buffer_c
int PMPI_Session_attach_buffer_c(MPI_Session session, void *buffer, MPI_Count size)
{
    MPIR_CHECK_INIT("MPI_Session_attach_buffer_c");
    return buf_attach("MPI_Session_attach_buffer_c", SESSION(session), buffer, size);
}

#pragma weak MPI_Session_detach_buffer = PMPI_Session_detach_buffer
int PMPI_Session_detach_buffer(MPI_Session session, void *buffer_addr, int *size)
{
    MPIR_CHECK_INIT("MPI_Session_detach_buffer");
    return buf_detach("MPI_Session_detach_buffer", SESSION(session), buffer_addr, size, NULL);
}

#pragma weak MPI_Session_detach_buffer_c = PMPI_Session_detach_buffer_c
int PMPI_Session_detach_buffer_c(MPI_Session session, void *buffer_addr, MPI_Count *size)
{
    MPIR_CHECK_INIT("MPI_Session_detach_buffer_c");
    return buf_detach("MPI_Session_detach_buffer_c", SESSION(session), buffer_addr, NULL, size);
}

#pragma weak MPI_Session_flush_buffer = PMPI_Session_flush_buffer
int PMPI_Session_flush_buffer(MPI_Session session)
{
    MPIR_CHECK_INIT("MPI_Session_flush_buffer");
    return buf_flush("MPI_Session_flush_buffer", SESSION(session));
}

#pragma weak MPI_Session_iflush_buffer = PMPI_Session_iflush_buffer
int PMPI_Session_iflush_buffer(MPI_Session session, MPI_Request *request)
{
    MPIR_CHECK_INIT("MPI_Session_iflush_buffer");
    return buf_iflush("MPI_Session_iflush_buffer", SESSION(session), request);
}
