/* ofi_stranger.c: a stranger on the fabric (not a rank of the job) sends messages to a rank's ofi
 * endpoint: one claiming to come from rank 1 with a made-up token, one with no token, one too
 * short for a header (test/ofi/run.sh; doc/security.md "ofi").  Each send is waited for.
 *
 * usage: ofi_stranger CARD     (the rank's ofi card: prov|fabric|node|pid|nonce|name-in-hex)
 * Exits 0 when the three messages were sent, 1 otherwise. */
#include <rdma/fabric.h>
#include <rdma/fi_cm.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

/* The method's wire header (methods/ofi/ofi_impl.h), written out: the stranger has no token. */
struct hdr {
    uint32_t src;
    uint16_t handler;
    uint8_t hdr_len;
    uint8_t version;
    uint64_t token;
};

static int check(int ret, const char *what)
{
    if (ret)
        fprintf(stderr, "ofi_stranger: %s: %s (%d)\n", what, fi_strerror(-ret), ret);
    return ret;
}

static int send_wait(struct fid_ep *ep, struct fid_cq *cq, const void *buf, size_t len,
                     fi_addr_t to)
{
    static struct fi_context2 ctx;
    ssize_t ret;
    time_t end = time(NULL) + 10;
    struct fi_cq_entry e;
    while ((ret = fi_send(ep, buf, len, NULL, to, &ctx)) == -FI_EAGAIN && time(NULL) < end)
        fi_cq_read(cq, &e, 1);
    if (check((int)ret, "fi_send"))
        return 1;
    while (time(NULL) < end) {
        ret = fi_cq_read(cq, &e, 1);
        if (ret == 1)
            return 0;
        if (ret != -FI_EAGAIN) {
            struct fi_cq_err_entry err = {0};
            fi_cq_readerr(cq, &err, 0);
            fprintf(stderr, "ofi_stranger: send completion: %s\n", fi_strerror(err.err));
            return 1;
        }
    }
    fprintf(stderr, "ofi_stranger: no send completion within 10 s\n");
    return 1;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: ofi_stranger CARD\n");
        return 1;
    }
    const char *hex = strrchr(argv[1], '|');
    unsigned char name[256];
    size_t n = 0;
    for (hex = hex ? hex + 1 : ""; hex[0] && hex[1] && hex[0] != '\n' && n < sizeof(name); hex += 2)
        sscanf(hex, "%2hhx", &name[n++]);
    if (n == 0) {
        fprintf(stderr, "ofi_stranger: no endpoint name in the card '%s'\n", argv[1]);
        return 1;
    }
    struct fi_info *hints = fi_allocinfo(), *info;
    hints->caps = FI_MSG;
    hints->ep_attr->type = FI_EP_RDM;
    hints->mode = FI_CONTEXT | FI_CONTEXT2;
    hints->domain_attr->mr_mode = FI_MR_LOCAL | FI_MR_VIRT_ADDR | FI_MR_ALLOCATED | FI_MR_PROV_KEY;
    struct fid_fabric *fabric;
    struct fid_domain *domain;
    struct fid_av *av;
    struct fid_cq *cq;
    struct fid_ep *ep;
    struct fi_cq_attr cqa = {.format = FI_CQ_FORMAT_CONTEXT};
    struct fi_av_attr ava = {.type = FI_AV_TABLE};
    fi_addr_t to;
    if (check(fi_getinfo(FI_VERSION(1, 10), NULL, NULL, 0, hints, &info), "fi_getinfo") ||
        check(fi_fabric(info->fabric_attr, &fabric, NULL), "fi_fabric") ||
        check(fi_domain(fabric, info, &domain, NULL), "fi_domain") ||
        check(fi_cq_open(domain, &cqa, &cq, NULL), "fi_cq_open") ||
        check(fi_av_open(domain, &ava, &av, NULL), "fi_av_open") ||
        check(fi_endpoint(domain, info, &ep, NULL), "fi_endpoint") ||
        check(fi_ep_bind(ep, &av->fid, 0), "fi_ep_bind") ||
        check(fi_ep_bind(ep, &cq->fid, FI_TRANSMIT | FI_RECV), "fi_ep_bind") ||
        check(fi_enable(ep), "fi_enable"))
        return 1;
    if (fi_av_insert(av, name, 1, &to, 0, NULL) != 1) {
        fprintf(stderr, "ofi_stranger: fi_av_insert failed\n");
        return 1;
    }
    /* An eager message header of the core would follow; its content does not matter: the
     * message must be dropped before the core sees it. */
    char msg[64] = {0};
    struct hdr h = {
        .src = 1, .handler = 0, .hdr_len = 8, .version = 1, .token = 0x0123456789abcdefULL};
    memcpy(msg, &h, sizeof(h));
    int bad = send_wait(ep, cq, msg, sizeof(msg), to);
    h.token = 0;
    memcpy(msg, &h, sizeof(h));
    bad |= send_wait(ep, cq, msg, sizeof(msg), to);
    bad |= send_wait(ep, cq, msg, 4, to);
    printf("ofi_stranger: 3 messages sent to %s\n", info->fabric_attr->prov_name);
    fi_close(&ep->fid);
    fi_close(&av->fid);
    fi_close(&cq->fid);
    fi_close(&domain->fid);
    fi_close(&fabric->fid);
    fi_freeinfo(info);
    fi_freeinfo(hints);
    return bad;
}
