/* mpiexec_hosts.h: hosts of a multi-host job: host lists, rank placement, remote command lines. */
#ifndef MPIEXEC_HOSTS_H_INCLUDED
#define MPIEXEC_HOSTS_H_INCLUDED

#include <stddef.h>

typedef struct MPIEXEC_host {
    char *name;
    int slots;   /* from "name:N"; 0 when not given */
    int local;   /* this machine: ranks are forked here, not started by the launcher */
    int node_id; /* index among distinct names, in order of first appearance */
    int nranks;  /* ranks placed here */
} MPIEXEC_host_t;

typedef struct MPIEXEC_hosts {
    MPIEXEC_host_t *hosts;
    int nhosts;
    int nnodes;
} MPIEXEC_hosts_t;

/* How the launcher command takes the command to run remotely. */
typedef enum {
    MPIEXEC_LAUNCH_SSH,  /* one shell-command string, run by the remote login shell (ssh, rsh) */
    MPIEXEC_LAUNCH_EXEC, /* the command's words as separate arguments (ip netns exec, srun ...) */
} MPIEXEC_launch_style_t;

/* Adds "h1,h2:N,..." (-hosts) or the hosts of a file (-f: one "host[:N]" per
 * line, '#' comments, blank lines ignored).  Returns 0, or -1 after a
 * message on stderr. */
int MPIEXEC_hosts_add_list(MPIEXEC_hosts_t *h, const char *list, const char *what);
int MPIEXEC_hosts_add_file(MPIEXEC_hosts_t *h, const char *path);
/* Marks local hosts (localhost, 127.0.0.1, this machine's name) and numbers nodes. */
void MPIEXEC_hosts_finish(MPIEXEC_hosts_t *h);
/* Ranks a host takes per turn: ppn if > 0, else its :N, else 1. */
int MPIEXEC_hosts_slots(const MPIEXEC_host_t *host, int ppn);
/* Places n ranks as Hydra does: each host takes its slots in turn, cycling
 * through the list.  host_of[rank] gets the host index, local_index[rank]
 * the rank's index on its host. */
void MPIEXEC_hosts_place(MPIEXEC_hosts_t *h, int n, int ppn, int *host_of, int *local_index);
/* MPICH's PMI_process_mapping value for that placement; returns -1 if it
 * does not fit len. */
int MPIEXEC_process_mapping(const MPIEXEC_hosts_t *h, const int *host_of, int n, char *buf,
                            size_t len);
/* The address of this machine that remote ranks should use to reach the
 * PMI server (they are on host `toward`): the source address the kernel
 * would use toward it, else the first non-loopback address, else loopback. */
void MPIEXEC_pmi_address(const char *toward, char *buf, size_t len);
/* Style from the launcher command's name: ssh/rsh take a shell string. */
MPIEXEC_launch_style_t MPIEXEC_launch_style_of(const char *cmd);
/* Splits a command at blanks into a NULL-terminated argv (malloc'ed). */
char **MPIEXEC_split_words(const char *cmd, int *n_p);
/* Appends s to buf as one single-quoted shell word; returns -1 if it does not fit. */
int MPIEXEC_shell_quote(char *buf, size_t len, const char *s);

#endif /* MPIEXEC_HOSTS_H_INCLUDED */
