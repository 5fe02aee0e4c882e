/* tcp_impl.h: wire format, connection and peer state, and internal prototypes of the tcp method. */
#ifndef TCP_IMPL_H_INCLUDED
#define TCP_IMPL_H_INCLUDED

#include <netinet/in.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/uio.h>

#include "method.h"

/* ---- Wire format (doc/methods/tcp.md) ----
 *
 * A connection starts with a handshake in which each side proves that it
 * knows the job's secret (MPIDU_job_key) without sending it, and which
 * tells a stranger nothing (doc/security.md):
 *
 *   connector -> acceptor  HELLO      who I am, whom I want, nonce Nc
 *   acceptor -> connector  CHALLENGE  nonce Na, MAC("challenge", HELLO, Nc, Na)
 *   connector -> acceptor  AUTH       MAC("auth", HELLO, Nc, Na)
 *   acceptor -> connector  VERDICT    OK, DUP or GONE, MAC("verdict", HELLO, Nc, Na, verdict)
 *
 * MACs are HMAC-SHA256 under the secret; the labels keep one direction's
 * proof from serving as the other's, the nonces (fresh random per
 * connection, from both sides) keep an old proof from being replayed.  A
 * HELLO that is not for us (another job, rank or size) still gets a
 * CHALLENGE, with a MAC of random bytes: a stranger cannot tell a refusal
 * from an acceptance, and a rank of another job learns that this is not its
 * peer when the MAC does not check.  A wrong AUTH is answered by closing.
 * After a VERDICT OK both sides send frames: a 16-byte frame header, the
 * active-message header (hdr_len bytes, at most MPIDI_TCP_MAX_HDR) and the
 * payload (payload_len bytes).  Integers are in the host's byte order: every
 * rank of a job runs the same build on the same kind of machine, and the
 * magic number catches a peer for which that is not true. */
#define MPIDI_TCP_MAGIC 0x54595246u /* "FRYT" read as little-endian bytes */
#define MPIDI_TCP_VERSION 2
#define MPIDI_TCP_NONCE_LEN 16
#define MPIDI_TCP_MAC_LEN 32

typedef enum {
    MPIDI_TCP_HELLO = 1,        /* connector: who I am, whom I want, my nonce */
    MPIDI_TCP_CHALLENGE = 2,    /* acceptor: my nonce, my proof */
    MPIDI_TCP_AUTH = 3,         /* connector: my proof */
    MPIDI_TCP_VERDICT_OK = 4,   /* acceptor: this socket is now the connection */
    MPIDI_TCP_VERDICT_DUP = 5,  /* acceptor: the connection I am opening to you wins; drop this */
    MPIDI_TCP_VERDICT_GONE = 6, /* acceptor: I have lost or closed my connection to you for good */
} MPIDI_TCP_hs_kind_t;

typedef struct MPIDI_TCP_hs {
    uint32_t magic;
    uint16_t version;
    uint16_t kind;   /* MPIDI_TCP_hs_kind_t */
    uint32_t from;   /* HELLO: the connector's world rank */
    uint32_t to;     /* HELLO: the world rank it wants to reach */
    uint64_t job_id; /* HELLO: hash of the kvsname, to turn away another job's rank early */
    uint32_t size;   /* HELLO: world size */
    uint32_t reserved;
    uint8_t nonce[MPIDI_TCP_NONCE_LEN]; /* HELLO: Nc; CHALLENGE: Na */
    uint8_t mac[MPIDI_TCP_MAC_LEN];     /* CHALLENGE, AUTH, VERDICT */
} MPIDI_TCP_hs_t;
_Static_assert(sizeof(MPIDI_TCP_hs_t) == 80, "handshake layout (doc/methods/tcp.md)");

/* Frame handler ids below MPIDI_TCP_BYE are the core's active-message ids. */
#define MPIDI_TCP_BYE 0xffff /* the sender finalizes: nothing follows, EOF is expected */

typedef struct MPIDI_TCP_frame {
    uint16_t handler;
    uint16_t hdr_len;
    uint32_t reserved;
    uint64_t payload_len;
} MPIDI_TCP_frame_t;
_Static_assert(sizeof(MPIDI_TCP_frame_t) == 16, "frame layout (doc/methods/tcp.md)");

#define MPIDI_TCP_MAX_HDR 64
#define MPIDI_TCP_MAX_FRAME_HDR (sizeof(MPIDI_TCP_frame_t) + MPIDI_TCP_MAX_HDR)

/* ---- Sizes and limits ---- */

