/* thread.c: MPI_THREAD_MULTIPLE: one lock around the library (MPICH's "global" critical
 * section).  Each call takes it at entry (MPIR_CHECK_INIT, MPIR_CS_GUARD) and lets it go at
 * return; a wait lets it go between polls, so that the thread that will send what it waits for
 * (in this process) can get in.  Only a program that asked for MPI_THREAD_MULTIPLE pays for it:
 * MPIR_thread_multiple is set by MPI_Init_thread (or MPI_Session_init, MPI_T_init_thread),
 * before any other thread may call MPI. */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include "mpiimpl.h"

int MPIR_thread_multiple;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static _Thread_local int depth; /* calls of this thread under way: only the outer one locks */
static atomic_int waiting;      /* threads blocked on the lock, so a wait knows to let go */

static void lock_take(void)
{
    if (pthread_mutex_trylock(&lock) == 0)
        return;
    atomic_fetch_add_explicit(&waiting, 1, memory_order_relaxed);
    pthread_mutex_lock(&lock);
    atomic_fetch_sub_explicit(&waiting, 1, memory_order_relaxed);
}

int MPIR_Cs_enter_slow(void)
{
    if (depth++ == 0)
        lock_take();
    return 1;
}

void MPIR_Cs_exit_slow(void)
{
    if (--depth == 0)
        pthread_mutex_unlock(&lock);
}

/* Called by a wait between its idle polls (MPID_Progress_set_yield), on a thread that holds
 * the lock (a wait runs inside a call).  idle 0: let go only if another thread waits for it;
 * 1 (the wait has spun long): let go and give the CPU away in any case. */
static void wait_yield(int idle)
{
    if (!idle && atomic_load_explicit(&waiting, memory_order_relaxed) == 0)
        return;
    pthread_mutex_unlock(&lock);
    sched_yield();
    lock_take();
}

void MPIR_Thread_multiple_start(void)
{
    MPIR_thread_multiple = 1;
    MPID_Progress_set_yield(wait_yield);
}
