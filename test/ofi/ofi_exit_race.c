/* ofi_exit_race.c: a plain libfabric program, no Ferry, for the crash seen once at the end of an
 * MPI job over verbs;ofi_rxm (doc/methods/ofi.md "A crash inside rxm at finalize").  Senders send
 * COUNT small messages to a receiver and close their endpoints at once, while the receiver does
 * not read its CQ; then the receiver reads its CQ, with the peers' disconnections and their
 * messages both pending.  test/ofi/exit_race.sh runs it in a loop.
 *
 *   ofi_exit_race recv DIR COUNT SENDERS   writes its endpoint name to DIR/name, reads until
 *                                          a message from each sender came, stops reading
 *                                          until DIR/sent.0 .. DIR/sent.<SENDERS-1> exist,
 *                                          sleeps 200 ms, then reads the rest (60 s in all)
 *   ofi_exit_race send DIR COUNT ID        sends COUNT messages, each completed, creates
 *                                          DIR/sent.ID, closes everything and exits
 *
 * The receiver posts 64 single 4 KiB buffers with FI_MR_LOCAL descriptors (as Ferry's
 * FERRY_OFI_MULTI_RECV=0) and reposts each one it reads.  Exits 0 when every message arrived,
 * 1 on an error, 2 when messages were missing; a crash is the provider's. */
#include <rdma/fabric.h>
#include <rdma/fi_cm.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

enum { NBUFS = 64, BUFSZ = 4096, MSGSZ = 64 };

static struct fi_info *info;
static struct fid_fabric *fabric;
static struct fid_domain *domain;
static struct fid_av *av;
static struct fid_cq *cq;
static struct fid_ep *ep;
static struct fid_mr *mr;
static char bufs[NBUFS][BUFSZ];
static struct fi_context2 ctx[NBUFS + 1];

static int check(int ret, const char *what)
{
    if (ret)
        fprintf(stderr, "ofi_exit_race: %s: %s (%d)\n", what, fi_strerror(-ret), ret);
    return ret;
}

static int open_ep(void)
{
    struct fi_info *hints = fi_allocinfo();
    struct fi_cq_attr cqa = {.format = FI_CQ_FORMAT_CONTEXT};
    struct fi_av_attr ava = {.type = FI_AV_TABLE};
    hints->caps = FI_MSG;
    hints->ep_attr->type = FI_EP_RDM;
    hints->mode = FI_CONTEXT | FI_CONTEXT2;
    hints->domain_attr->mr_mode = FI_MR_LOCAL | FI_MR_VIRT_ADDR | FI_MR_ALLOCATED | FI_MR_PROV_KEY;
    hints->domain_attr->threading = FI_THREAD_DOMAIN;
    int bad = check(fi_getinfo(FI_VERSION(1, 10), NULL, NULL, 0, hints, &info), "fi_getinfo") ||
              check(fi_fabric(info->fabric_attr, &fabric, NULL), "fi_fabric") ||
              check(fi_domain(fabric, info, &domain, NULL), "fi_domain") ||
              check(fi_cq_open(domain, &cqa, &cq, NULL), "fi_cq_open") ||
              check(fi_av_open(domain, &ava, &av, NULL), "fi_av_open") ||
              check(fi_endpoint(domain, info, &ep, NULL), "fi_endpoint") ||
              check(fi_ep_bind(ep, &av->fid, 0), "fi_ep_bind av") ||
              check(fi_ep_bind(ep, &cq->fid, FI_TRANSMIT | FI_RECV), "fi_ep_bind cq") ||
              check(fi_enable(ep), "fi_enable") ||
              check(fi_mr_reg(domain, bufs, sizeof(bufs), FI_SEND | FI_RECV, 0, 0, 0, &mr, NULL),
                    "fi_mr_reg");
    fi_freeinfo(hints);
    return bad;
}

static void close_all(void)
{
    fi_close(&ep->fid);
    fi_close(&mr->fid);
    fi_close(&av->fid);
    fi_close(&cq->fid);
    fi_close(&domain->fid);
    fi_close(&fabric->fid);
    fi_freeinfo(info);
}

static int post(int i)
{
    ssize_t ret;
    while ((ret = fi_recv(ep, bufs[i], BUFSZ, fi_mr_desc(mr), FI_ADDR_UNSPEC, &ctx[i])) ==
           -FI_EAGAIN) {
        struct fi_cq_entry e;
        fi_cq_read(cq, &e, 0);
    }
    return check((int)ret, "fi_recv");
}

