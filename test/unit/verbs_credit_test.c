/* verbs_credit_test.c: the verbs method's credit accounting, without a device: two simulated ends
 * of a connection exchange messages over in-order channels under random schedules, and the test
 * checks that no message ever finds its receiver without a buffer (no receiver-not-ready), that
 * traffic never stalls, and that every credit comes home at the end. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "verbs_credit.h"

#define MAXQ 4096

typedef struct msg {
    MPIDI_VERBS_hdr_t h;
} msg_t;

/* One direction: messages sent and not yet consumed by the receiver (RC
 * delivers them in order; each holds one receive buffer from the moment it
 * lands until it is consumed). */
typedef struct chan {
    msg_t q[MAXQ];
    int head, tail;
} chan_t;

typedef struct end {
    MPIDI_VERBS_credit_t cr;
    int to_send; /* data messages still to send */
    int sent, credit_msgs;
    int said_bye, peer_said_bye;
    int starved_seen;
} end_t;

static int failures;

#define CHECK(cond, ...)                                                                           \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "FAIL %s: %s: ", name, #cond);                                         \
            fprintf(stderr, __VA_ARGS__);                                                          \
            fprintf(stderr, "\n");                                                                 \
            failures++;                                                                            \
            return;                                                                                \
        }                                                                                          \
    } while (0)

static int qlen(const chan_t *c)
{
    return c->tail - c->head;
}

/* Buffers the receiver holds for this sender: granted, plus the reserved
 * slot.  Counts what the channel holds of each kind. */
static int held(const chan_t *c, int slot)
{
    int n = 0;
    for (int i = c->head; i < c->tail; i++)
        n += !!(c->q[i % MAXQ].h.flags & MPIDI_VERBS_F_CTRL_SLOT) == slot;
    return n;
}

/* Tries one message from e into c; own: a CREDIT or BYE. */
static int try_send(end_t *e, chan_t *c, int own, int handler)
{
    MPIDI_VERBS_spend_t s = MPIDI_VERBS_credit_peek(&e->cr, own);
    if (s == MPIDI_VERBS_SPEND_NONE) {
        e->starved_seen += !own;
        return 0;
    }
    msg_t *m = &c->q[c->tail++ % MAXQ];
    memset(m, 0, sizeof(*m));
    MPIDI_VERBS_credit_spend(&e->cr, s, &m->h);
    m->h.handler = (uint8_t)handler;
    return 1;
}

/* One simulated connection: a and b with the given grants; traffic
 * na and nb data messages; every = the CREDIT threshold; p_recv the chance
 * a step consumes a message rather than sends one. */
