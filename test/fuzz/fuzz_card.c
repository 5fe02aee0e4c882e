/* fuzz_card.c: libFuzzer target for the business-card parser of the tcp method (what a rank
 * reads from the key-value space about a peer: "1;<port>;<addr>;<addr>..."), with the ordering
 * of the addresses it yields.  Input: any bytes, taken as the card's text. */
#include <stdlib.h>
#include <string.h>

#include "mpi.h"
#include "tcp_impl.h"

static const int node_of[4] = {0, 0, 1, 1};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* A card comes out of a PMI get: a NUL-terminated value of at most 1 KiB. */
    if (size > 1024)
        return 0;
    char card[1025];
    memcpy(card, data, size);
    card[size] = '\0';
    MPIDI_TCP_state.rank = 0;
    MPIDI_TCP_state.size = 4;
    MPIDI_TCP_state.node_of = node_of;
    MPIDI_TCP_state.node_id = 0;
    MPIDI_TCP_addr_t addrs[MPIDI_TCP_MAX_ADDRS];
    int n = -1;
    int peer = size ? data[0] % 4 : 1;
    if (MPIDI_TCP_addr_parse_card(peer, card, addrs, MPIDI_TCP_MAX_ADDRS, &n) != MPI_SUCCESS)
        return 0;
    if (n < 0 || n > MPIDI_TCP_MAX_ADDRS)
        abort();
    MPIDI_TCP_addr_order(addrs, &n, node_of[peer] == 0);
    char text[80];
    for (int i = 0; i < n; i++)
        MPIDI_TCP_addr_str(&addrs[i], text, sizeof(text));
    return 0;
}