static int do_recv(const char *dir, int count, int senders)
{
    char path[4096], name[256];
    size_t len = sizeof(name);
    if (open_ep() || check(fi_getname(&ep->fid, name, &len), "fi_getname"))
        return 1;
    for (int i = 0; i < NBUFS; i++)
        if (post(i))
            return 1;
    snprintf(path, sizeof(path), "%s/name.tmp", dir);
    FILE *f = fopen(path, "w");
    if (!f)
        return 1;
    for (size_t i = 0; i < len; i++)
        fprintf(f, "%02x", (unsigned char)name[i]);
    fclose(f);
    char final[4096];
    snprintf(final, sizeof(final), "%s/name", dir);
    rename(path, final);
    /* Progress (rxm accepts connections only then) until a first message from each sender
     * came; then no CQ read until every sender has sent the rest and is closing: their
     * messages and their disconnections meet in one progress call. */
    int got = 0, seen = 0;
    char from[64] = {0};
    time_t end = time(NULL) + 60;
    while (got < count * senders && time(NULL) < end) {
        if (seen == senders) {
            for (int s = 0; s < senders; s++) {
                snprintf(path, sizeof(path), "%s/sent.%d", dir, s);
                while (access(path, F_OK) != 0 && time(NULL) < end)
                    usleep(10000);
            }
            usleep(200000);
            seen = senders + 1;
        }
        struct fi_cq_entry e[8];
        ssize_t n = fi_cq_read(cq, e, 8);
        if (n == -FI_EAVAIL) {
            struct fi_cq_err_entry err = {0};
            fi_cq_readerr(cq, &err, 0);
            fprintf(stderr, "ofi_exit_race: completion error: %s\n", fi_strerror(err.err));
            return 1;
        }
        for (ssize_t k = 0; k < n; k++) {
            int i = (int)((struct fi_context2 *)e[k].op_context - ctx), m, id;
            got++;
            if (sscanf(bufs[i], "message %d from %d", &m, &id) == 2 && id >= 0 &&
                id < (int)sizeof(from) && !from[id] && seen < senders) {
                from[id] = 1;
                seen++;
            }
            if (post(i))
                return 1;
        }
    }
    printf("ofi_exit_race: %d of %d messages on %s\n", got, count * senders,
           info->fabric_attr->prov_name);
    close_all();
    return got == count * senders ? 0 : 2;
}

static int do_send(const char *dir, int count, int id)
{
    char path[4096], hex[600] = "";
    unsigned char name[256];
    size_t n = 0;
    snprintf(path, sizeof(path), "%s/name", dir);
    for (int t = 0; access(path, F_OK) != 0; t++) {
        if (t > 6000)
            return 1;
        usleep(10000);
    }
    FILE *f = fopen(path, "r");
    if (!f || !fgets(hex, sizeof(hex), f))
        return 1;
    fclose(f);
    for (const char *h = hex; h[0] && h[1] && h[0] != '\n' && n < sizeof(name); h += 2)
        sscanf(h, "%2hhx", &name[n++]);
    fi_addr_t to;
    if (open_ep() || fi_av_insert(av, name, 1, &to, 0, NULL) != 1)
        return 1;
    for (int m = 0; m < count; m++) {
        snprintf(bufs[0], MSGSZ, "message %d from %d", m, id);
        ssize_t ret;
        time_t end = time(NULL) + 10;
        struct fi_cq_entry e;
        while ((ret = fi_send(ep, bufs[0], MSGSZ, fi_mr_desc(mr), to, &ctx[NBUFS])) ==
                   -FI_EAGAIN &&
               time(NULL) < end)
            fi_cq_read(cq, &e, 0);
        if (check((int)ret, "fi_send"))
            return 1;
        while ((ret = fi_cq_read(cq, &e, 1)) == -FI_EAGAIN && time(NULL) < end)
            ;
        if (ret != 1) {
            fprintf(stderr, "ofi_exit_race: send completion: %zd\n", ret);
            return 1;
        }
    }
    snprintf(path, sizeof(path), "%s/sent.%d", dir, id);
    f = fopen(path, "w");
    if (f)
        fclose(f);
    close_all();
    return 0;
}

int main(int argc, char **argv)
{
    if (argc == 5 && strcmp(argv[1], "recv") == 0)
        return do_recv(argv[2], atoi(argv[3]), atoi(argv[4]));
    if (argc == 5 && strcmp(argv[1], "send") == 0)
        return do_send(argv[2], atoi(argv[3]), atoi(argv[4]));
    fprintf(stderr, "usage: ofi_exit_race recv DIR COUNT SENDERS | send DIR COUNT ID\n");
    return 1;
}
