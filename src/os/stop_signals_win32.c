/*
 * The CLI's stop signals, Windows side (stop_signals.h): console control
 * events. Ctrl-C, Ctrl-Break and the console's close come to a handler on a
 * thread of the system's; the first sets cli_stop_signal and the run ends
 * as it does on a POSIX signal (what it has, marked incomplete); a second
 * returns FALSE, so that the default handler ends the process, unless the
 * signals are held: then it ends when they are released.
 */
#define WIN32_LEAN_AND_MEAN
#include <windows.h>

#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>

#include "stop_signals.h"

#ifndef SIGBREAK
#define SIGBREAK 21
#endif

volatile sig_atomic_t cli_stop_signal;

static atomic_int holds;      /* cli_hold_stop_signals(true) not yet released */
static atomic_int deferred;   /* a second event's signal, to end with on release */

static int signal_of(DWORD event)
{
    switch (event) {
    case CTRL_C_EVENT: return SIGINT;
    case CTRL_BREAK_EVENT: return SIGBREAK;
    default: return SIGTERM; /* close, logoff, shutdown */
    }
}

/* The exit status a POSIX shell gives a process a signal ended. */
static void end_by(int sig)
{
    _exit(128 + sig);
}

static BOOL WINAPI on_console_event(DWORD event)
{
    const int sig = signal_of(event);
    if (!cli_stop_signal) {
        cli_stop_signal = sig;
        return TRUE;
    }
    if (atomic_load(&holds) > 0) {
        atomic_store(&deferred, sig);
        return TRUE;
    }
    return FALSE;
}

void cli_install_stop_handlers(void)
{
    SetConsoleCtrlHandler(on_console_event, TRUE);
}

void cli_hold_stop_signals(bool hold, CliSignalHold *saved)
{
    (void)saved;
    if (hold) {
        atomic_fetch_add(&holds, 1);
        return;
    }
    if (atomic_fetch_sub(&holds, 1) == 1) {
        const int sig = atomic_exchange(&deferred, 0);
        if (sig) end_by(sig);
    }
}

const char *cli_signal_name(int sig)
{
    switch (sig) {
    case SIGINT: return "Ctrl-C";
    case SIGBREAK: return "Ctrl-Break";
    case SIGTERM: return "the console's close";
    default: return "a signal";
    }
}

void cli_reader_wakeable(void)
{
}

/* A read blocked on a pipe or the console is cancelled; the reader sees an
 * error or end of file, then its stop flag. */
void cli_join_reader(pthread_t t)
{
    HANDLE h = (HANDLE)pthread_gethandle(t);
    while (h && WaitForSingleObject(h, 50) == WAIT_TIMEOUT) CancelSynchronousIo(h);
    pthread_join(t, NULL);
}