/* Default eager limit: one 64 KiB message costs ~10 us on loopback, about
 * the RTS/CTS round trip a rendezvous would add. */
#define MPIDI_TCP_EAGER_DEFAULT 65536
/* Largest payload of one frame, so the core cuts pipelined rendezvous data
 * into 1 MiB DATA frames: big enough that the per-frame cost vanishes, small
 * enough that packing a non-contiguous chunk needs a bounded buffer. */
#define MPIDI_TCP_MAX_SEND (1024 * 1024)
/* Per-connection staging buffer for incoming frames: many small frames are
 * read with one recv.  Frames with 16 KiB of payload or more are read in
 * place, so this only needs room for a batch of small ones (and it is paid
 * per connection). */
#define MPIDI_TCP_RBUF_SIZE (64 * 1024)
/* A payload at least this big that has not fully arrived is read straight
 * into its destination rather than collected in the staging buffer. */
#define MPIDI_TCP_DIRECT_MIN (16 * 1024)
/* Unsent payload up to this size is copied into the send queue rather than
 * read from the caller's memory later (the caller completes at once). */
#define MPIDI_TCP_COPY_MAX 4096
/* am_send answers MPIDI_AGAIN when a peer's queue holds more than this, so a
 * huge stream (or a slow receiver) cannot pile up unbounded copies. */
#define MPIDI_TCP_QUEUE_MAX (4 * 1024 * 1024)
/* A non-contiguous payload whose pieces average at least IOV_MIN_PIECE
 * bytes and fit SEG_IOV iovecs is written from the user's memory; smaller
 * pieces are packed, which is cheaper than the kernel walking them. */
#define MPIDI_TCP_SEG_IOV 16
#define MPIDI_TCP_IOV_MIN_PIECE 2048
/* Iovecs gathered into one sendmsg from queued frames. */
#define MPIDI_TCP_IOV_BATCH 64
/* Events taken from epoll per progress call, and recv calls per socket per
 * progress call, so one busy connection cannot starve the others or shm. */
#define MPIDI_TCP_EVENTS 64
#define MPIDI_TCP_READS_PER_POLL 4
/* While one peer alone sends to this rank, a progress call reads its socket
 * directly and asks epoll about the others only every HOT_EPOLL_EVERY calls;
 * a batch from epoll that shows another peer readable goes back to an
 * epoll_wait on every call for the next HOT_SPREAD_POLLS calls
 * (tcp_progress.c, doc/methods/tcp.md). */
#define MPIDI_TCP_HOT_EPOLL_EVERY 16
#define MPIDI_TCP_HOT_SPREAD_POLLS 4096
/* Addresses kept from a business card. */
#define MPIDI_TCP_MAX_ADDRS 16
/* Rounds over the port range when every port is in use (a port may be
 * freed meanwhile), and the pause between them. */
#define MPIDI_TCP_BIND_ROUNDS 3
#define MPIDI_TCP_BIND_PAUSE_MS 200
/* Longest congestion control name the kernel takes (its TCP_CA_NAME_MAX). */
#define MPIDI_TCP_CC_NAME_MAX 16
/* The congestion control of connections between two ranks of one node under
 * FERRY_TCP_CONGESTION=auto (doc/methods/tcp.md): every kernel has it and
 * lets any user pick it. */
#define MPIDI_TCP_CC_SAME_NODE "reno"
/* How long finalize waits for peers' goodbyes before closing anyway. */
#define MPIDI_TCP_FINALIZE_WAIT_MS 30000

/* ---- Addresses ---- */

typedef struct MPIDI_TCP_addr {
    struct sockaddr_storage sa;
    socklen_t len;
    int loopback;
} MPIDI_TCP_addr_t;

/* ---- Sockets ---- */

typedef enum {
    MPIDI_TCP_SOCK_LISTEN,
    MPIDI_TCP_SOCK_CONNECTING,     /* our non-blocking connect() is in flight */
    MPIDI_TCP_SOCK_WAIT_CHALLENGE, /* our HELLO is out (or being written) */
    MPIDI_TCP_SOCK_WAIT_VERDICT,   /* our AUTH is out: is the connection ours? */
    MPIDI_TCP_SOCK_WAIT_HELLO,     /* accepted; the peer has not said who it is yet */
    MPIDI_TCP_SOCK_WAIT_AUTH,      /* our CHALLENGE is out: can the peer prove itself? */
    MPIDI_TCP_SOCK_DATA,           /* the connection of a peer: frames both ways */
    MPIDI_TCP_SOCK_CLOSED,         /* closed; freed at the end of the progress call */
} MPIDI_TCP_sock_state_t;

