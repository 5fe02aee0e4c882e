/* verbs_probe.c: ferry_info's check of verbs on this machine: the RDMA devices and ports, the one
 * verbs would use (FERRY_VERBS_DEVICE, FERRY_VERBS_GID_INDEX) and its limits. */
#include <stdio.h>
#include <string.h>

#include "mpi.h"
#include "verbs_impl.h"

static const char *port_state(enum ibv_port_state s)
{
    switch (s) {
    case IBV_PORT_ACTIVE:
        return "active";
    case IBV_PORT_DOWN:
        return "down";
    case IBV_PORT_INIT:
        return "init";
    case IBV_PORT_ARMED:
        return "armed";
    default:
        return "not active";
    }
}

int MPIDI_VERBS_probe(char *buf, size_t len)
{
    MPIDI_VERBS_state_t *st = &MPIDI_VERBS_state;
    memset(st, 0, sizeof(*st));
    st->rank = -1;
    buf[0] = '\0';
    const char *why = NULL;
    int err = MPIDI_VERBS_open_device(&why);
    if (err) {
        MPIDU_probe_line(buf, len, "not usable: %s", MPIDU_err_string(err));
    } else if (!st->available) {
        MPIDU_probe_line(buf, len, "not usable here: %s (jobs run on the other methods)", why);
    } else {
        MPIDU_probe_line(
            buf, len,
            "usable: %s port %d (%s), GID %d = %s; max_msg_sz %u, max_qp_rd_atom %d, "
            "max_srq_wr %d, fork %s",
            st->devname, st->port,
            st->port_attr.link_layer == IBV_LINK_LAYER_ETHERNET ? "RoCE" : "IB", st->gid_index,
            st->ip, st->port_attr.max_msg_sz, st->dev_attr.max_qp_rd_atom, st->dev_attr.max_srq_wr,
            ibv_is_fork_initialized() == IBV_FORK_UNNEEDED ? "safe"
                                                           : "unsafe unless RDMAV_FORK_SAFE=1");
    }
    int usable = !err && st->available;
    /* Every device and port, whatever was chosen. */
    int n = 0;
    struct ibv_context **list = st->devlist ? st->devlist : rdma_get_devices(&n);
    for (int d = 0; list && list[d]; d++) {
        struct ibv_device_attr da;
        if (ibv_query_device(list[d], &da) != 0)
            continue;
        for (int p = 1; p <= da.phys_port_cnt; p++) {
            struct ibv_port_attr pa;
            if (ibv_query_port(list[d], (uint8_t)p, &pa) == 0)
                MPIDU_probe_line(buf, len, "device %s port %d: %s",
                                 ibv_get_device_name(list[d]->device), p, port_state(pa.state));
        }
    }
    if (list)
        rdma_free_devices(list);
    memset(st, 0, sizeof(*st));
    return usable;
}
