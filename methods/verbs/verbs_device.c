/* verbs_device.c: choosing the device, port and GID (and so the IP address rdma_cm uses). */
#include <arpa/inet.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <stdio.h>
#include <string.h>

#include "mpi.h"
#include "verbs_impl.h"

/* How good a GID table entry is for us.  rdma_cm names peers by IP
 * address, so the entry must lead to one: a RoCE v2 GID that is an
 * IPv4-mapped address is best (routable, what rdma_cm picks for an IPv4
 * address), a global IPv6 RoCE v2 GID next; RoCE v1 and link-local GIDs
 * are not routable between subnets, and an InfiniBand GID needs the
 * address of its IPoIB interface. */
enum { GID_NONE, GID_IB_IPOIB, GID_V2_IPV6, GID_V2_IPV4 };

static int ipv4_of_ifindex(int ifindex, char *ip, size_t len)
{
    struct ifaddrs *ifa, *i;
    char name[IF_NAMESIZE];
    if (ifindex <= 0 || !if_indextoname((unsigned)ifindex, name) || getifaddrs(&ifa) != 0)
        return -1;
    int found = -1;
    for (i = ifa; i && found; i = i->ifa_next) {
        if (i->ifa_addr && i->ifa_addr->sa_family == AF_INET && strcmp(i->ifa_name, name) == 0) {
            inet_ntop(AF_INET, &((struct sockaddr_in *)i->ifa_addr)->sin_addr, ip, (socklen_t)len);
            found = 0;
        }
    }
    freeifaddrs(ifa);
    return found;
}

static int rate_gid(const struct ibv_gid_entry *e, char *ip, size_t len)
{
    const uint8_t *raw = e->gid.raw;
    static const uint8_t v4_prefix[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
    static const uint8_t zero[16];
    if (memcmp(raw, zero, 16) == 0)
        return GID_NONE; /* an empty slot */
    if (e->gid_type == IBV_GID_TYPE_ROCE_V2) {
        if (memcmp(raw, v4_prefix, 12) == 0) {
            inet_ntop(AF_INET, raw + 12, ip, (socklen_t)len);
            return GID_V2_IPV4;
        }
        if (raw[0] == 0xfe && (raw[1] & 0xc0) == 0x80)
            return GID_NONE; /* link-local: needs a scope, not routable */
        inet_ntop(AF_INET6, raw, ip, (socklen_t)len);
        return GID_V2_IPV6;
    }
    if (e->gid_type == IBV_GID_TYPE_IB && ipv4_of_ifindex((int)e->ndev_ifindex, ip, len) == 0)
        return GID_IB_IPOIB;
    return GID_NONE;
}

/* The best GID of a port (or the one FERRY_VERBS_GID_INDEX asks for);
 * returns its index or -1 with *why_p set. */
static int pick_gid(struct ibv_context *ctx, int port, int tbl_len, long want, char *ip, size_t len,
                    const char **why_p)
{
    int best = -1, best_rate = GID_NONE;
    for (int i = 0; i < tbl_len; i++) {
        if (want >= 0 && i != want)
            continue;
        struct ibv_gid_entry e;
        char addr[64];
        if (ibv_query_gid_ex(ctx, (uint32_t)port, (uint32_t)i, &e, 0) != 0)
            continue;
        int r = rate_gid(&e, addr, sizeof(addr));
        if (r > best_rate) {
            best_rate = r;
            best = i;
            snprintf(ip, len, "%s", addr);
        }
    }
    if (best < 0)
        *why_p = want >= 0 ? "the GID at FERRY_VERBS_GID_INDEX is empty or has no IP address"
                           : "no GID with an IP address (RoCE v2 or IPoIB)";
    return best;
}

/* Finds the device, port and GID; fills the state, or leaves available 0
 * with *why_p saying why (no device, port down, no usable GID).  An explicit
 * FERRY_VERBS_DEVICE or FERRY_VERBS_GID_INDEX that cannot be met is an
 * error, not a quiet "unavailable": the user asked for it. */
int MPIDI_VERBS_open_device(const char **why_p)
{
    MPIDI_VERBS_state_t *st = &MPIDI_VERBS_state;
    const char *want = MPIDU_config_str("FERRY_VERBS_DEVICE");
    long want_gid = MPIDU_config_int("FERRY_VERBS_GID_INDEX");
    char want_name[64] = "";
    int want_port = 0;
    const char *why = "no RDMA device";
    if (*want) {
        const char *colon = strchr(want, ':');
        size_t n = colon ? (size_t)(colon - want) : strlen(want);
        snprintf(want_name, sizeof(want_name), "%.*s", (int)n, want);
        if (colon && sscanf(colon + 1, "%d", &want_port) != 1)
            return MPIDU_err_create(MPI_ERR_ARG,
                                    "FERRY_VERBS_DEVICE=\"%s\": expected NAME or "
                                    "NAME:PORT (e.g. rxe0:1)",
                                    want);
    }
    int n = 0;
    st->devlist = rdma_get_devices(&n);
    for (int d = 0; st->devlist && d < n; d++) {
        struct ibv_context *ctx = st->devlist[d];
        const char *name = ibv_get_device_name(ctx->device);
        if (*want_name && strcmp(name, want_name) != 0)
            continue;
        struct ibv_device_attr da;
        if (ibv_query_device(ctx, &da) != 0) {
            why = "ibv_query_device failed";
            continue;
        }
        for (int port = 1; port <= da.phys_port_cnt; port++) {
            if (want_port && port != want_port)
                continue;
            struct ibv_port_attr pa;
            if (ibv_query_port(ctx, (uint8_t)port, &pa) != 0) {
                why = "ibv_query_port failed";
                continue;
            }
            if (pa.state != IBV_PORT_ACTIVE) {
                why = "the port is not active (link down)";
                continue;
            }
            int g = pick_gid(ctx, port, pa.gid_tbl_len, want_gid, st->ip, sizeof(st->ip), &why);
            if (g < 0)
                continue;
            st->ctx = ctx;
            st->port = port;
            st->gid_index = g;
            st->dev_attr = da;
            st->port_attr = pa;
            snprintf(st->devname, sizeof(st->devname), "%s", name);
            st->available = 1;
            return MPI_SUCCESS;
        }
    }
    if (*want_name || want_gid >= 0)
        return MPIDU_err_create(MPI_ERR_OTHER,
                                "verbs: FERRY_VERBS_DEVICE=\"%s\" "
                                "FERRY_VERBS_GID_INDEX=%ld cannot be used: %s",
                                want, want_gid, why);
    *why_p = why;
    return MPI_SUCCESS;
}
