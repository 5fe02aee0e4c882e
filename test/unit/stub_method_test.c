/* stub_method_test.c: the stub method skeleton compiles, is a well-formed table, reaches nobody. */
#include <stdio.h>
#include <string.h>
#include "method.h"

extern const MPIDI_method_ops_t MPIDI_stub_ops;

int main(void)
{
    const MPIDI_method_ops_t *m = &MPIDI_stub_ops;
    int errors = 0;
    if (m->size != sizeof(MPIDI_method_ops_t)) {
        fprintf(stderr, "size is %zu, expected %zu\n", m->size, sizeof(MPIDI_method_ops_t));
        errors++;
    }
    if (!m->name || strcmp(m->name, "stub") != 0) {
        fprintf(stderr, "name is %s, expected stub\n", m->name ? m->name : "(null)");
        errors++;
    }
    /* The mandatory entries of method.h. */
    if (!m->init || !m->get_business_card || !m->finalize || !m->reachable || !m->connect ||
        !m->am_send || !m->progress) {
        fprintf(stderr, "a mandatory entry is missing\n");
        errors++;
    }
    int ranks[1] = {0}, nodes[2] = {0, 0};
    MPIDI_job_t job = {.rank = 0, .size = 2, .kvsname = "t", .hostname = "h", .nlocal = 2,
                       .local_ranks = ranks, .node_of = nodes};
    MPIDI_method_caps_t caps = {.size = sizeof(caps)};
    if (m->init(&job, &caps) != 0 || caps.max_send < caps.eager_limit || !caps.rndv_modes) {
        fprintf(stderr, "init gave eager %zu max_send %zu modes %u\n", caps.eager_limit,
                caps.max_send, caps.rndv_modes);
        errors++;
    }
    char card[64];
    if (m->get_business_card(card, sizeof(card)) != 0 || m->reachable(1, card) != 0) {
        fprintf(stderr, "the stub must publish a card and reach nobody\n");
        errors++;
    }
    int made = 0;
    if (m->progress(&made) != 0 || made != 0) {
        fprintf(stderr, "an idle stub's progress must succeed and report nothing (made=%d)\n",
                made);
        errors++;
    }
    if (m->finalize() != 0) {
        fprintf(stderr, "finalize failed\n");
        errors++;
    }
    if (errors)
        return 1;
    printf(" No Errors\n");
    return 0;
}
