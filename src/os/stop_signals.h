/*
 * The CLI's stop signals, the tool's part of the portability room (the
 * library never touches signals). SIGINT, SIGTERM and SIGHUP (Windows: the
 * console's Ctrl-C, Ctrl-Break and close events) ask it to stop: it stops
 * reading, finishes the frames in flight and writes what it has, marked
 * incomplete (tools/incomplete.h); a second one ends the process at once,
 * unless the stop signals are held, and then as soon as they are released.
 * stop_signals_posix.c and stop_signals_win32.c; the build takes one.
 */
#ifndef EXACTVMAF_OS_STOP_SIGNALS_H
#define EXACTVMAF_OS_STOP_SIGNALS_H

#include <pthread.h>
#include <signal.h>
#include <stdbool.h>

/** The signal that asked us to stop (0: none); on Windows SIGINT for Ctrl-C,
 * SIGBREAK for Ctrl-Break, SIGTERM for the console's close. */
extern volatile sig_atomic_t cli_stop_signal;

/** What cli_hold_stop_signals() saves to give back. */
typedef struct CliSignalHold {
#ifdef _WIN32
    int unused;
#else
    sigset_t old;
#endif
} CliSignalHold;

/** Install the handlers of the stop signals (and of the readers' wake-up). */
void cli_install_stop_handlers(void);

/*
 * Hold the stop signals (they stay pending) or release them. Threads
 * created while they are held never receive them, so that they reach the
 * reading thread (POSIX; on Windows a handler thread of the system takes
 * them, and holding only defers a second one's end of the process).
 */
void cli_hold_stop_signals(bool hold, CliSignalHold *saved);

/** "SIGINT", "SIGTERM", "SIGHUP" (Windows: "Ctrl-C", "Ctrl-Break", "the console's close"), else "a signal". */
const char *cli_signal_name(int sig);

/** Called first by a reader thread: let cli_join_reader() end a read it blocks in. */
void cli_reader_wakeable(void);

/*
 * Join a reader thread that has been told to stop, ending a read it is
 * blocked in (a pipe that gives nothing): POSIX sends it a signal without
 * SA_RESTART every 50 ms, Windows cancels its synchronous I/O.
 */
void cli_join_reader(pthread_t t);

#endif
