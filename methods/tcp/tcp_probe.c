/* tcp_probe.c: ferry_info's check of tcp on this machine: the addresses FERRY_TCP_IF selects
 * for the business card, every interface that is up, and a socket that can listen. */
#include <arpa/inet.h>
#include <errno.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "mpi.h"
#include "tcp_impl.h"

/* Whether the address text is one of the card's ("1;port;addr;addr..."). */
static int in_card(const char *card, const char *addr)
{
    const char *p = strchr(card, ';');
    p = p ? strchr(p + 1, ';') : NULL;
    size_t n = strlen(addr);
    while (p) {
        p++;
        if (strncmp(p, addr, n) == 0 && (p[n] == ';' || p[n] == '\0'))
            return 1;
        p = strchr(p, ';');
    }
    return 0;
}

int MPIDI_TCP_probe(char *buf, size_t len)
{
    const char *tcp_if = MPIDU_config_str("FERRY_TCP_IF");
    char card[1024], text[INET6_ADDRSTRLEN];
    struct ifaddrs *ifs = NULL;

    buf[0] = '\0';
    int err = MPIDI_TCP_addr_build_card(tcp_if, 0, card, sizeof(card));
    if (err) {
        char msg[MPI_MAX_ERROR_STRING];
        int n = 0;
        MPI_Error_string(err, msg, &n);
        MPIDU_probe_line(buf, len, "not usable: %s", msg);
        return 0;
    }
    int fd = socket(AF_INET6, SOCK_STREAM, 0);
    if (fd < 0)
        fd = socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0 || listen(fd, 1) != 0) {
        MPIDU_probe_line(buf, len, "not usable: a listening socket: %s (errno %d)", strerror(errno),
                         errno);
        if (fd >= 0)
            close(fd);
        return 0;
    }
    close(fd);
    char list[sizeof(card)] = "";
    const char *addrs = strchr(card, ';');
    addrs = addrs ? strchr(addrs + 1, ';') : NULL;
    for (const char *p = addrs; p && *p; p++)
        strncat(list, *p == ';' ? (p == addrs ? "" : ", ") : (char[2]){*p, 0},
                sizeof(list) - strlen(list) - 1);
    MPIDU_probe_line(buf, len, "usable: business card addresses %s%s%s%s", list[0] ? list : "none",
                     *tcp_if ? " (FERRY_TCP_IF=" : "", tcp_if, *tcp_if ? ")" : "");
    if (getifaddrs(&ifs) != 0)
        return 1;
    for (struct ifaddrs *ifa = ifs; ifa; ifa = ifa->ifa_next) {
        const struct sockaddr *sa = ifa->ifa_addr;
        if (!sa || (sa->sa_family != AF_INET && sa->sa_family != AF_INET6) ||
            !(ifa->ifa_flags & IFF_UP))
            continue;
        inet_ntop(sa->sa_family,
                  sa->sa_family == AF_INET
                      ? (const void *)&((const struct sockaddr_in *)sa)->sin_addr
                      : (const void *)&((const struct sockaddr_in6 *)sa)->sin6_addr,
                  text, sizeof(text));
        MPIDU_probe_line(buf, len, "interface %s %s: %s", ifa->ifa_name, text,
                         in_card(card, text) ? "in the card" : "not used");
    }
    freeifaddrs(ifs);
    return 1;
}