static void run(const char *name, int grant_a, int grant_b, int na, int nb, int every,
                unsigned seed, int p_recv)
{
    static chan_t ab, ba; /* a -> b, b -> a */
    end_t a = {0}, b = {0};
    memset(&ab, 0, sizeof(ab));
    memset(&ba, 0, sizeof(ba));
    srand(seed);
    /* a grants b grant_a buffers: b starts with grant_a credits. */
    MPIDI_VERBS_credit_init(&a.cr, grant_b, grant_a);
    MPIDI_VERBS_credit_init(&b.cr, grant_a, grant_b);
    a.to_send = na;
    b.to_send = nb;
    int idle = 0, finalizing = 0;
    for (long step = 0; step < 10000000L; step++) {
        int moved = 0;
        end_t *x = rand() % 2 ? &a : &b;
        chan_t *out = x == &a ? &ab : &ba;
        chan_t *in = x == &a ? &ba : &ab;
        if (rand() % 100 < p_recv && qlen(in) > 0) {
            /* x consumes the oldest message from y. */
            msg_t m = in->q[in->head++ % MAXQ];
            MPIDI_VERBS_credit_arrived(&x->cr, &m.h);
            if (m.h.handler == MPIDI_VERBS_BYE)
                x->peer_said_bye = 1;
            moved = 1;
        } else if (!finalizing && x->to_send > 0) {
            if (try_send(x, out, 0, 1)) {
                x->to_send--;
                x->sent++;
                moved = 1;
            }
        } else if (finalizing && !x->said_bye) {
            if (try_send(x, out, 1, MPIDI_VERBS_BYE)) {
                x->said_bye = 1;
                moved = 1;
            }
        }
        /* The progress engine's check, every step, at both ends. */
        for (end_t *e = &a; e; e = e == &a ? &b : NULL) {
            chan_t *eo = e == &a ? &ab : &ba;
            if (MPIDI_VERBS_credit_due(&e->cr, every, e->said_bye, e->peer_said_bye) &&
                try_send(e, eo, 1, MPIDI_VERBS_CREDIT)) {
                e->credit_msgs++;
                moved = 1;
            }
        }
        /* The receiver's buffers: never more of a sender's messages than it
         * granted, never more than one in the reserved slot. */
        CHECK(held(&ab, 0) <= b.cr.granted && held(&ab, 1) <= 1,
              "a has %d regular and %d slot messages unconsumed at b, which granted %d",
              held(&ab, 0), held(&ab, 1), b.cr.granted);
        CHECK(held(&ba, 0) <= a.cr.granted && held(&ba, 1) <= 1,
              "b has %d regular and %d slot messages unconsumed at a, which granted %d",
              held(&ba, 0), held(&ba, 1), a.cr.granted);
        CHECK(a.cr.credits >= 0 && b.cr.credits >= 0, "credits went negative: %d %d", a.cr.credits,
              b.cr.credits);
        if (a.to_send == 0 && b.to_send == 0 && !finalizing)
            finalizing = 1; /* the finalize barrier is over: BYE */
        if (finalizing && a.peer_said_bye && b.peer_said_bye && qlen(&ab) == 0 && qlen(&ba) == 0)
            break;
        idle = moved || qlen(&ab) || qlen(&ba) ? 0 : idle + 1;
        CHECK(idle < 1000,
              "stalled: a has %d to send (credits %d, slot free %d), b has %d (credits %d, "
              "slot free %d), owed a %d b %d",
              a.to_send, a.cr.credits, a.cr.ctrl_free, b.to_send, b.cr.credits, b.cr.ctrl_free,
              a.cr.owed, b.cr.owed);
    }
    CHECK(a.sent == na && b.sent == nb, "sent %d of %d and %d of %d", a.sent, na, b.sent, nb);
    CHECK(a.peer_said_bye && b.peer_said_bye, "no BYE (%d %d)", a.peer_said_bye, b.peer_said_bye);
    /* Every buffer accounted for: what each side holds as credits plus what
     * the other still owes it is what the other granted. */
    CHECK(a.cr.credits + b.cr.owed == b.cr.granted && b.cr.credits + a.cr.owed == a.cr.granted,
          "credits lost: a %d + owed by b %d != %d, b %d + owed by a %d != %d", a.cr.credits,
          b.cr.owed, b.cr.granted, b.cr.credits, a.cr.owed, a.cr.granted);
    printf("PASS %s (a sent %d, %d credit messages, starved %d; b sent %d, %d credit "
           "messages, starved %d)\n",
           name, a.sent, a.credit_msgs, a.starved_seen, b.sent, b.credit_msgs, b.starved_seen);
}

int main(void)
{
    char name[128];
    int every_of[] = {1, 4, 16, 1000};
    for (unsigned seed = 1; seed <= 20; seed++) {
        for (int e = 0; e < 4; e++) {
            int every = every_of[e];
            snprintf(name, sizeof(name), "one-way grant 1 every %d seed %u", every, seed);
            run(name, 1, 1, 500, 0, every, seed, 50);
            snprintf(name, sizeof(name), "one-way grant 32 every %d seed %u", every, seed);
            run(name, 32, 32, 2000, 0, every, seed, 30);
            snprintf(name, sizeof(name), "both ways grant 1/3 every %d seed %u", every, seed);
            run(name, 1, 3, 700, 900, every, seed, 40);
            snprintf(name, sizeof(name), "both ways slow receiver grant 2 every %d seed %u", every,
                     seed);
            run(name, 2, 2, 800, 800, every, seed, 10);
            snprintf(name, sizeof(name), "both ways fast receiver grant 8/1 every %d seed %u",
                     every, seed);
            run(name, 8, 1, 800, 300, every, seed, 90);
        }
    }
    /* The receiver adds buffers on the way (the SRQ limit event): they
     * reach the sender and are used. */
    {
        const char *n2 = "grant_more";
        MPIDI_VERBS_credit_t r, s;
        MPIDI_VERBS_hdr_t h = {0};
        MPIDI_VERBS_credit_init(&r, 0, 2);
        MPIDI_VERBS_credit_init(&s, 2, 0);
        MPIDI_VERBS_credit_grant_more(&r, 5);
        MPIDI_VERBS_credit_spend(&r, MPIDI_VERBS_credit_peek(&r, 1), &h);
        MPIDI_VERBS_credit_arrived(&s, &h);
        if (s.credits != 7 || r.granted != 7 || r.owed != 0) {
            fprintf(stderr,
                    "FAIL %s: sender has %d credits (want 7), receiver granted %d owes %d\n", n2,
                    s.credits, r.granted, r.owed);
            failures++;
        } else {
            printf("PASS %s\n", n2);
        }
    }
    printf("%s\n", failures ? "verbs_credit_test: FAILED" : "verbs_credit_test: all passed");
    return failures ? 1 : 0;
}
