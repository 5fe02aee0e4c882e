/* recv.c: MPID_Irecv, probe, cancel, and the receiver's side of eager messages and RTS. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "adi_impl.h"
#include "mpidi_config.h"
#include "datatype.h"

static void check_seq(int peer, const MPIDI_match_hdr_t *m)
{
    MPIDI_peer_t *p = &MPIDI_peers[peer];
    if (m->seq != p->recv_seq)
        MPIDI_fatal("rank %d: message %u from rank %d arrived when %u was expected: the "
                    "method broke MPI ordering", MPIDI_world.rank, m->seq, peer, p->recv_seq);
    p->recv_seq++;
}

void MPIDI_recv_set_envelope(MPIR_Request *rreq, const MPIDI_match_hdr_t *m, int peer,
                             size_t msg_size)
{
    size_t cap = rreq->seg.size;
    rreq->peer = peer;
    rreq->msg_size = msg_size;
    rreq->bytes_needed = msg_size < cap ? msg_size : cap;
    rreq->status.MPI_SOURCE = m->src;
    rreq->status.MPI_TAG = m->tag;
    rreq->status.count_bytes_ = (MPI_Count)rreq->bytes_needed;
    if (msg_size > cap)
        MPIR_Request_set_error(
            rreq, MPIR_Err_create(MPI_ERR_TRUNCATE,
                                  "Message truncated: %zu bytes from rank %d tag %d do not fit "
                                  "the receive buffer of %zu bytes",
                                  msg_size, m->src, m->tag, cap));
}

static void send_sync_ack(int peer, uint64_t sreq)
{
    MPIDI_ctrl_hdr_t c = {.sreq = sreq};
    int err = MPIDI_am_send(peer, MPIDI_AM_SYNC_ACK, &c, sizeof(c), NULL, 0, 0, 0);
    /* Only a lost connection makes this fail: the sender is gone, or gets
     * that loss as its error; the receive itself is complete and correct. */
    if (err && MPIDI_config_int("FERRY_VERBOSE"))
        fprintf(stderr, "ferry: rank %d: cannot acknowledge a synchronous send to rank %d: %s\n",
                MPIDI_world.rank, peer, MPIR_Err_string(err));
}

void MPIDI_recv_deliver_eager(MPIR_Request *rreq, const MPIDI_match_hdr_t *m, int peer,
                              const void *data, size_t len)
{
    MPIDI_recv_set_envelope(rreq, m, peer, len);
    if (rreq->seg.is_contig) { /* the common case, without the segment engine's call */
        MPIR_Memcpy_small(rreq->seg.buf, data, rreq->bytes_needed);
    } else {
        MPIR_Segment_unpack(&rreq->seg, 0, rreq->bytes_needed, data);
    }
    if (m->sreq_flags & MPIDI_MATCH_SYNC)
        send_sync_ack(peer, MPIDI_match_sreq(m));
    MPIDI_Request_complete_one(rreq);
}

/* Keeps an arrived message nobody asked for.  Eager data is copied into a
 * buffer of exactly its size, never the eager limit, so many small
 * unexpected messages cost what they carry. */
static int keep_unexpected(int peer, const MPIDI_match_hdr_t *m, const void *data, size_t len,
                           const MPIDI_rts_hdr_t *rts)
{
    MPIR_Request *u = MPIR_Request_create(MPIR_REQ_UNEXP);
    if (!u)
        return 0;
    u->ref = 1; /* nobody holds a handle to it */
    u->rank = m->src;
    u->tag = m->tag;
    u->context_id = m->context_id;
    u->peer = peer;
    u->rts.sreq = MPIDI_match_sreq(m);
    u->rts.seq = m->seq;
    u->rts.sync = (m->sreq_flags & MPIDI_MATCH_SYNC) != 0;
    if (rts) {
        u->rts.is_rndv = 1;
        u->rts.has_addr = (m->sreq_flags & MPIDI_MATCH_RDMA) != 0;
        u->rts.addr = rts->addr;
        u->rts.rkey = rts->rkey;
        u->msg_size = rts->size;
    } else {
        u->msg_size = len;
        if (len) {
            u->unexp_data = malloc(len);
            if (!u->unexp_data) {
                MPIR_Request_release(u);
                return 0;
            }
            memcpy(u->unexp_data, data, len);
        }
    }
    MPIDI_stats.unexpected++;
    if (MPIDI_recvq_append_unexp(u) != MPI_SUCCESS) {
        MPIR_Request_release(u);
        return 0;
    }
    return 1;
}

