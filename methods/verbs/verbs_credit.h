/* verbs_credit.h: credit accounting of one connection and the wire header that carries it (no
 * device needed: test/unit/verbs_credit_test.c runs it). */
#ifndef VERBS_CREDIT_H_INCLUDED
#define VERBS_CREDIT_H_INCLUDED

#include <stdint.h>

/* Every SEND carries this 8-byte header, then the core's header (hdr_len
 * bytes), then the payload (the rest of the completion's byte_len).  The
 * peer is known from the completion's queue pair number, so no rank
 * travels.  Integers are in the host's byte order (one build, one kind of
 * machine per job; the connection request's magic checks it). */
typedef struct MPIDI_VERBS_hdr {
    uint8_t handler;  /* the core's handler id, or MPIDI_VERBS_CREDIT / _BYE */
    uint8_t flags;    /* MPIDI_VERBS_F_* */
    uint16_t credits; /* receive buffers the sender freed for us since its last report */
    uint16_t hdr_len; /* core header bytes that follow */
    uint16_t reserved;
} MPIDI_VERBS_hdr_t;
_Static_assert(sizeof(MPIDI_VERBS_hdr_t) == 8, "wire header (doc/methods/verbs.md)");

/* Handler ids of the method's own messages (the core's are small). */
#define MPIDI_VERBS_CREDIT 0xfe /* credits only */
#define MPIDI_VERBS_BYE 0xff    /* the sender finalizes; a disconnect that follows is no loss */
#define MPIDI_VERBS_AUTH 0xfd   /* the connector's proof, its first message (verbs_auth.c) */
#define MPIDI_VERBS_RING 0xfc   /* where the sender's ring is (FERRY_VERBS_EAGER=ring) */

#define MPIDI_VERBS_F_CTRL_ACK 0x1  /* the sender took our last message in its reserved slot */
#define MPIDI_VERBS_F_STARVED 0x2   /* the sender ran out of credits since its last message */
#define MPIDI_VERBS_F_CTRL_SLOT 0x4 /* this message uses the reserved slot, not a credit */

/* Credits (doc/methods/verbs.md "Credits").  A receiver holds, for each
 * connected peer, `granted` receive buffers on its shared receive queue
 * plus one reserved slot; the peer may have at most that many messages
 * unconsumed, so the device never finds the queue empty (no
 * receiver-not-ready).  A regular message spends a credit.  The receiver
 * counts the messages it consumed (`owed`: their buffers are back on the
 * queue) and returns them in the header of any message going back, or in
 * an explicit CREDIT message when none flows.  That CREDIT message cannot
 * wait for a credit (both sides might have spent theirs), so it goes in the
 * reserved slot; the slot is free again once the peer acknowledges it
 * (F_CTRL_ACK on its next message), and while it is taken a CREDIT message
 * spends a regular credit like any other. */
typedef struct MPIDI_VERBS_credit {
    int credits;       /* messages we may send: buffers the peer holds for us */
    int granted;       /* buffers we hold for the peer (not counting the reserved slot) */
    int owed;          /* the peer's messages consumed, not yet reported back */
    int ctrl_free;     /* our reserved slot at the peer is free */
    int ctrl_ack_owed; /* the peer's last message came in our reserved slot: acknowledge it */
    int starved;       /* we ran out of credits since our last message */
} MPIDI_VERBS_credit_t;

/* What a message will spend (MPIDI_VERBS_credit_peek). */
typedef enum {
    MPIDI_VERBS_SPEND_NONE, /* nothing available: the send answers AGAIN */
    MPIDI_VERBS_SPEND_CREDIT,
    MPIDI_VERBS_SPEND_SLOT, /* the reserved slot (the method's own messages only) */
} MPIDI_VERBS_spend_t;

