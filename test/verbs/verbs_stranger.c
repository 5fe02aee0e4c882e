/* verbs_stranger.c: a process outside the job knocks on a rank's rdma_cm listener (test/verbs/
 * vm.sh, doc/security.md): with no private data, with random bytes, and with a request that
 * has the right layout and magic but a MAC made without the job's secret.  Each must be
 * rejected, and the rejection must tell it nothing (no private data).
 *
 *   verbs_stranger ADDRESS PORT
 * Prints "refused MODE" per attempt that was rejected as it should be, "FAIL MODE: why"
 * otherwise; exits 0 only if all were refused. */
#include <arpa/inet.h>
#include <rdma/rdma_cma.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The layout of verbs' REQ (methods/verbs/verbs_impl.h), filled as a rank of the job would,
 * but sealed with a key the stranger made up. */
struct req {
    uint32_t magic, rank, to;
    uint16_t credits, reserved;
    uint8_t nonce[16], mac[16];
};

static struct rdma_cm_event *wait_event(struct rdma_event_channel *ch)
{
    struct rdma_cm_event *ev;
    return rdma_get_cm_event(ch, &ev) == 0 ? ev : NULL;
}

/* One attempt: 0 if rejected with nothing said. */
static int knock(const char *addr, int port, const char *mode, const void *priv, uint8_t len)
{
    struct rdma_event_channel *ch = rdma_create_event_channel();
    struct rdma_cm_id *id = NULL;
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    inet_pton(AF_INET, addr, &sa.sin_addr);
    if (!ch || rdma_create_id(ch, &id, NULL, RDMA_PS_TCP) ||
        rdma_resolve_addr(id, NULL, (struct sockaddr *)&sa, 2000)) {
        printf("FAIL %s: cannot start (%m)\n", mode);
        return 1;
    }
    int rc = 1;
    for (;;) {
        struct rdma_cm_event *ev = wait_event(ch);
        if (!ev) {
            printf("FAIL %s: no event\n", mode);
            break;
        }
        enum rdma_cm_event_type t = ev->event;
        uint8_t plen = ev->param.conn.private_data_len;
        const uint8_t *pd = ev->param.conn.private_data;
        int said = 0;
        for (int i = 0; pd && i < plen; i++)
            said |= pd[i];
        rdma_ack_cm_event(ev);
        if (t == RDMA_CM_EVENT_ADDR_RESOLVED) {
            rdma_resolve_route(id, 2000);
            continue;
        }
        if (t == RDMA_CM_EVENT_ROUTE_RESOLVED) {
            struct ibv_qp_init_attr qa = {
                .qp_type = IBV_QPT_RC,
                .cap = {.max_send_wr = 4, .max_recv_wr = 4, .max_send_sge = 1, .max_recv_sge = 1}};
            struct rdma_conn_param p = {.private_data = priv,
                                        .private_data_len = len,
                                        .responder_resources = 1,
                                        .initiator_depth = 1,
                                        .retry_count = 1,
                                        .rnr_retry_count = 1};
            if (rdma_create_qp(id, NULL, &qa) || rdma_connect(id, &p)) {
                printf("FAIL %s: rdma_connect (%m)\n", mode);
                break;
            }
            continue;
        }
        if (t == RDMA_CM_EVENT_REJECTED) {
            if (said)
                printf("FAIL %s: rejected, but the rejection carries data\n", mode);
            else
                printf("refused %s\n", mode), rc = 0;
        } else {
            printf("FAIL %s: %s instead of a rejection\n", mode, rdma_event_str(t));
        }
        break;
    }
    if (id->qp)
        rdma_destroy_qp(id);
    rdma_destroy_id(id);
    rdma_destroy_event_channel(ch);
    return rc;
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: verbs_stranger ADDRESS PORT\n");
        return 2;
    }
    int port = atoi(argv[2]);
    unsigned char junk[56];
    srand(12345);
    for (size_t i = 0; i < sizeof(junk); i++)
        junk[i] = (unsigned char)rand();
    struct req forged = {.magic = 0x56595247u, .rank = 0, .to = 1, .credits = 32};
    memset(forged.nonce, 0x11, sizeof(forged.nonce));
    memset(forged.mac, 0x22, sizeof(forged.mac)); /* not the job's MAC */
    int bad = knock(argv[1], port, "no_private_data", NULL, 0);
    bad += knock(argv[1], port, "random_bytes", junk, sizeof(junk));
    bad += knock(argv[1], port, "forged_request", &forged, sizeof(forged));
    return bad ? 1 : 0;
}
