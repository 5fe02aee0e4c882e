/* mpiexec_hosts.c: host lists (-hosts, -f), rank placement (-n, -ppn), process mapping, PMI
 * address. */
#include "mpiexec_hosts.h"

#include <arpa/inet.h>
#include <errno.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

/* Host names and slot counts are short; a longer token is a typo. */
#define HOST_MAX 255
#define SLOTS_MAX 4096

static int add_host(MPIEXEC_hosts_t *h, const char *tok, size_t len, const char *what)
{
    char name[HOST_MAX + 1];
    int slots = 0;

    if (len == 0 || len > HOST_MAX) {
        fprintf(stderr, "mpiexec: %s: %s host name '%.*s'\n", what, len ? "overlong" : "empty",
                (int)(len > 60 ? 60 : len), tok);
        return -1;
    }
    memcpy(name, tok, len);
    name[len] = '\0';
    /* "host:N".  An IPv6 address has several colons: only a single colon
     * followed by digits at the end is a slot count. */
    char *colon = strrchr(name, ':');
    if (colon && colon == strchr(name, ':')) {
        char *end;
        long v = strtol(colon + 1, &end, 10);
        if (end == colon + 1 || *end || v < 1 || v > SLOTS_MAX) {
            fprintf(stderr, "mpiexec: %s: '%s': the slot count after ':' must be 1 to %d\n", what,
                    name, SLOTS_MAX);
            return -1;
        }
        slots = (int)v;
        *colon = '\0';
        if (name[0] == '\0') {
            fprintf(stderr, "mpiexec: %s: empty host name before ':%ld'\n", what, v);
            return -1;
        }
    }
    MPIEXEC_host_t *n = realloc(h->hosts, (size_t)(h->nhosts + 1) * sizeof(*n));
    if (!n) {
        fprintf(stderr, "mpiexec: out of memory for the host list\n");
        return -1;
    }
    h->hosts = n;
    MPIEXEC_host_t *x = &h->hosts[h->nhosts];
    memset(x, 0, sizeof(*x));
    x->name = strdup(name);
    x->slots = slots;
    if (!x->name) {
        fprintf(stderr, "mpiexec: out of memory for the host list\n");
        return -1;
    }
    h->nhosts++;
    return 0;
}

int MPIEXEC_hosts_add_list(MPIEXEC_hosts_t *h, const char *list, const char *what)
{
    const char *s = list;
    for (;;) {
        size_t len = strcspn(s, ",");
        if (add_host(h, s, len, what) != 0)
            return -1;
        if (s[len] == '\0')
            return 0;
        s += len + 1;
    }
}

int MPIEXEC_hosts_add_file(MPIEXEC_hosts_t *h, const char *path)
{
    FILE *f = fopen(path, "r");
    char line[1024], what[1100];
    int lineno = 0, before = h->nhosts;

    if (!f) {
        fprintf(stderr, "mpiexec: -f %s: %s\n", path, strerror(errno));
        return -1;
    }
    while (fgets(line, sizeof(line), f)) {
        lineno++;
        char *hash = strchr(line, '#');
        if (hash)
            *hash = '\0';
        char *p = line + strspn(line, " \t\r\n");
        size_t len = strcspn(p, " \t\r\n");
        if (len == 0)
            continue;
        if (p[len + strspn(p + len, " \t\r\n")] != '\0') {
            fprintf(stderr, "mpiexec: -f %s line %d: expected one 'host' or 'host:N', got '%s'\n",
                    path, lineno, p);
            fclose(f);
            return -1;
        }
        snprintf(what, sizeof(what), "-f %s line %d", path, lineno);
        if (add_host(h, p, len, what) != 0) {
            fclose(f);
            return -1;
        }
    }
    fclose(f);
    if (h->nhosts == before) {
        fprintf(stderr, "mpiexec: -f %s names no host\n", path);
        return -1;
    }
    return 0;
}