typedef struct MPIDI_TCP_sock {
    int fd;
    MPIDI_TCP_sock_state_t state;
    int peer;     /* world rank, -1 while unknown (WAIT_HELLO, WAIT_AUTH, LISTEN) */
    int want_out; /* EPOLLOUT is in the epoll interest set */
    /* Handshake messages in each direction, one at a time. */
    MPIDI_TCP_hs_t hs_in, hs_out;
    size_t hs_in_got, hs_out_sent, hs_out_len;
    MPIDI_TCP_hs_t hello;            /* the HELLO of this connection, which every MAC covers */
    uint8_t na[MPIDI_TCP_NONCE_LEN]; /* the acceptor's nonce */
    int claimed;                     /* acceptor: the rank the HELLO claims, -1 if not ours */
    long long deadline;              /* acceptor: ms by which the handshake must be done */
    struct MPIDI_TCP_sock *next;     /* all sockets, or the list of closed ones */
} MPIDI_TCP_sock_t;

/* ---- Send queue ---- */

/* One frame (or what is left of it) waiting for the socket.  iov[0] is the
 * frame header and active-message header, kept in hdr[]; iov[1..niov) the
 * payload: the caller's memory (one piece, or the pieces of a
 * non-contiguous buffer) when cookie is set (MPIDI_INPROGRESS was
 * returned), else data[] or a packed copy we own. */
typedef struct MPIDI_TCP_sendq {
    struct MPIDI_TCP_sendq *next;
    int niov;
    int iov_first; /* first iovec with bytes left */
    size_t left;   /* bytes not yet written */
    void *cookie;  /* for MPIDU_op_done once written; NULL if we own the payload */
    void *owned;   /* malloc'ed payload copy, freed with the entry */
    struct iovec iov[1 + MPIDI_TCP_SEG_IOV];
    char hdr[MPIDI_TCP_MAX_FRAME_HDR];
    char data[]; /* small payload copies */
} MPIDI_TCP_sendq_t;

/* ---- Peers ---- */

typedef enum {
    MPIDI_TCP_PEER_NONE,       /* no connection asked for yet */
    MPIDI_TCP_PEER_CONNECTING, /* asked for; an attempt of ours or theirs is under way */
    MPIDI_TCP_PEER_UP,         /* sock carries frames */
    MPIDI_TCP_PEER_FAILED,     /* lost; fail_code says why */
    MPIDI_TCP_PEER_CLOSED,     /* goodbyes exchanged (finalize) */
} MPIDI_TCP_peer_state_t;

/* Receive state machine of a connection (doc/methods/tcp.md). */
typedef enum {
    MPIDI_TCP_RECV_FRAME,   /* parsing frames out of the staging buffer */
    MPIDI_TCP_RECV_PAYLOAD, /* reading one large payload to dst (direct or collected) */
} MPIDI_TCP_recv_state_t;

typedef struct MPIDI_TCP_peer {
    MPIDI_TCP_peer_state_t state;
    MPIDI_TCP_sock_t *sock; /* the connection (PEER_UP) */
    MPIDI_TCP_sock_t *out;  /* our attempt in flight (PEER_CONNECTING), or NULL */
    int fail_code;          /* MPI error code once PEER_FAILED */
    int touched;            /* recorded in the state's touched list */

    /* Where and how to connect (from the card); the order to try them in. */
    MPIDI_TCP_addr_t addrs[MPIDI_TCP_MAX_ADDRS];
    int naddrs;
    int addr_idx;       /* address being tried */
    int round;          /* rounds over every address done so far */
    long long deadline; /* ms: the TCP connect of the current attempt must finish by then */
    long long retry_at; /* ms: when to start the next round; 0: not waiting */
    char last_err[160]; /* why the last attempt failed, for the final message */

    /* Send queue, in order. */
    MPIDI_TCP_sendq_t *sq_head, *sq_tail;
    size_t sq_bytes;

    /* Receive side. */
    char *rbuf;          /* staging buffer, MPIDI_TCP_RBUF_SIZE bytes, allocated on connect */
    size_t rstart, rend; /* unparsed bytes are rbuf[rstart, rend) */
    MPIDI_TCP_recv_state_t rstate;
    MPIDI_TCP_frame_t rframe;             /* frame whose payload is being read */
    uint64_t rhdr[MPIDI_TCP_MAX_HDR / 8]; /* its active-message header, aligned */
    char *rdst;                           /* where the payload goes */
    size_t rgot;                          /* payload bytes there so far */
    void *rtoken;   /* from MPIDU_am_recv_begin, or NULL (collected for dispatch) */
    char *rcollect; /* malloc'ed buffer when the payload is collected, else NULL */
    /* We sent a message that asks for DATA (MPIDI_AM_ASKS_DATA) and no small
     * frame has come since: while rbuf is empty, read one frame header at a
     * time, so that a large payload is read into place and not first into
     * rbuf (up to 64 KiB copied twice). */
    int data_asked;

    int bye_sent, bye_got;
} MPIDI_TCP_peer_t;

