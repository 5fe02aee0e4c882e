/* tcp_addr.c: which local addresses tcp publishes (FERRY_TCP_IF), business cards, address order. */
#include <arpa/inet.h>
#include <errno.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpi.h"
#include "tcp_impl.h"

/* Card format: "1;<port>;<addr>;<addr>..." with addresses in text form
 * (IPv4 dotted quad or IPv6), no blanks and no '=' so that every PMI
 * implementation stores it verbatim.  The leading 1 is the card version. */
#define CARD_VERSION "1"

static int is_loopback(const struct sockaddr *sa)
{
    if (sa->sa_family == AF_INET)
        return (ntohl(((const struct sockaddr_in *)sa)->sin_addr.s_addr) >> 24) == 127;
    if (sa->sa_family == AF_INET6) {
        const struct in6_addr *a = &((const struct sockaddr_in6 *)sa)->sin6_addr;
        return IN6_IS_ADDR_LOOPBACK(a) || (IN6_IS_ADDR_V4MAPPED(a) && a->s6_addr[12] == 127);
    }
    return 0;
}

/* Link-local addresses need an interface index to be usable, which differs
 * between hosts: they are never published. */
static int is_link_local(const struct sockaddr *sa)
{
    if (sa->sa_family == AF_INET)
        return (ntohl(((const struct sockaddr_in *)sa)->sin_addr.s_addr) >> 16) == 0xa9fe;
    if (sa->sa_family == AF_INET6)
        return IN6_IS_ADDR_LINKLOCAL(&((const struct sockaddr_in6 *)sa)->sin6_addr);
    return 0;
}

static const unsigned char *addr_bytes(const struct sockaddr *sa, size_t *len_p)
{
    if (sa->sa_family == AF_INET) {
        *len_p = 4;
        return (const unsigned char *)&((const struct sockaddr_in *)sa)->sin_addr;
    }
    *len_p = 16;
    return ((const struct sockaddr_in6 *)sa)->sin6_addr.s6_addr;
}

/* Is a within prefix/bits (same family)? */
static int in_prefix(const struct sockaddr *a, const struct sockaddr *prefix, int bits)
{
    size_t la, lp;
    if (a->sa_family != prefix->sa_family)
        return 0;
    const unsigned char *x = addr_bytes(a, &la), *y = addr_bytes(prefix, &lp);
    for (int i = 0; i < (int)la && bits > 0; i++, bits -= 8) {
        unsigned char mask = bits >= 8 ? 0xff : (unsigned char)(0xff << (8 - bits));
        if ((x[i] & mask) != (y[i] & mask))
            return 0;
    }
    return 1;
}

/* Is a within the subnet addr/mask (same family)? */
static int in_subnet(const struct sockaddr *a, const struct sockaddr *addr,
                     const struct sockaddr *mask)
{
    size_t la, lb, lm;
    if (a->sa_family != addr->sa_family || mask->sa_family != addr->sa_family)
        return 0;
    const unsigned char *x = addr_bytes(a, &la), *y = addr_bytes(addr, &lb),
                        *m = addr_bytes(mask, &lm);
    for (size_t i = 0; i < la; i++)
        if ((x[i] & m[i]) != (y[i] & m[i]))
            return 0;
    return 1;
}

static int parse_ip(const char *s, struct sockaddr_storage *ss)
{
    memset(ss, 0, sizeof(*ss));
    struct sockaddr_in *s4 = (struct sockaddr_in *)ss;
    struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)ss;
    if (inet_pton(AF_INET, s, &s4->sin_addr) == 1) {
        s4->sin_family = AF_INET;
        return 0;
    }
    if (inet_pton(AF_INET6, s, &s6->sin6_addr) == 1) {
        s6->sin6_family = AF_INET6;
        return 0;
    }
    return -1;
}

const char *MPIDI_TCP_addr_str(const MPIDI_TCP_addr_t *a, char *buf, size_t len)
{
    char host[INET6_ADDRSTRLEN] = "?";
    const struct sockaddr *sa = (const struct sockaddr *)&a->sa;
    int port = 0;
    if (sa->sa_family == AF_INET) {
        inet_ntop(AF_INET, &((const struct sockaddr_in *)sa)->sin_addr, host, sizeof(host));
        port = ntohs(((const struct sockaddr_in *)sa)->sin_port);
        snprintf(buf, len, "%s:%d", host, port);
    } else {
        inet_ntop(AF_INET6, &((const struct sockaddr_in6 *)sa)->sin6_addr, host, sizeof(host));
        port = ntohs(((const struct sockaddr_in6 *)sa)->sin6_port);
        snprintf(buf, len, "[%s]:%d", host, port);
    }
    return buf;
}

/* One FERRY_TCP_IF item: an interface name, or an address with an optional
 * /prefix length (a bare address means exactly that address). */