void MPIEXEC_hosts_finish(MPIEXEC_hosts_t *h)
{
    char self[HOST_MAX + 1] = "";
    if (gethostname(self, sizeof(self)) != 0)
        self[0] = '\0';
    self[HOST_MAX] = '\0';
    size_t short_len = strcspn(self, ".");
    h->nnodes = 0;
    for (int i = 0; i < h->nhosts; i++) {
        MPIEXEC_host_t *x = &h->hosts[i];
        x->local =
            strcmp(x->name, "localhost") == 0 || strcmp(x->name, "127.0.0.1") == 0 ||
            (self[0] && (strcmp(x->name, self) == 0 ||
                         (strlen(x->name) == short_len && strncmp(x->name, self, short_len) == 0)));
        x->node_id = -1;
        for (int k = 0; k < i; k++)
            if (strcmp(h->hosts[k].name, x->name) == 0)
                x->node_id = h->hosts[k].node_id;
        if (x->node_id < 0)
            x->node_id = h->nnodes++;
    }
}

int MPIEXEC_hosts_slots(const MPIEXEC_host_t *host, int ppn)
{
    if (ppn > 0)
        return ppn;
    return host->slots > 0 ? host->slots : 1;
}

void MPIEXEC_hosts_place(MPIEXEC_hosts_t *h, int n, int ppn, int *host_of, int *local_index)
{
    int rank = 0;
    for (int i = 0; i < h->nhosts; i++)
        h->hosts[i].nranks = 0;
    while (rank < n) {
        for (int i = 0; i < h->nhosts && rank < n; i++) {
            int take = MPIEXEC_hosts_slots(&h->hosts[i], ppn);
            for (int k = 0; k < take && rank < n; k++, rank++)
                host_of[rank] = i;
        }
    }
    /* A host may appear twice in the list: its ranks share one node, so
     * local indices count over every entry with the same name. */
    for (int r = 0; r < n; r++) {
        int node = h->hosts[host_of[r]].node_id, idx = 0;
        for (int q = 0; q < r; q++)
            idx += h->hosts[host_of[q]].node_id == node;
        local_index[r] = idx;
        h->hosts[host_of[r]].nranks++;
    }
}

/* "(vector,(node,count_of_nodes,ranks_per_node),...)": each tuple says that
 * consecutive blocks of ranks_per_node ranks sit on nodes node, node+1, ... */
int MPIEXEC_process_mapping(const MPIEXEC_hosts_t *h, const int *host_of, int n, char *buf,
                            size_t len)
{
    int used = snprintf(buf, len, "(vector");
    int t_node = -1, t_count = 0, t_ppn = 0;
    for (int r = 0; r <= n; r++) {
        /* The block of consecutive ranks starting at r. */
        int node = -1, ppn = 0;
        if (r < n) {
            node = h->hosts[host_of[r]].node_id;
            while (r + ppn < n && h->hosts[host_of[r + ppn]].node_id == node)
                ppn++;
        }
        if (t_count > 0 && node == t_node + t_count && ppn == t_ppn) {
            t_count++;
        } else {
            if (t_count > 0) {
                used += snprintf(buf + used, used < (int)len ? len - (size_t)used : 0,
                                 ",(%d,%d,%d)", t_node, t_count, t_ppn);
                if (used >= (int)len)
                    return -1;
            }
            t_node = node;
            t_count = 1;
            t_ppn = ppn;
        }
        if (r < n)
            r += ppn - 1;
    }
    used += snprintf(buf + used, used < (int)len ? len - (size_t)used : 0, ")");
    return used < (int)len ? 0 : -1;
}

static int text_of(const struct sockaddr *sa, char *buf, size_t len)
{
    const void *a = sa->sa_family == AF_INET
                        ? (const void *)&((const struct sockaddr_in *)sa)->sin_addr
                        : (const void *)&((const struct sockaddr_in6 *)sa)->sin6_addr;
    return inet_ntop(sa->sa_family, a, buf, (socklen_t)len) ? 0 : -1;
}

