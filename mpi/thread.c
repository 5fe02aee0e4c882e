/* thread.c: MPI_THREAD_MULTIPLE: one lock around the library (MPICH's "global" critical
 * section).  Each call takes it at entry (MPIR_CHECK_INIT, MPIR_CS_GUARD) and lets it go at
 * return; a wait lets it go between polls, so that the thread that will send what it waits for
 * (in this process) can get in.  Only a program that asked for MPI_THREAD_MULTIPLE pays for it:
 * MPIR_thread_multiple is set by MPI_Init_thread (or MPI_Session_init, MPI_T_init_thread),
 * before any other thread may call MPI. */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>
#include "mpidi_config.h"
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

/* FERRY_ASYNC_PROGRESS=N (microseconds): a thread that polls every N us while no thread of the
 * program is in MPI, so that a rendezvous, a pipeline or a collective's schedule moves while the
 * program computes (the overlap that users of MPICH and Open MPI ask for: doc/api.md, "Progress
 * thread").  It takes the library's lock only when it is free (a trylock): a thread in MPI polls
 * by itself, and MPI_Finalize, which holds the lock, can stop the thread and wait for it.  The
 * lock is on for the whole process from the thread's start, as under MPI_THREAD_MULTIPLE. */
static pthread_t progress_thread;
static int progress_running;
static atomic_int progress_stop;

static void *progress_main(void *arg)
{
    long us = (long)(intptr_t)arg;
    struct timespec gap = {us / 1000000, us % 1000000 * 1000};
    while (!atomic_load_explicit(&progress_stop, memory_order_acquire)) {
        if (pthread_mutex_trylock(&lock) == 0) {
            depth = 1; /* a callback of the program's that calls MPI nests, as in a call */
            MPID_Progress_test();
            depth = 0;
            pthread_mutex_unlock(&lock);
        }
        nanosleep(&gap, NULL);
    }
    return NULL;
}

void MPIR_Async_progress_start(void)
{
    long us = MPIDI_config_int("FERRY_ASYNC_PROGRESS");
    if (us <= 0 || progress_running)
        return;
    MPIR_Thread_multiple_start();
    atomic_store_explicit(&progress_stop, 0, memory_order_relaxed);
    progress_running =
        pthread_create(&progress_thread, NULL, progress_main, (void *)(intptr_t)us) == 0;
    if (!progress_running)
        fprintf(stderr, "ferry: FERRY_ASYNC_PROGRESS: cannot start the progress thread; MPI "
                        "progresses only inside MPI calls\n");
}

void MPIR_Async_progress_stop(void)
{
    if (!progress_running)
        return;
    atomic_store_explicit(&progress_stop, 1, memory_order_release);
    pthread_join(progress_thread, NULL);
    progress_running = 0;
}
