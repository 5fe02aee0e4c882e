/* flow.c: back-pressure on unexpected eager data.
 *
 * An eager message that arrives before its receive is posted is copied and kept until a receive
 * takes it (adi/recvq.c counts the bytes).  MPI lets senders run ahead, so a receiver that posts
 * late, or never, could be sent all of its memory: the blow-up MPICH, Open MPI and UCX users meet
 * (doc/design.md).  Here the receiver bounds it.  When the kept data passes FERRY_UNEXP_LIMIT,
 * each peer whose eager message is kept from then on gets PAUSE: it sends every nonempty message
 * by rendezvous, so what arrives unexpected is a header per message and the data waits in the
 * sender's buffer until the receive is posted.  When the kept data falls to half the limit (the
 * gap keeps a receiver near the limit from sending PAUSE and resume for every message), every
 * peer asked gets PAUSE with pause 0 and sends eagerly again.
 *
 * What a sender had already handed to its method eagerly when PAUSE reached it still arrives (a
 * ring's or a socket's worth), so the kept data can pass the limit by that much; the eager sends
 * it had parked because the method had no room go by rendezvous instead (adi/am.c), and a rank
 * that only sends polls now and then to see a PAUSE (MPID_Send_poll).  The price of a pause is
 * the sender's: a blocking MPI_Send above 0 bytes then waits for its receive, as MPI allows any
 * standard send to; a program that needs more buffering than the limit before it posts its
 * receives must say so (FERRY_UNEXP_LIMIT=0) or use MPI_Bsend. */
#include <stdio.h>
#include <unistd.h>
#include "adi_impl.h"
#include "mpidi_config.h"

size_t MPIDI_unexp_limit;
int MPIDI_npaused;

/* The default: half the node's memory shared by its ranks, so that the ranks of a node together
 * keep at most half of it unexpected. */
static size_t default_limit(void)
{
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    if (pages <= 0 || page <= 0)
        return 0;
    int nlocal = MPIDI_world.nlocal > 0 ? MPIDI_world.nlocal : 1;
    return (size_t)pages * (size_t)page / 2 / (size_t)nlocal;
}

void MPIDI_flow_init(void)
{
    long v = MPIDI_config_int("FERRY_UNEXP_LIMIT");
    MPIDI_unexp_limit = v < 0 ? default_limit() : (size_t)v;
    MPIDI_npaused = 0;
}

static void send_pause(int peer, uint32_t pause)
{
    MPIDI_pause_hdr_t h = {.pause = pause};
    int err = MPIDI_am_send(peer, MPIDI_AM_PAUSE, &h, sizeof(h), NULL, 0, 0, 0);
    /* Only a lost connection makes this fail, and then nothing more comes from the peer. */
    if (err && MPIDI_config_int("FERRY_VERBOSE"))
        fprintf(stderr, "ferry: rank %d: cannot ask rank %d to %s eager sends: %s\n",
                MPIDI_world.rank, peer, pause ? "pause" : "resume", MPIR_Err_string(err));
}

void MPIDI_flow_over(int peer)
{
    MPIDI_peer_t *p = &MPIDI_peers[peer];
    /* Not this rank itself: its messages to itself are its own memory either way, and a program
     * that sends to itself with MPI_Send before it receives would wait for ever. */
    if (p->pause_asked || peer == MPIDI_world.rank)
        return;
    p->pause_asked = 1;
    MPIDI_npaused++;
    MPIDI_stats.unexp_pauses++;
    if (MPIDI_config_int("FERRY_VERBOSE") >= 2)
        fprintf(stderr,
                "ferry: rank %d: %zu bytes of unexpected eager data passed FERRY_UNEXP_LIMIT "
                "(%zu): rank %d sends by rendezvous until they fall to half\n",
                MPIDI_world.rank, MPIDI_recvq_unexp_bytes(), MPIDI_unexp_limit, peer);
    send_pause(peer, 1);
}

void MPIDI_flow_under(void)
{
    /* Rare (once per pause), so a walk over the peers rather than a list. */
    for (int peer = 0; peer < MPIDI_world.size && MPIDI_npaused; peer++) {
        MPIDI_peer_t *p = &MPIDI_peers[peer];
        if (!p->pause_asked)
            continue;
        p->pause_asked = 0;
        MPIDI_npaused--;
        MPIDI_stats.unexp_resumes++;
        send_pause(peer, 0);
    }
}

/* The sender's side.  A peer that asks must have had an eager message from this rank, so this
 * rank has bound it to a method (and set its eager limit) already. */
void MPIDI_handle_pause(int peer, const void *hdr, size_t hdr_len, const void *data, size_t len)
{
    const MPIDI_pause_hdr_t *h = hdr;
    MPIDI_peer_t *p = &MPIDI_peers[peer];
    if (hdr_len < sizeof(*h) || !p->method)
        MPIDI_fatal("rank %d: PAUSE from rank %d, %s: corrupt message", MPIDI_world.rank, peer,
                    !p->method ? "which this rank never sent to" : "too short");
    /* The protocol choice (MPID_Isend, MPID_Send) compares with the peer's eager limit: 0 sends
     * every nonempty message by rendezvous, and nothing else on the send path changes. */
    if (h->pause && !p->paused_by_peer) {
        p->paused_by_peer = 1;
        p->eager_limit = 0;
        MPIDI_stats.eager_paused++;
        MPIDI_deferred_eager_to_rndv(peer);
    } else if (!h->pause && p->paused_by_peer) {
        p->paused_by_peer = 0;
        p->eager_limit = MPIDI_peer_eager_limit(p);
    }
}