/* Accepted connections that have not proven themselves yet: at most this
 * many (the oldest beyond it is closed), each for at most
 * FERRY_TCP_CONNECT_TIMEOUT.  A legitimate peer makes one connection to us
 * at a time, so a few dozen are plenty; a stranger who opens more cannot
 * use up our descriptors. */
#define MPIDI_TCP_MAX_UNPROVEN 64

/* ---- The method's state ---- */

typedef struct MPIDI_TCP_state {
    int rank, size;
    const int *node_of; /* node id of every world rank (from the job) */
    int node_id;
    uint64_t job_id;
    int epfd;
    MPIDI_TCP_sock_t *listener;
    int port;
    char card[1024];
    MPIDI_TCP_peer_t *peers;
    /* The peers that ever left PEER_NONE, in that order: what finalize and
     * the connect timers walk, so a rank that talked to a few peers never
     * touches the entries (and pages) of the rest of a large job. */
    int *touched;
    int ntouched;
    MPIDI_TCP_sock_t *socks;     /* every socket not yet freed */
    int nconnecting;             /* peers in PEER_CONNECTING: progress watches their timers */
    int in_progress;             /* re-entrancy guard */
    int nunproven;               /* accepted sockets in WAIT_HELLO or WAIT_AUTH */
    unsigned idle_polls;         /* progress calls while only listening (they poll 1 in 64) */
    int nwant_out;               /* sockets with EPOLLOUT in the interest set (output queued) */
    int finalizing;              /* EOF after our BYE is expected, not a failure */
    long accept_pause_ms;        /* accept ran out of descriptors: current pause, 0 if none */
    long long accept_resume_at;  /* ms: when to listen again; 0 if listening */
    unsigned long recv_in_place; /* counter tcp_recv_in_place: payloads read into user memory */
    unsigned long recv_staged;   /* counter tcp_recv_staged: their bytes that came through rbuf */
    unsigned long recv_hot;      /* counter tcp_recv_hot: frames found by reading the hot peer */
    /* The peer read first, without epoll (tcp_progress.c): the one whose
     * socket epoll last reported readable; -1 before any. */
    int hot;
    unsigned hot_polls; /* progress calls that read hot alone; epoll every HOT_EPOLL_EVERY */
    unsigned spread;    /* > 0: other peers were readable lately: epoll on every call */

    /* Tunables (adi/config.c, doc/tuning.md). */
    size_t eager_limit;
    int sndbuf, rcvbuf;
    long connect_timeout_ms;
    int connect_retries;
    int keepalive_s; /* a silent peer is failed after about this long; 0: never */
    /* FERRY_TCP_CONGESTION: "auto", "system" or an algorithm's name. */
    char congestion[MPIDI_TCP_CC_NAME_MAX];

    /* This host's addresses and netmasks, to prefer peers' addresses on a
     * shared subnet. */
    struct {
        struct sockaddr_storage addr, mask;
    } local[MPIDI_TCP_MAX_ADDRS];
    int nlocal;
} MPIDI_TCP_state_t;

extern MPIDI_TCP_state_t MPIDI_TCP_state;

long long MPIDI_TCP_now_ms(void);

/* tcp_addr.c: interfaces, FERRY_TCP_IF, business cards. */
int MPIDI_TCP_addr_build_card(const char *tcp_if, int port, char *card, size_t len);
int MPIDI_TCP_probe(char *buf, size_t len);
/* Moves a peer out of PEER_NONE into PEER_CONNECTING, recording it in touched. */
void MPIDI_TCP_peer_start(int peer);
int MPIDI_TCP_addr_parse_card(int peer, const char *card, MPIDI_TCP_addr_t *addrs, int max,
                              int *naddrs_p);
void MPIDI_TCP_addr_order(MPIDI_TCP_addr_t *addrs, int *naddrs_p, int same_node);
const char *MPIDI_TCP_addr_str(const MPIDI_TCP_addr_t *a, char *buf, size_t len);