void MPIDI_handle_eager(int peer, const void *hdr, size_t hdr_len, const void *data, size_t len)
{
    const MPIDI_match_hdr_t *m = hdr;
    check_seq(peer, m);
    MPIR_Request *rreq = MPIDI_recvq_find_posted(m->context_id, m->src, m->tag);
    if (rreq)
        MPIDI_recv_deliver_eager(rreq, m, peer, data, len);
    else if (!keep_unexpected(peer, m, data, len, NULL))
        MPIDI_fatal("rank %d: out of memory keeping an unexpected message of %zu bytes from "
                    "rank %d", MPIDI_world.rank, len, peer);
}

/* Receive in place: the message matches at its header; a method writes the
 * payload straight into the user's buffer when that is one piece and big
 * enough, or collects it and hands it over at the end.  An unmatched
 * message is not begun: it goes the usual way, as an unexpected one. */
MPIR_Request *MPIDI_eager_recv_begin(int peer, const MPIDI_match_hdr_t *m, size_t len,
                                     void **dst_p)
{
    MPIR_Request *rreq = MPIDI_recvq_find_posted(m->context_id, m->src, m->tag);
    *dst_p = NULL;
    if (!rreq)
        return NULL;
    check_seq(peer, m);
    rreq->peer = peer; /* a wildcard receive is now tied to this peer, should it fail */
    void *dst = MPIR_Segment_contig_ptr(&rreq->seg, 0);
    if (dst && len <= rreq->seg.size) {
        MPIDI_recv_set_envelope(rreq, m, peer, len);
        *dst_p = dst;
    }
    return rreq;
}

void MPIDI_eager_recv_done(MPIR_Request *rreq, const MPIDI_match_hdr_t *m, int peer,
                           const void *payload, size_t len)
{
    if (payload) {
        MPIDI_recv_deliver_eager(rreq, m, peer, payload, len);
        return;
    }
    if (m->sreq_flags & MPIDI_MATCH_SYNC)
        send_sync_ack(peer, MPIDI_match_sreq(m));
    MPIDI_Request_complete_one(rreq);
}

void MPIDI_handle_rts(int peer, const void *hdr, size_t hdr_len, const void *data, size_t len)
{
    const MPIDI_rts_hdr_t *rts = hdr;
    check_seq(peer, &rts->m);
    MPIR_Request *rreq = MPIDI_recvq_find_posted(rts->m.context_id, rts->m.src, rts->m.tag);
    if (!rreq) {
        if (!keep_unexpected(peer, &rts->m, NULL, 0, rts))
            MPIDI_fatal("rank %d: out of memory keeping a rendezvous request from rank %d",
                        MPIDI_world.rank, peer);
        return;
    }
    MPIDI_recv_set_envelope(rreq, &rts->m, peer, rts->size);
    rreq->rts.sreq = MPIDI_match_sreq(&rts->m);
    rreq->rts.has_addr = (rts->m.sreq_flags & MPIDI_MATCH_RDMA) != 0;
    rreq->rts.addr = rts->addr;
    rreq->rts.rkey = rts->rkey;
    rreq->rts.is_rndv = 1;
    MPIDI_rndv_recv_start(rreq);
}

/* The error of a receive from world rank peer (-1: MPI_ANY_SOURCE on comm)
 * that nothing can satisfy any more because the peer, or for a wildcard a
 * member of comm, is lost; 0 if it may still match. */
static int lost_code(const MPIR_Comm *comm, int peer)
{
    if (MPIDI_nlost == 0)
        return 0;
    return peer >= 0 ? MPIDI_peers[peer].failed_code : MPIDI_wildcard_lost_code(comm);
}

/* A receive meets a message that arrived before it: deliver the kept eager
 * data, or start the rendezvous the RTS asked for. */
static void recv_unexpected(MPIR_Request *rreq, MPIR_Request *u)
{
    MPIDI_match_hdr_t m = {.src = u->rank,
                           .tag = u->tag,
                           .context_id = u->context_id,
                           .sreq_flags = MPIDI_match_sreq_index((MPI_Request)u->rts.sreq) |
                                         (u->rts.sync ? MPIDI_MATCH_SYNC : 0)};
    if (u->rts.is_rndv) {
        MPIDI_recv_set_envelope(rreq, &m, u->peer, u->msg_size);
        rreq->rts = u->rts;
        MPIR_Request_release(u);
        MPIDI_rndv_recv_start(rreq);
    } else {
        MPIDI_recv_deliver_eager(rreq, &m, u->peer, u->unexp_data, u->msg_size);
        MPIR_Request_release(u);
    }
}