void MPIEXEC_pmi_address(const char *toward, char *buf, size_t len)
{
    struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_DGRAM};
    struct addrinfo *res = NULL;

    /* Route lookup without sending anything: connect() on a UDP socket only
     * picks the source address the kernel would use. */
    if (toward && getaddrinfo(toward, "9", &hints, &res) == 0) {
        for (struct addrinfo *ai = res; ai; ai = ai->ai_next) {
            int fd = socket(ai->ai_family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
            struct sockaddr_storage ss;
            socklen_t sl = sizeof(ss);
            if (fd < 0)
                continue;
            int ok = connect(fd, ai->ai_addr, ai->ai_addrlen) == 0 &&
                     getsockname(fd, (struct sockaddr *)&ss, &sl) == 0 &&
                     text_of((struct sockaddr *)&ss, buf, len) == 0;
            close(fd);
            if (ok) {
                freeaddrinfo(res);
                return;
            }
        }
        freeaddrinfo(res);
    }
    struct ifaddrs *ifs = NULL;
    if (getifaddrs(&ifs) == 0) {
        for (int family = AF_INET;; family = AF_INET6) {
            for (struct ifaddrs *ifa = ifs; ifa; ifa = ifa->ifa_next) {
                if (!ifa->ifa_addr || ifa->ifa_addr->sa_family != family ||
                    !(ifa->ifa_flags & IFF_UP) || (ifa->ifa_flags & IFF_LOOPBACK))
                    continue;
                if (family == AF_INET6 &&
                    IN6_IS_ADDR_LINKLOCAL(&((struct sockaddr_in6 *)ifa->ifa_addr)->sin6_addr))
                    continue;
                if (text_of(ifa->ifa_addr, buf, len) == 0) {
                    freeifaddrs(ifs);
                    return;
                }
            }
            if (family == AF_INET6)
                break;
        }
        freeifaddrs(ifs);
    }
    snprintf(buf, len, "127.0.0.1");
}

MPIEXEC_launch_style_t MPIEXEC_launch_style_of(const char *cmd)
{
    const char *s = cmd + strspn(cmd, " \t");
    size_t n = strcspn(s, " \t");
    const char *base = s;
    for (size_t i = 0; i < n; i++)
        if (s[i] == '/')
            base = s + i + 1;
    size_t bl = (size_t)(s + n - base);
    /* ssh, rsh, and wrappers named after them (e.g. my-ssh, ssh.sh). */
    for (size_t i = 0; i + 3 <= bl; i++)
        if (strncmp(base + i, "ssh", 3) == 0 || strncmp(base + i, "rsh", 3) == 0)
            return MPIEXEC_LAUNCH_SSH;
    return MPIEXEC_LAUNCH_EXEC;
}

char **MPIEXEC_split_words(const char *cmd, int *n_p)
{
    size_t cap = strlen(cmd) / 2 + 2;
    char **argv = calloc(cap, sizeof(char *));
    int n = 0;
    if (!argv)
        return NULL;
    for (const char *s = cmd;;) {
        s += strspn(s, " \t");
        if (*s == '\0')
            break;
        size_t len = strcspn(s, " \t");
        if (!(argv[n] = strndup(s, len))) {
            for (int i = 0; i < n; i++)
                free(argv[i]);
            free(argv);
            return NULL;
        }
        n++;
        s += len;
    }
    *n_p = n;
    return argv;
}

int MPIEXEC_shell_quote(char *buf, size_t len, const char *s)
{
    size_t used = strlen(buf);
    /* 'it'\''s': close the quote, an escaped quote, reopen. */
    if (used + 3 >= len)
        return -1;
    if (used)
        buf[used++] = ' ';
    buf[used++] = '\'';
    for (; *s; s++) {
        if (*s == '\'') {
            if (used + 5 >= len)
                return -1;
            memcpy(buf + used, "'\\''", 4);
            used += 4;
        } else {
            if (used + 2 >= len)
                return -1;
            buf[used++] = *s;
        }
    }
    if (used + 2 > len)
        return -1;
    buf[used++] = '\'';
    buf[used] = '\0';
    return 0;
}
