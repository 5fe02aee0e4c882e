/* am.h: active-message handler ids and the wire headers of every protocol message. */
#ifndef AM_H_INCLUDED
#define AM_H_INCLUDED

#include <stdint.h>
#include "mpi.h"

enum {
    MPIDI_AM_EAGER,    /* match header + whole payload */
    MPIDI_AM_RTS,      /* match header + size (+ address/key for read) */
    MPIDI_AM_SYNC_ACK, /* an eager synchronous send matched */
    MPIDI_AM_CTS,      /* receiver ready: stream DATA, or put into addr */
    MPIDI_AM_DATA,     /* one pipeline chunk at an offset */
    MPIDI_AM_FIN,      /* receiver pulled the data: sender may complete */
    MPIDI_AM_PUT_DONE, /* sender pushed the data: receiver may complete */
    MPIDI_AM_CANCEL_SEND, /* sender asks to withdraw an unmatched message */
    MPIDI_AM_CANCEL_RESP, /* receiver answers: withdrawn, or matched already */
    MPIDI_AM_PAUSE,       /* receiver holds too much unexpected data: rendezvous only, or resume */
    MPIDI_AM_NUM_HANDLERS
};

/* The match header, as in ob1: context, source, tag, a per-peer sequence
 * number that checks the method kept the order MPI requires, and the
 * sender's request.  16 bytes, so that over shm an 8-byte message with its
 * ring entry header takes half a cache line (issue 12: in a stream of small
 * messages the lines per message bound the rate).  The request goes as its
 * index (a handle is MPIR_HANDLE_KIND_REQUEST | index, the index below
 * 2^26; 0 names none: a blocking send that nothing answers), the flags in
 * the bits above it; MPIDI_match_sreq gives the handle back. */
typedef struct MPIDI_match_hdr {
    int32_t src; /* rank in the communicator */
    int32_t tag;
    uint16_t context_id;
    uint16_t seq;
    uint32_t sreq_flags; /* the sender's request index (MPIDI_MATCH_SREQ_MASK), the flags */
} MPIDI_match_hdr_t;
_Static_assert(sizeof(MPIDI_match_hdr_t) == 16, "the match header is 16 bytes on the wire");

#define MPIDI_MATCH_SREQ_MASK 0x03ffffffu /* the index bits of a request handle */
#define MPIDI_MATCH_SYNC (1u << 30)       /* sender waits for the match (MPI_Ssend) */
#define MPIDI_MATCH_RDMA (1u << 31)       /* RTS: addr and rkey offer the buffer for rdma_get */

/* What a match header carries of a request handle (0: none), and back. */
static inline uint32_t MPIDI_match_sreq_index(MPI_Request handle)
{
    return (uint32_t)handle & MPIDI_MATCH_SREQ_MASK;
}
static inline uint64_t MPIDI_match_sreq(const MPIDI_match_hdr_t *m)
{
    uint32_t idx = m->sreq_flags & MPIDI_MATCH_SREQ_MASK;
    return idx ? (uint64_t)(uint32_t)(MPIR_HANDLE_KIND_REQUEST | idx) : 0;
}

typedef struct MPIDI_rts_hdr {
    MPIDI_match_hdr_t m;
    uint64_t size;
    /* With MPIDI_MATCH_RDMA: the sender's buffer as its method names it (a
     * virtual address or an offset, caps.addr_mode) and the key, 64 bits
     * whatever the method's key size. */
    uint64_t addr;
    uint64_t rkey;
} MPIDI_rts_hdr_t;

/* PAUSE (pause 1): the receiver keeps more unexpected eager data than FERRY_UNEXP_LIMIT; send it
 * every nonempty message by rendezvous, so that what it keeps is a header per message and the
 * data waits in the sender's buffer.  PAUSE with pause 0: eager again (adi/flow.c). */
typedef struct MPIDI_pause_hdr {
    uint32_t pause;
    uint32_t reserved;
} MPIDI_pause_hdr_t;

typedef struct MPIDI_ctrl_hdr {
    uint64_t sreq;
    uint64_t rreq;
} MPIDI_ctrl_hdr_t;

#define MPIDI_CTS_PUT 0x1 /* write mode: rdma_put into addr/rkey, then PUT_DONE */

typedef struct MPIDI_cts_hdr {
    uint64_t sreq;
    uint64_t rreq;
    uint64_t len;  /* bytes the receiver wants (less than the message if truncated) */
    uint64_t addr; /* with MPIDI_CTS_PUT: the receive buffer as the receiver's method names it */
    uint64_t rkey;
    uint32_t flags;
} MPIDI_cts_hdr_t;

/* CANCEL_SEND names the message by the sender's request and the sequence
 * number it carried (a request id alone may have been reused by a later
 * send whose message is still unexpected too); CANCEL_RESP echoes them. */
typedef struct MPIDI_cancel_hdr {
    uint64_t sreq;
    uint16_t seq;
    uint16_t cancelled; /* CANCEL_RESP: 1 if the message was withdrawn */
    uint32_t reserved;
} MPIDI_cancel_hdr_t;

typedef struct MPIDI_data_hdr {
    uint64_t rreq;
    uint64_t offset;
} MPIDI_data_hdr_t;

#define MPIDI_MAX_HDR 64
_Static_assert(sizeof(MPIDI_rts_hdr_t) <= MPIDI_MAX_HDR, "headers must fit the method minimum");
_Static_assert(sizeof(MPIDI_cts_hdr_t) <= MPIDI_MAX_HDR, "headers must fit the method minimum");

#endif /* AM_H_INCLUDED */