int MPID_Irecv(void *buf, MPI_Aint count, MPI_Datatype type, int rank, int tag, MPIR_Comm *comm,
               int context_offset, MPIR_Request **req_p)
{
    MPIR_Request *rreq = MPIDI_Request_create_pt2pt(MPIR_REQ_RECV, buf, count, type, rank, tag,
                                                    comm, context_offset);
    if (!rreq)
        return MPIR_Err_create(MPI_ERR_NO_MEM, "out of memory allocating a receive request");
    *req_p = rreq;
    if (rank == MPI_PROC_NULL)
        return MPI_SUCCESS;
    rreq->peer = rank == MPI_ANY_SOURCE ? -1 : MPIR_Comm_world_rank(comm, rank);
    /* When nothing arrived, a lost peer will send nothing more: a receive it
     * alone could satisfy fails now rather than waits forever. */
    int err;
    MPIR_Request *u = MPIDI_recvq_take_unexp_or_post(rreq, lost_code(comm, rreq->peer), &err);
    if (!u) {
        if (err) {
            MPIR_Request_set_error(rreq, err);
            rreq->status.MPI_SOURCE = rank;
            rreq->status.MPI_TAG = tag;
            MPIDI_Request_complete_one(rreq);
        }
        return MPI_SUCCESS;
    }
    recv_unexpected(rreq, u);
    return MPI_SUCCESS;
}

int MPID_Improbe(int rank, int tag, MPIR_Comm *comm, int context_offset, MPIR_Request **msg_p,
                 MPI_Status *status)
{
    MPIR_Request *u = MPIDI_recvq_find_unexp(comm->context_id + context_offset, rank, tag, 1);
    *msg_p = u;
    if (!u) /* an error if nothing can ever match (a lost peer) */
        return lost_code(comm, rank == MPI_ANY_SOURCE ? -1 : MPIR_Comm_world_rank(comm, rank));
    u->comm = comm; /* MPI_Mrecv names no communicator */
    comm->ref++;
    status->MPI_SOURCE = u->rank;
    status->MPI_TAG = u->tag;
    status->count_bytes_ = (MPI_Count)u->msg_size;
    status->cancelled_ = 0;
    return MPI_SUCCESS;
}

int MPID_Imrecv(void *buf, MPI_Aint count, MPI_Datatype type, MPIR_Request *msg,
                MPIR_Request **req_p)
{
    MPIR_Request *rreq = MPIDI_Request_create_pt2pt(MPIR_REQ_RECV, buf, count, type, msg->rank,
                                                    msg->tag, msg->comm, 0);
    if (!rreq)
        return MPIR_Err_create(MPI_ERR_NO_MEM, "out of memory allocating a receive request");
    *req_p = rreq;
    rreq->peer = msg->peer;
    recv_unexpected(rreq, msg);
    return MPI_SUCCESS;
}

int MPID_Iprobe(int rank, int tag, MPIR_Comm *comm, int context_offset, int *flag,
                MPI_Status *status)
{
    if (rank == MPI_PROC_NULL) {
        *flag = 1;
        status->MPI_SOURCE = MPI_PROC_NULL;
        status->MPI_TAG = MPI_ANY_TAG;
        status->count_bytes_ = 0;
        return MPI_SUCCESS;
    }
    MPIR_Request *u =
        MPIDI_recvq_find_unexp(comm->context_id + context_offset, rank, tag, 0);
    *flag = u != NULL;
    if (u) {
        status->MPI_SOURCE = u->rank;
        status->MPI_TAG = u->tag;
        status->count_bytes_ = (MPI_Count)u->msg_size;
        status->cancelled_ = 0;
        return MPI_SUCCESS;
    }
    /* A probe that can never succeed is an error, not an endless poll. */
    return lost_code(comm, rank == MPI_ANY_SOURCE ? -1 : MPIR_Comm_world_rank(comm, rank));
}

int MPID_Cancel_recv(MPIR_Request *rreq)
{
    if (MPIDI_recvq_remove_posted(rreq)) {
        rreq->cancelled = 1;
        rreq->status.cancelled_ = 1;
        MPIDI_Request_complete_one(rreq);
    }
    return MPI_SUCCESS;
}

/* A sender wants its message back: withdraw it if it is still unexpected,
 * and answer either way. */
void MPIDI_handle_cancel_send(int peer, const void *hdr, size_t hdr_len, const void *data,
                              size_t len)
{
    const MPIDI_cancel_hdr_t *c = hdr;
    MPIR_Request *u = MPIDI_recvq_take_unexp_sent(peer, c->sreq, c->seq);
    MPIDI_cancel_hdr_t resp = {.sreq = c->sreq, .seq = c->seq, .cancelled = u != NULL};
    if (u)
        MPIR_Request_release(u);
    int err = MPIDI_am_send(peer, MPIDI_AM_CANCEL_RESP, &resp, sizeof(resp), NULL, 0, 0, 0);
    if (err)
        MPIDI_fatal("rank %d: cannot answer a cancel request of rank %d: %s", MPIDI_world.rank,
                    peer, MPIR_Err_string(err));
}
