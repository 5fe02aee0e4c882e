/* adi.h: the device entry points (MPID_) that the MPI layer calls. */
#ifndef ADI_H_INCLUDED
#define ADI_H_INCLUDED

#include "mpi.h"
#include "comm.h"
#include "request.h"

/* What the device knows about the job after MPID_Init. */
typedef struct MPIDI_world {
    int rank;
    int size;
    int nlocal;          /* ranks on this node */
    int oversubscribed;  /* more local ranks than CPUs: wait loops yield at once */
    char hostname[MPI_MAX_PROCESSOR_NAME];
    char kvsname[256];
    int universe_size;
    int appnum;
} MPIDI_world_t;
extern MPIDI_world_t MPIDI_world;

/* What the MPI layer lends the device.  The device holds references on
 * communicators for its requests but does not own them: it hands them back
 * through these callbacks instead of calling into mpi/. */
typedef struct MPID_upcalls {
    void (*comm_release)(MPIR_Comm *comm);
} MPID_upcalls_t;

/* Starts the device; the MPI layer then creates its builtin objects. */
int MPID_Init(const MPID_upcalls_t *upcalls);
int MPID_Finalize(void);
/* Kills the job through the process manager; does not return. */
void MPID_Abort(int exit_code, const char *msg) __attribute__((noreturn));

/* context_offset is 0 for user traffic, MPIR_CONTEXT_COLL_OFFSET for
 * collectives.  rank is a comm rank or MPI_PROC_NULL (completes at once). */
int MPID_Isend(const void *buf, MPI_Aint count, MPI_Datatype type, int rank, int tag,
               MPIR_Comm *comm, int context_offset, int sync, MPIR_Request **req_p);
int MPID_Irecv(void *buf, MPI_Aint count, MPI_Datatype type, int rank, int tag, MPIR_Comm *comm,
               int context_offset, MPIR_Request **req_p);
/* A blocking standard send without a request, when it can complete at once:
 * an eager message the peer's method takes whole.  *done_p 0: nothing was
 * sent, take the MPID_Isend path; 1: sent, or failed with the error returned. */
int MPID_Send(const void *buf, MPI_Aint count, MPI_Datatype type, int rank, int tag,
              MPIR_Comm *comm, int context_offset, int *done_p);
/* *flag 0 with an error: nothing matches and nothing can any more (the
 * source, or for MPI_ANY_SOURCE a member of comm, is lost). */
int MPID_Iprobe(int rank, int tag, MPIR_Comm *comm, int context_offset, int *flag,
                MPI_Status *status);
/* Cancels a receive that has not matched yet; a matched one is left alone. */
int MPID_Cancel_recv(MPIR_Request *req);
/* Asks the receiver to withdraw a send's message if it has not matched yet
 * (CANCEL_SEND); the request completes once the answer is in, cancelled or
 * not.  Also for a send that is complete locally but not yet waited for. */
int MPID_Cancel_send(MPIR_Request *req);
/* Matched probe: takes the first matching unexpected message out of the
 * queue (*msg_p NULL if none), so no other receive can match it. */
int MPID_Improbe(int rank, int tag, MPIR_Comm *comm, int context_offset, MPIR_Request **msg_p,
                 MPI_Status *status);
/* Receives a message taken by MPID_Improbe into a new receive request. */
int MPID_Imrecv(void *buf, MPI_Aint count, MPI_Datatype type, MPIR_Request *msg,
                MPIR_Request **req_p);

/* One pass of the communication agent over every method and deferred queue;
 * returns 1 if anything happened. */
int MPID_Progress_test(void);
/* A rank that only sends (MPI_Isend, or MPI_Send that the method takes at once) makes no call
 * that polls, so a receiver's PAUSE (adi/flow.c) would reach it only when it waits, its whole
 * burst gone eagerly.  The MPI layer calls this after each send the program makes, and every
 * MPID_SENDS_PER_POLL-th polls once.  Not after the library's own sends (collectives, context
 * ids): their callers do not expect progress to run between two of their steps; nor from
 * inside MPID_Progress_test (a callback of the program's that sends). */
#define MPID_SENDS_PER_POLL 64
/* Hidden, so that the library reads them without the GOT; depth: calls of MPID_Progress_test
 * under way. */
extern unsigned MPID_sends_unpolled __attribute__((visibility("hidden")));
extern int MPID_progress_depth __attribute__((visibility("hidden")));
static inline void MPID_Send_poll(void)
{
    if (++MPID_sends_unpolled >= MPID_SENDS_PER_POLL && !MPID_progress_depth) {
        MPID_sends_unpolled = 0;
        MPID_Progress_test();
    }
}
/* The poll of a call that returns to the program without waiting (MPI_Test and its kin,
 * MPI_Iprobe, MPI_Parrived ...): MPID_Progress_test, then, when it found nothing and waits do
 * not spin (an oversubscribed node, or FERRY_POLL_SPINS=0), the CPU is given away, because a
 * program that loops on MPI_Test would otherwise keep its core from the very peer it waits
 * for (Open MPI's yield_when_idle): a yield, and when the program spins on such calls (16 in
 * a row, each within 10 us of the last one's return) a sleep of at most 200 us on the doorbell
 * a message to this rank rings, as an idle wait does. */
int MPID_Progress_poll(void);
/* Runs the agent until done(arg) is true, spinning first and then yielding
 * the CPU between polls. */
void MPID_Progress_wait(int (*done)(void *arg), void *arg);
/* The MPI layer's own work that must advance with the agent (context-id agreements of
 * nonblocking communicator constructors, collective schedules): fn is called on every pass
 * while *work is not 0, and returns 1 if anything happened.  NULL removes it. */
void MPID_Progress_set_hook(int (*fn)(void), const int *work);
/* MPI_THREAD_MULTIPLE: the MPI layer holds one lock around every call.  A wait must let other
 * threads in, or a thread waiting for a message another thread of its process sends would wait
 * for good: between idle polls MPID_Progress_wait calls yield(0), which lets the lock go only
 * when another thread waits for it, and past the spinning yield(1), which lets it go and gives
 * the CPU away (instead of sleeping in the methods' wait objects or on the doorbell, where the
 * lock would be held, or a message another thread took for this one would not ring).  NULL:
 * single-threaded waits, as before. */
void MPID_Progress_set_yield(void (*yield)(int idle));
/* Waits for one request. */
void MPID_Wait(MPIR_Request *req);

/* The named counters (adi/stats.c) as MPI_T's performance variables show them: registered at
 * MPID_Init (their number only grows) and kept, with their final values, after the device
 * ends.  A counter counts events, a high-water mark (a name ending in _max) is the largest
 * value seen, a level is a quantity now (the receive queues). */
typedef enum { MPID_STAT_COUNTER, MPID_STAT_HIGHWATER, MPID_STAT_LEVEL } MPID_stat_kind_t;
int MPID_Stat_count(void);
const char *MPID_Stat_name(int i);
MPID_stat_kind_t MPID_Stat_kind(int i);
unsigned long MPID_Stat_read(int i);

#endif /* ADI_H_INCLUDED */