/* tcp_init.c: lifecycle. */
int MPIDI_TCP_init(const MPIDI_job_t *job, MPIDI_method_caps_t *caps_p);
int MPIDI_TCP_get_business_card(char *buf, size_t len);
int MPIDI_TCP_finalize(void);
int MPIDI_TCP_reachable(int peer, const char *card);

/* tcp_hs.c: handshake messages (pure: no sockets, so they can be fuzzed). */
/* Fills a HELLO from this rank to `to`, with a fresh nonce; 0 or an errno. */
int MPIDI_TCP_hs_hello(MPIDI_TCP_hs_t *h, int to);
/* The rank a received HELLO claims if it is a well-formed HELLO to this rank
 * of this job, else -1. */
int MPIDI_TCP_hs_hello_from(const MPIDI_TCP_hs_t *h);
/* Fills the acceptor's or connector's next message for the HELLO hello and
 * nonce na: CHALLENGE (with a fresh na written to na_p), AUTH, or a VERDICT;
 * genuine = 0 gives a CHALLENGE whose MAC is random.  0, or an MPI error
 * code if the secret cannot be had. */
int MPIDI_TCP_hs_reply(MPIDI_TCP_hs_t *out, MPIDI_TCP_hs_kind_t kind, const MPIDI_TCP_hs_t *hello,
                       uint8_t *na_p, int genuine);
/* 1 if m is a well-formed message of one of the kinds in [lo, hi] whose MAC
 * proves the secret for this HELLO and na (nonce taken from m for a
 * CHALLENGE), else 0. */
int MPIDI_TCP_hs_verify(const MPIDI_TCP_hs_t *m, MPIDI_TCP_hs_kind_t lo, MPIDI_TCP_hs_kind_t hi,
                        const MPIDI_TCP_hs_t *hello, const uint8_t *na);

/* tcp_conn.c: connections. */
int MPIDI_TCP_connect(int peer, const char *card);
/* Returns 0 or an errno. */
int MPIDI_TCP_sock_add(int fd, MPIDI_TCP_sock_state_t state, int peer, MPIDI_TCP_sock_t **sock_p);
void MPIDI_TCP_sock_close(MPIDI_TCP_sock_t *s);
void MPIDI_TCP_sock_want_out(MPIDI_TCP_sock_t *s, int on);
void MPIDI_TCP_accept(void);
/* Listens again once an accept pause (out of descriptors) is over. */
void MPIDI_TCP_accept_timer(void);
void MPIDI_TCP_sock_event(MPIDI_TCP_sock_t *s, unsigned events);
void MPIDI_TCP_conn_timers(void);
/* Closes accepted sockets whose handshake is past its deadline. */
void MPIDI_TCP_unproven_timers(void);
/* EOF on the connection of peer: an orderly close or a failure. */
void MPIDI_TCP_conn_eof(int peer);
int MPIDI_TCP_set_sockopts(int fd);
/* Gives the connection of peer its congestion control (FERRY_TCP_CONGESTION)
 * and writes the one in effect to name (MPIDI_TCP_CC_NAME_MAX bytes). */
void MPIDI_TCP_set_congestion(int peer, int fd, char *name);
/* 0, or an MPI error code if FERRY_TCP_CONGESTION names an algorithm the
 * kernel refuses on the socket fd. */
int MPIDI_TCP_check_congestion(int fd);
/* The connection to peer is lost: drop its queue and receive state, tell the core. */
void MPIDI_TCP_peer_fail(int peer, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* tcp_send.c: the send queue. */
int MPIDI_TCP_am_send(int peer, int handler, const void *hdr, size_t hdr_len,
                      const MPIR_Segment *seg, size_t first, size_t last, unsigned flags,
                      void *cookie);
/* Writes what the socket takes; returns 1 if anything was written.  On a
 * socket error the peer is failed. */
int MPIDI_TCP_flush(int peer);
int MPIDI_TCP_send_bye(int peer);
void MPIDI_TCP_sendq_drop(MPIDI_TCP_peer_t *p);

/* tcp_recv.c: the receive state machine. */
/* Reads and dispatches what the socket holds (bounded); returns messages delivered. */
int MPIDI_TCP_recv(int peer);
void MPIDI_TCP_recv_drop(MPIDI_TCP_peer_t *p, int mpi_errno);

/* tcp_progress.c */
int MPIDI_TCP_progress(int *made_progress_p);

#endif /* TCP_IMPL_H_INCLUDED */