typedef struct if_item {
    char name[IF_NAMESIZE + 1];
    struct sockaddr_storage prefix;
    int bits; /* -1: the item is a name */
} if_item_t;

static int parse_if_list(const char *list, if_item_t *items, int max, int *n_p)
{
    int n = 0;
    for (const char *s = list; *s;) {
        size_t len = strcspn(s, ",");
        char tok[128];
        if (len == 0 || len >= sizeof(tok) || n == max)
            return MPIDU_err_create(MPI_ERR_ARG,
                                    "FERRY_TCP_IF=\"%s\": expected up to %d comma-separated "
                                    "interface names or CIDRs (e.g. eth0,10.0.0.0/8)",
                                    list, max);
        memcpy(tok, s, len);
        tok[len] = '\0';
        s += len + (s[len] == ',');
        if_item_t *it = &items[n++];
        char *slash = strchr(tok, '/');
        if (slash)
            *slash = '\0';
        if (parse_ip(tok, &it->prefix) == 0) {
            int maxbits = it->prefix.ss_family == AF_INET ? 32 : 128;
            it->bits = maxbits;
            if (slash) {
                char *end;
                long b = strtol(slash + 1, &end, 10);
                if (end == slash + 1 || *end || b < 0 || b > maxbits)
                    return MPIDU_err_create(MPI_ERR_ARG,
                                            "FERRY_TCP_IF=\"%s\": bad prefix length /%s in %s/%s "
                                            "(0 to %d)",
                                            list, slash + 1, tok, slash + 1, maxbits);
                it->bits = (int)b;
            }
        } else {
            if (slash || len > IF_NAMESIZE)
                return MPIDU_err_create(MPI_ERR_ARG,
                                        "FERRY_TCP_IF=\"%s\": \"%s%s%s\" is neither an interface "
                                        "name nor an address/prefix",
                                        list, tok, slash ? "/" : "", slash ? slash + 1 : "");
            memcpy(it->name, tok, len + 1); /* len <= IF_NAMESIZE: checked above */
            it->bits = -1;
        }
    }
    *n_p = n;
    return MPI_SUCCESS;
}

static int if_selected(const struct ifaddrs *ifa, const if_item_t *items, int n)
{
    for (int i = 0; i < n; i++) {
        if (items[i].bits < 0 ? strcmp(items[i].name, ifa->ifa_name) == 0
                              : in_prefix(ifa->ifa_addr, (const struct sockaddr *)&items[i].prefix,
                                          items[i].bits))
            return 1;
    }
    return 0;
}

static socklen_t sa_len(const struct sockaddr *sa)
{
    return sa->sa_family == AF_INET ? sizeof(struct sockaddr_in) : sizeof(struct sockaddr_in6);
}

/* Builds this rank's card from the host's addresses: the ones FERRY_TCP_IF
 * selects, or by default every non-loopback address plus one loopback
 * address, which only peers on the same node use.  Also records the local
 * addresses and netmasks used to order peers' addresses. */
int MPIDI_TCP_addr_build_card(const char *tcp_if, int port, char *card, size_t len)
{
    MPIDI_TCP_state_t *st = &MPIDI_TCP_state;
    if_item_t items[16];
    int nitems = 0, mpi_errno;
    struct ifaddrs *ifs = NULL;
    char seen[512] = ""; /* for the error message */
    int naddr = 0, have_loop = 0;

    if (*tcp_if && (mpi_errno = parse_if_list(tcp_if, items, 16, &nitems)))
        return mpi_errno;
    if (getifaddrs(&ifs) != 0)
        return MPIDU_err_create(MPI_ERR_OTHER, "tcp: getifaddrs: %s (errno %d)", strerror(errno),
                                errno);
    snprintf(card, len, "%s;%d", CARD_VERSION, port);
    st->nlocal = 0;
    /* Two passes: IPv4 first, so peers try the family every host has first. */
    for (int pass = 0; pass < 2; pass++) {
        int family = pass == 0 ? AF_INET : AF_INET6;
        for (struct ifaddrs *ifa = ifs; ifa; ifa = ifa->ifa_next) {
            const struct sockaddr *sa = ifa->ifa_addr;
            if (!sa || sa->sa_family != family || !(ifa->ifa_flags & IFF_UP) || is_link_local(sa))
                continue;
            char text[INET6_ADDRSTRLEN];
            inet_ntop(family,
                      family == AF_INET
                          ? (const void *)&((const struct sockaddr_in *)sa)->sin_addr
                          : (const void *)&((const struct sockaddr_in6 *)sa)->sin6_addr,
                      text, sizeof(text));
            size_t sl = strlen(seen);
            if (sl + strlen(text) + strlen(ifa->ifa_name) + 4 < sizeof(seen)) {
                /* Fits: checked just above (gcc cannot see it through snprintf). */
                strcat(seen, sl ? ", " : "");
                strcat(seen, ifa->ifa_name);
                strcat(seen, " ");
                strcat(seen, text);
            }
            int loop = is_loopback(sa) || (ifa->ifa_flags & IFF_LOOPBACK);
            if (nitems ? !if_selected(ifa, items, nitems) : (loop && have_loop))
                continue;
            if (naddr == MPIDI_TCP_MAX_ADDRS || strlen(card) + strlen(text) + 2 > len)
                continue; /* the card is full: the first addresses are the likely ones anyway */
            snprintf(card + strlen(card), len - strlen(card), ";%s", text);
            naddr++;
            have_loop |= loop;
            if (!loop && st->nlocal < MPIDI_TCP_MAX_ADDRS && ifa->ifa_netmask) {
                memcpy(&st->local[st->nlocal].addr, sa, sa_len(sa));
                memcpy(&st->local[st->nlocal].mask, ifa->ifa_netmask, sa_len(sa));
                st->nlocal++;
            }
        }
    }
    freeifaddrs(ifs);
    if (naddr == 0 && nitems)
        return MPIDU_err_create(MPI_ERR_ARG,
                                "tcp: FERRY_TCP_IF=\"%s\" matches no address of this host "
                                "(addresses: %s)",
                                tcp_if, seen[0] ? seen : "none");
    if (naddr == 0) /* no interface up at all: peers on this node can still use loopback */
        snprintf(card + strlen(card), len - strlen(card), ";127.0.0.1");
    return MPI_SUCCESS;
}