static inline void MPIDI_VERBS_credit_init(MPIDI_VERBS_credit_t *cr, int credits, int granted)
{
    cr->credits = credits;
    cr->granted = granted;
    cr->owed = 0;
    cr->ctrl_free = 1;
    cr->ctrl_ack_owed = 0;
    cr->starved = 0;
}

/* What a message would spend: a credit; for a control message (own) the
 * reserved slot first.  A data message that finds none marks the
 * connection starved (told to the peer with the next message). */
static inline MPIDI_VERBS_spend_t MPIDI_VERBS_credit_peek(MPIDI_VERBS_credit_t *cr, int own)
{
    if (own && cr->ctrl_free)
        return MPIDI_VERBS_SPEND_SLOT;
    if (cr->credits > 0)
        return MPIDI_VERBS_SPEND_CREDIT;
    if (!own)
        cr->starved = 1;
    return MPIDI_VERBS_SPEND_NONE;
}

/* The message goes: spends what peek said and fills the header's credit
 * fields (returning everything owed, acknowledging the reserved slot).
 * Returns the credits returned. */
static inline int MPIDI_VERBS_credit_spend(MPIDI_VERBS_credit_t *cr, MPIDI_VERBS_spend_t spend,
                                           MPIDI_VERBS_hdr_t *h)
{
    int give = cr->owed < UINT16_MAX ? cr->owed : UINT16_MAX;
    if (spend == MPIDI_VERBS_SPEND_SLOT)
        cr->ctrl_free = 0;
    else
        cr->credits--;
    h->credits = (uint16_t)give;
    h->flags = (uint8_t)((cr->ctrl_ack_owed ? MPIDI_VERBS_F_CTRL_ACK : 0) |
                         (cr->starved ? MPIDI_VERBS_F_STARVED : 0) |
                         (spend == MPIDI_VERBS_SPEND_SLOT ? MPIDI_VERBS_F_CTRL_SLOT : 0));
    cr->owed -= give;
    cr->ctrl_ack_owed = 0;
    cr->starved = 0;
    return give;
}

/* A message from the peer was consumed and its buffer is back on the
 * queue: take the credits and acknowledgement it carries, and owe it the
 * buffer (or an acknowledgement of the reserved slot). */
static inline void MPIDI_VERBS_credit_arrived(MPIDI_VERBS_credit_t *cr, const MPIDI_VERBS_hdr_t *h)
{
    cr->credits += h->credits;
    if (h->flags & MPIDI_VERBS_F_CTRL_ACK)
        cr->ctrl_free = 1;
    if (h->flags & MPIDI_VERBS_F_CTRL_SLOT)
        cr->ctrl_ack_owed = 1;
    else
        cr->owed++;
}

/* The receiver adds n buffers for the peer (the SRQ grew): they are
 * returned to it as credits with the next report. */
static inline void MPIDI_VERBS_credit_grant_more(MPIDI_VERBS_credit_t *cr, int n)
{
    cr->granted += n;
    cr->owed += n;
}

/* Whether credits must go back in a CREDIT message now, the traffic giving
 * no other way.  Normally when `every` have piled up, but never more than
 * half of what we granted (a peer holding fewer credits than `every` would
 * wait forever on a one-way stream).  At finalize, once we said BYE (which
 * carried everything owed) and the peer has not: whatever we owe, so that
 * it can say BYE too.  Never after the peer's BYE: it sends nothing more,
 * and answering every CREDIT with a CREDIT would never end. */
static inline int MPIDI_VERBS_credit_due(const MPIDI_VERBS_credit_t *cr, int every, int said_bye,
                                         int peer_said_bye)
{
    int half = (cr->granted + 1) / 2;
    int threshold = every < half ? every : half;
    if (peer_said_bye)
        return 0;
    if (said_bye)
        return cr->owed > 0 || cr->ctrl_ack_owed;
    return cr->owed >= (threshold < 1 ? 1 : threshold);
}

#endif /* VERBS_CREDIT_H_INCLUDED */