int MPIDI_TCP_addr_parse_card(int peer, const char *card, MPIDI_TCP_addr_t *addrs, int max,
                              int *naddrs_p)
{
    char buf[1024];
    int n = 0;
    snprintf(buf, sizeof(buf), "%s", card);
    char *save = NULL;
    char *ver = strtok_r(buf, ";", &save);
    char *port_s = strtok_r(NULL, ";", &save);
    char *end;
    long port = port_s ? strtol(port_s, &end, 10) : -1;
    if (!ver || strcmp(ver, CARD_VERSION) != 0 || !port_s || *end || port <= 0 || port > 65535)
        return MPIDU_err_create(MPI_ERR_OTHER,
                                "tcp: the business card of rank %d is not one this version "
                                "understands: \"%.100s\"",
                                peer, card);
    for (char *a = strtok_r(NULL, ";", &save); a && n < max; a = strtok_r(NULL, ";", &save)) {
        MPIDI_TCP_addr_t *x = &addrs[n];
        if (parse_ip(a, &x->sa) != 0)
            return MPIDU_err_create(MPI_ERR_OTHER,
                                    "tcp: the business card of rank %d holds a bad address "
                                    "\"%.60s\"",
                                    peer, a);
        if (x->sa.ss_family == AF_INET) {
            ((struct sockaddr_in *)&x->sa)->sin_port = htons((uint16_t)port);
            x->len = sizeof(struct sockaddr_in);
        } else {
            ((struct sockaddr_in6 *)&x->sa)->sin6_port = htons((uint16_t)port);
            x->len = sizeof(struct sockaddr_in6);
        }
        x->loopback = is_loopback((struct sockaddr *)&x->sa);
        n++;
    }
    *naddrs_p = n;
    return MPI_SUCCESS;
}

/* The order to try a peer's addresses in.  Same node: loopback first (it
 * always works and never leaves the host).  Another node: loopback is
 * dropped (it would reach this host), and addresses on a subnet this host
 * is attached to come before the ones that need a router.  Otherwise the
 * card's order (IPv4 first) is kept. */
void MPIDI_TCP_addr_order(MPIDI_TCP_addr_t *addrs, int *naddrs_p, int same_node)
{
    MPIDI_TCP_state_t *st = &MPIDI_TCP_state;
    MPIDI_TCP_addr_t sorted[MPIDI_TCP_MAX_ADDRS];
    int n = 0;
    for (int cls = 0; cls < 3; cls++) {
        for (int i = 0; i < *naddrs_p; i++) {
            const struct sockaddr *sa = (const struct sockaddr *)&addrs[i].sa;
            int c;
            if (addrs[i].loopback) {
                if (!same_node)
                    continue;
                c = 0;
            } else {
                int near = 0;
                for (int k = 0; k < st->nlocal && !near; k++)
                    near = in_subnet(sa, (const struct sockaddr *)&st->local[k].addr,
                                     (const struct sockaddr *)&st->local[k].mask);
                c = near ? 1 : 2;
            }
            if (c == cls)
                sorted[n++] = addrs[i];
        }
    }
    memcpy(addrs, sorted, (size_t)n * sizeof(sorted[0]));
    *naddrs_p = n;
}
